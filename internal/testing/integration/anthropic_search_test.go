package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mcpgen/mcpgen/generated/everything"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
	mcpanthropic "github.com/mcpgen/mcpgen/runtime/anthropic"
)

// searchingClaude is a Messages API stand-in that plays a model in deferred
// mode. It decodes each request into the SDK's own param types, and
// answers through reply, which sees the request's number (from 1) and the
// decoded request; a failed check of reply is reported by t.
type searchingClaude struct {
	t     *testing.T
	reply func(n int, p *anthropic.MessageNewParams) (string, error)

	mu   sync.Mutex
	reqs []*anthropic.MessageNewParams
}

func (c *searchingClaude) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p := &anthropic.MessageNewParams{}
	if err := json.Unmarshal(body, p); err != nil {
		c.t.Errorf("request %s: %v", body, err)
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.reqs = append(c.reqs, p)
	n := len(c.reqs)
	c.mu.Unlock()
	out, err := c.reply(n, p)
	if err != nil {
		c.t.Errorf("request %d: %v", n, err)
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"unexpected request"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"id":"m","type":"message","role":"assistant","model":"claude-test","usage":{"input_tokens":1,"output_tokens":1},`+out+`}`)
}

func (c *searchingClaude) requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.reqs)
}

// declared returns the tools of a request: custom tools by name, with
// whether they are sent with defer_loading, and the types of the others.
func declared(p *anthropic.MessageNewParams) (custom map[string]bool, server []string) {
	custom = map[string]bool{}
	for _, u := range p.Tools {
		switch {
		case u.OfTool != nil:
			custom[u.OfTool.Name] = u.OfTool.DeferLoading.Value
		case u.OfToolSearchToolBm25_20251119 != nil:
			server = append(server, string(u.OfToolSearchToolBm25_20251119.Type))
		default:
			server = append(server, "other")
		}
	}
	return custom, server
}

// lastResult returns the text of the one tool_result of the last message.
func lastResult(p *anthropic.MessageNewParams) (string, error) {
	last := p.Messages[len(p.Messages)-1].Content
	if len(last) != 1 || last[0].OfToolResult == nil {
		return "", fmt.Errorf("the last message is not one tool_result")
	}
	r := last[0].OfToolResult
	var b strings.Builder
	for _, c := range r.Content {
		if c.OfText != nil {
			b.WriteString(c.OfText.Text)
		}
	}
	if r.IsError.Value {
		return "", fmt.Errorf("the tool result is an error: %s", b.String())
	}
	return b.String(), nil
}

// TestAnthropicSearchEverything runs a Claude chat in deferred mode over
// the real server-everything with only echo pinned. The stand-in model
// needs get-sum, which is not declared: it searches for "add two numbers",
// calls the tool the search returned, and answers with the result the
// server gave. With the toolset's own search that takes one model request
// more than a call of a declared tool; with Claude's tool search the search
// runs inside the model's turn and takes none, and the next request
// carries the search's blocks as they came.
func TestAnthropicSearchEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	checkLeaks(t)
	ctx := testenv.Context(t)
	argv := testenv.Everything(t, "stdio")
	session, err := runtime.Connect(ctx, runtime.NewCommandTransport(argv[0], argv[1:]...), &runtime.Options{SnapshotHash: everything.SnapshotHash, FailOnDrift: true})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer session.Close()

	for _, native := range []bool{false, true} {
		t.Run(fmt.Sprintf("native=%v", native), func(t *testing.T) {
			toolset, err := mcpanthropic.NewToolset(session, everything.MCPTools(), &mcpanthropic.Options{Search: &runtime.ToolSearch{Pinned: []string{"echo"}, Native: native}})
			if err != nil {
				t.Fatal(err)
			}
			var model *searchingClaude
			if native {
				model = &searchingClaude{t: t, reply: nativeSearchModel}
			} else {
				model = &searchingClaude{t: t, reply: ownSearchModel}
			}
			srv := httptest.NewServer(model)
			defer srv.Close()
			client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
			chat := &mcpanthropic.Chat{Client: &client, Model: "claude-test", Toolset: toolset}
			answer, err := chat.Send(ctx, "What is 2 + 3? Use a tool.")
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if answer != "The sum of 2 and 3 is 5." {
				t.Errorf("answer %q", answer)
			}
			// A call of a declared tool takes two requests: the call and
			// the answer.
			want := 3
			if native {
				want = 2
			}
			if n := model.requests(); n != want {
				t.Errorf("%d model requests, want %d", n, want)
			}
		})
	}
}

// ownSearchModel searches with search_tools, then calls the first tool the
// search returned once it is declared, then answers with its result.
func ownSearchModel(n int, p *anthropic.MessageNewParams) (string, error) {
	custom, server := declared(p)
	switch n {
	case 1:
		if len(custom) != 2 || !has(custom, "echo") || !has(custom, "search_tools") || len(server) != 0 {
			return "", fmt.Errorf("the first request declares %v and %v, want echo and search_tools", custom, server)
		}
		return `"stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_q","name":"search_tools","input":{"query":"add two numbers"}}]`, nil
	case 2:
		text, err := lastResult(p)
		if err != nil {
			return "", err
		}
		var found struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if err := json.Unmarshal([]byte(text), &found); err != nil || len(found.Tools) == 0 {
			return "", fmt.Errorf("search result %q: %v", text, err)
		}
		name := found.Tools[0].Name
		if name != "get-sum" {
			return "", fmt.Errorf("the search for \"add two numbers\" returned %q first", name)
		}
		if !has(custom, name) || custom[name] {
			return "", fmt.Errorf("the second request does not declare %s: %v", name, custom)
		}
		return `"stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_s","name":"` + name + `","input":{"a":2,"b":3}}]`, nil
	case 3:
		return answerWith(p)
	}
	return "", fmt.Errorf("one request too many")
}

// nativeSearchModel plays Claude with its tool search: in its first turn
// it searches the deferred tools of the request, finds get-sum, and calls
// it; then it answers with the result.
func nativeSearchModel(n int, p *anthropic.MessageNewParams) (string, error) {
	custom, server := declared(p)
	switch n {
	case 1:
		if len(server) != 1 || server[0] != "tool_search_tool_bm25_20251119" {
			return "", fmt.Errorf("the first request has the server tools %v", server)
		}
		if !has(custom, "echo") || custom["echo"] {
			return "", fmt.Errorf("echo is not declared as a pinned tool: %v", custom)
		}
		// The search runs on the API's side, over the deferred tools.
		var hit string
		for _, u := range p.Tools {
			if tool := u.OfTool; tool != nil && tool.DeferLoading.Value && strings.Contains(tool.Description.Value, "sum of two numbers") {
				hit = tool.Name
			}
		}
		if hit != "get-sum" {
			return "", fmt.Errorf("no deferred tool adds two numbers: %v", custom)
		}
		return `"stop_reason":"tool_use","content":[
			{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{"query":"add two numbers"}},
			{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"` + hit + `"}]}},
			{"type":"tool_use","id":"toolu_s","name":"` + hit + `","input":{"a":2,"b":3}}]`, nil
	case 2:
		blocks := p.Messages[1].Content
		if len(blocks) != 3 || blocks[0].OfServerToolUse == nil || blocks[1].OfToolSearchToolResult == nil || blocks[2].OfToolUse == nil {
			return "", fmt.Errorf("the history does not keep the search's blocks: %+v", blocks)
		}
		refs := blocks[1].OfToolSearchToolResult.Content.OfRequestToolSearchToolSearchResultBlock
		if refs == nil || len(refs.ToolReferences) != 1 || refs.ToolReferences[0].ToolName != "get-sum" {
			return "", fmt.Errorf("the tool_search_tool_result came back as %+v", blocks[1].OfToolSearchToolResult)
		}
		return answerWith(p)
	}
	return "", fmt.Errorf("one request too many")
}

// answerWith ends the turn with the text of the last tool result.
func answerWith(p *anthropic.MessageNewParams) (string, error) {
	text, err := lastResult(p)
	if err != nil {
		return "", err
	}
	quoted, _ := json.Marshal(text)
	return `"stop_reason":"end_turn","content":[{"type":"text","text":` + string(quoted) + `}]`, nil
}

func has(m map[string]bool, k string) bool { _, ok := m[k]; return ok }
