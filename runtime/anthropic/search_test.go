package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// wireTool is a declaration as a Messages request carries it.
type wireTool struct {
	Name         string `json:"name"`
	Type         string `json:"type"`
	DeferLoading bool   `json:"defer_loading"`
}

// requestTools returns "name" for each tool of a request, with
// " (deferred)" after a tool sent with defer_loading and the type for a
// server tool.
func requestTools(t *testing.T, body []byte) []string {
	t.Helper()
	var w struct {
		Tools []wireTool `json:"tools"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatalf("request %s: %v", body, err)
	}
	var out []string
	for _, tool := range w.Tools {
		s := tool.Name
		if tool.Type != "" && tool.Type != "custom" {
			s += " " + tool.Type
		}
		if tool.DeferLoading {
			s += " (deferred)"
		}
		out = append(out, s)
	}
	return out
}

// toolNames returns "name" for each declaration of ts.Tools, as requestTools
// does for a request.
func toolNames(t *testing.T, ts *Toolset) []string {
	t.Helper()
	body, err := json.Marshal(anthropic.MessageNewParams{Tools: ts.Tools()})
	if err != nil {
		t.Fatal(err)
	}
	return requestTools(t, body)
}

// lastResultsOf is lastResults for requests that may hold any block: it
// decodes the request into the SDK's own param types.
func lastResultsOf(t *testing.T, body []byte) []string {
	t.Helper()
	var p anthropic.MessageNewParams
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("request %s: %v", body, err)
	}
	var out []string
	for _, b := range p.Messages[len(p.Messages)-1].Content {
		r := b.OfToolResult
		if r == nil {
			continue
		}
		s := r.ToolUseID + ": "
		if r.IsError.Value {
			s += "error "
		}
		for _, c := range r.Content {
			if c.OfText != nil {
				s += c.OfText.Text
			}
		}
		out = append(out, s)
	}
	return out
}

func deferredDevices(t *testing.T, search *runtime.ToolSearch) (*mcptest.Server, *Toolset) {
	t.Helper()
	srv := mcptest.Start(t, mcptest.DeviceTools)
	session, tools := srv.Connect(t)
	ts, err := NewToolset(session, tools, &Options{Search: search})
	if err != nil {
		t.Fatal(err)
	}
	return srv, ts
}

func TestDeferredOwnSearchDeclares(t *testing.T) {
	srv, ts := deferredDevices(t, &runtime.ToolSearch{Pinned: []string{"read_state"}})
	if got := strings.Join(toolNames(t, ts), ", "); got != "read_state, search_tools" {
		t.Fatalf("before a search: %s", got)
	}
	res := ts.Handle(context.Background(), anthropic.ToolUseBlock{ID: "toolu_q", Name: "search_tools", Input: json.RawMessage(`{"query":"switch a device on"}`)})
	if res.IsError.Value || len(res.Content) != 1 || !strings.Contains(res.Content[0].OfText.Text, `"name":"switch_on"`) {
		t.Fatalf("search result %+v", res)
	}
	if got := strings.Join(toolNames(t, ts), ", "); got != "read_state, search_tools, switch_on" {
		t.Errorf("after the search: %s", got)
	}
	res = ts.Handle(context.Background(), anthropic.ToolUseBlock{ID: "toolu_b", Name: "search_tools", Input: json.RawMessage(`{"q":1}`)})
	if !res.IsError.Value || !strings.Contains(res.Content[0].OfText.Text, `search_tools needs a "query"`) {
		t.Errorf("malformed search: %+v", res)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Errorf("the searches reached the server: %v", calls)
	}
	ts.ResetFound()
	if got := strings.Join(toolNames(t, ts), ", "); got != "read_state, search_tools" {
		t.Errorf("after ResetFound: %s", got)
	}
}

func TestDeferredNativeDeclares(t *testing.T) {
	_, ts := deferredDevices(t, &runtime.ToolSearch{Pinned: []string{"read_state"}, Native: true})
	want := "read_state, tool_search_tool_bm25 tool_search_tool_bm25_20251119, switch_on (deferred)"
	if got := strings.Join(toolNames(t, ts), ", "); got != want {
		t.Fatalf("declared %s, want %s", got, want)
	}
	// A native toolset declares no search function of its own.
	res := ts.Handle(context.Background(), anthropic.ToolUseBlock{ID: "toolu_q", Name: "search_tools", Input: json.RawMessage(`{"query":"x"}`)})
	// The message for an unknown tool points to Claude's tool search.
	if want := `unknown tool "search_tools"; the tools are: read_state; search for other tools with tool_search_tool_bm25`; !res.IsError.Value || res.Content[0].OfText.Text != want {
		t.Errorf("search_tools in native mode: %+v, want %s", res, want)
	}
	// The declarations are the same on every request.
	ts.Handle(context.Background(), anthropic.ToolUseBlock{ID: "toolu_s", Name: "switch_on", Input: json.RawMessage(`{"device":"lamp"}`)})
	if got := strings.Join(toolNames(t, ts), ", "); got != want {
		t.Errorf("after a call: %s", got)
	}
	// The tools of ToolParams never carry defer_loading.
	for _, p := range ts.ToolParams() {
		if p.DeferLoading.Valid() {
			t.Errorf("ToolParams: %s has defer_loading", p.Name)
		}
	}
}

// TestDeferredNativeFoundIsNil: with Claude's tool search, what was found
// lives in the conversation's history, and Found says nil, as documented,
// even after a call of a deferred tool.
func TestDeferredNativeFoundIsNil(t *testing.T) {
	_, ts := deferredDevices(t, &runtime.ToolSearch{Pinned: []string{"read_state"}, Native: true})
	ts.Handle(context.Background(), anthropic.ToolUseBlock{ID: "toolu_s", Name: "switch_on", Input: json.RawMessage(`{"device":"lamp"}`)})
	if got := ts.Found(); got != nil {
		t.Errorf("Found = %q after a call in native mode, want nil", got)
	}
}

func TestDeferredToolsetErrors(t *testing.T) {
	for _, c := range []struct {
		search *runtime.ToolSearch
		want   string
	}{
		{&runtime.ToolSearch{Pinned: []string{"read_state", "nope*"}}, `anthropic toolset: tool search: pinned pattern "nope*" matches none of the 2 tools`},
		{&runtime.ToolSearch{Pinned: []string{"[x"}}, `anthropic toolset: tool search: pinned pattern "[x": syntax error in pattern`},
	} {
		_, err := NewToolset(&fakeCaller{}, []runtime.Tool{
			{Name: "switch_on", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "read_state", InputSchema: json.RawMessage(`{"type":"object"}`)},
		}, &Options{Search: c.search})
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: error %v, want %s", c.search.Pinned, err, c.want)
		}
	}
	_, err := NewToolset(&fakeCaller{}, []runtime.Tool{{Name: "search_tools", InputSchema: json.RawMessage(`{"type":"object"}`)}}, &Options{Search: &runtime.ToolSearch{}})
	if err == nil || !strings.Contains(err.Error(), "search_tools") {
		t.Errorf("a tool named search_tools: %v", err)
	}
	clash := []runtime.Tool{{Name: "tool_search_tool_bm25", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "b", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	_, err = NewToolset(&fakeCaller{}, clash, &Options{Search: &runtime.ToolSearch{Native: true}})
	if want := "anthropic toolset: tool search: tool tool_search_tool_bm25 is declared as tool_search_tool_bm25, the name of Claude's tool search tool; leave it out with runtime.ToolFilter"; err == nil || err.Error() != want {
		t.Errorf("a tool named tool_search_tool_bm25 in native mode: %v, want %s", err, want)
	}
	if _, err := NewToolset(&fakeCaller{}, clash, &Options{Search: &runtime.ToolSearch{}}); err != nil {
		t.Errorf("a tool named tool_search_tool_bm25 with the own search: %v", err)
	}
}

const (
	searchUse      = `{"type":"tool_use","id":"toolu_q","name":"search_tools","input":{"query":"switch a device on"}}`
	switchOnLamp   = `{"type":"tool_use","id":"toolu_l","name":"switch_on","input":{"device":"lamp"}}`
	switchOnBadArg = `{"type":"tool_use","id":"toolu_x","name":"switch_on","input":{"device":5}}`
)

// TestChatOwnSearchFindsAndCalls: the model searches, the next request
// declares the tool found, the model calls it, the call reaches the server
// and its result goes back: one model request more than with every tool
// declared.
func TestChatOwnSearchFindsAndCalls(t *testing.T) {
	srv, ts := deferredDevices(t, &runtime.ToolSearch{Pinned: []string{"read_state"}})
	fake, client := newFakeMessages(t, nil, toolUseReply(searchUse), toolUseReply(switchOnLamp), answerReply)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
	if _, err := chat.Send(context.Background(), "switch on the lamp"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{"read_state, search_tools", "read_state, search_tools, switch_on", "read_state, search_tools, switch_on"} {
		if got := strings.Join(requestTools(t, reqs[i]), ", "); got != want {
			t.Errorf("request %d declares %s, want %s", i+1, got, want)
		}
	}
	if got := lastResults(t, reqs[1]); len(got) != 1 || !strings.Contains(got[0], `"name":"switch_on"`) {
		t.Errorf("search result %q", got)
	}
	if got := lastResults(t, reqs[2]); len(got) != 1 || got[0] != "toolu_l: done switch_on" {
		t.Errorf("call result %q", got)
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Name != "switch_on" {
		t.Errorf("the server got %v, want switch_on alone", calls)
	}
}

// searchThenCall returns the replies of a model that searches for
// switch_on and then calls it with use, and the index of the request that
// carries the call's result: with Claude's tool search both happen in one
// turn, with the toolset's own search in two.
func searchThenCall(native bool, use string) ([]string, int) {
	if native {
		return []string{strings.Replace(nativeSearchReply, switchOnLamp, use, 1), answerReply}, 1
	}
	return []string{toolUseReply(searchUse), toolUseReply(use), answerReply}, 2
}

// TestChatDeferredSafety: a found tool's calls are checked against its
// schema, confirmed and bounded by the step limit as a pinned tool's are,
// in both modes.
func TestChatDeferredSafety(t *testing.T) {
	for _, native := range []bool{false, true} {
		search := &runtime.ToolSearch{Pinned: []string{"read_state"}, Native: native}
		// Arguments that break the schema never reach the server.
		srv, ts := deferredDevices(t, search)
		replies, at := searchThenCall(native, switchOnBadArg)
		fake, client := newFakeMessages(t, nil, replies...)
		chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
		if _, err := chat.Send(context.Background(), "switch on"); err != nil {
			t.Fatal(err)
		}
		if got := lastResultsOf(t, fake.requests()[at]); len(got) != 1 || !strings.HasPrefix(got[0], "toolu_x: error ") || !strings.Contains(got[0], "/device") {
			t.Errorf("native %v: bad arguments answered with %q", native, got)
		}
		if calls := srv.Calls(); len(calls) != 0 {
			t.Errorf("native %v: the server got %v", native, calls)
		}

		// A declined confirmation keeps the call from the server.
		srv, ts = deferredDevices(t, search)
		var asked []string
		if err := ts.SetConfirmation(&runtime.Confirmation{Ask: func(ctx context.Context, call runtime.ProposedCall) (bool, error) {
			asked = append(asked, call.Tool.Name)
			return false, nil
		}}); err != nil {
			t.Fatal(err)
		}
		replies, at = searchThenCall(native, switchOnLamp)
		fake, client = newFakeMessages(t, nil, replies...)
		chat = &Chat{Client: client, Model: "claude-test", Toolset: ts}
		if _, err := chat.Send(context.Background(), "switch on"); err != nil {
			t.Fatal(err)
		}
		if got := lastResultsOf(t, fake.requests()[at]); len(got) != 1 || got[0] != "toolu_l: error the user declined the call to switch_on; it was not run" {
			t.Errorf("native %v: declined call answered with %q", native, got)
		}
		if len(asked) != 1 || len(srv.Calls()) != 0 {
			t.Errorf("native %v: asked %v, the server got %v", native, asked, srv.Calls())
		}

		// The step limit stops a found tool's call too: the request that
		// brings the call is the last one allowed.
		srv, ts = deferredDevices(t, search)
		replies, at = searchThenCall(native, switchOnLamp)
		_, client = newFakeMessages(t, nil, replies...)
		chat = &Chat{Client: client, Model: "claude-test", Toolset: ts, MaxSteps: at}
		if _, err := chat.Send(context.Background(), "switch on"); !errors.Is(err, ErrMaxSteps) {
			t.Errorf("native %v: error %v, want ErrMaxSteps", native, err)
		}
		if calls := srv.Calls(); len(calls) != 0 {
			t.Errorf("native %v: past the step limit, the server got %v", native, calls)
		}
	}
}

// nativeSearchReply is the message Claude sends when its tool search finds
// switch_on and it calls the tool in the same turn: the search's
// server_tool_use and tool_search_tool_result blocks, then the tool_use.
const nativeSearchReply = `{"id":"m1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use","content":[
	{"type":"text","text":"Let me find a tool."},
	{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{"query":"switch a device on"}},
	{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"switch_on"}]}},
	` + switchOnLamp + `],"usage":{"input_tokens":1,"output_tokens":1}}`

// TestChatNativeSearchKeepsHistory: with Claude's tool search, the search
// happens inside the model's turn; the chat runs the tool_use of the tool
// found, and the next request carries the server_tool_use and
// tool_search_tool_result blocks back as they came, decoded here with the
// SDK's own param types. No model request is added.
func TestChatNativeSearchKeepsHistory(t *testing.T) {
	srv, ts := deferredDevices(t, &runtime.ToolSearch{Pinned: []string{"read_state"}, Native: true})
	fake, client := newFakeMessages(t, nil, nativeSearchReply, answerReply)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
	answer, err := chat.Send(context.Background(), "switch on the lamp")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "The heater is on." {
		t.Errorf("answer %q", answer)
	}
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Name != "switch_on" {
		t.Errorf("the server got %v", calls)
	}
	var p anthropic.MessageNewParams
	if err := json.Unmarshal(reqs[1], &p); err != nil {
		t.Fatalf("decoding the second request: %v", err)
	}
	if len(p.Messages) != 3 {
		t.Fatalf("%d messages, want 3", len(p.Messages))
	}
	blocks := p.Messages[1].Content
	if len(blocks) != 4 {
		t.Fatalf("the assistant message has %d blocks, want 4", len(blocks))
	}
	use, res := blocks[1].OfServerToolUse, blocks[2].OfToolSearchToolResult
	if use == nil || use.ID != "srvtoolu_1" || use.Name != "tool_search_tool_bm25" {
		t.Errorf("server_tool_use block: %+v", blocks[1])
	}
	if q, _ := json.Marshal(use.Input); string(q) != `{"query":"switch a device on"}` {
		t.Errorf("server_tool_use input %s", q)
	}
	if res == nil || res.ToolUseID != "srvtoolu_1" || res.Content.OfRequestToolSearchToolSearchResultBlock == nil {
		t.Fatalf("tool_search_tool_result block: %+v", blocks[2])
	}
	refs := res.Content.OfRequestToolSearchToolSearchResultBlock.ToolReferences
	if len(refs) != 1 || refs[0].ToolName != "switch_on" {
		t.Errorf("tool references %+v", refs)
	}
	if r := p.Messages[2].Content[0].OfToolResult; r == nil || r.ToolUseID != "toolu_l" || r.Content[0].OfText.Text != "done switch_on" {
		t.Errorf("tool result %+v", p.Messages[2].Content[0])
	}
	// The declarations did not change between the requests.
	if a, b := strings.Join(requestTools(t, reqs[0]), ", "), strings.Join(requestTools(t, reqs[1]), ", "); a != b {
		t.Errorf("declarations changed: %s, then %s", a, b)
	}
}

// pausedSearchReply is a turn that Claude's tool search paused: the
// search's blocks, and stop_reason pause_turn.
const pausedSearchReply = `{"id":"m0","type":"message","role":"assistant","model":"claude-test","stop_reason":"pause_turn","content":[
	{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{"query":"switch a device on"}},
	{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"switch_on"}]}}
	],"usage":{"input_tokens":1,"output_tokens":1}}`

// TestChatResumesPausedTurn: a turn paused by a server tool is sent back as
// it is, so that the model goes on and calls the tool it found; the resumed
// request counts against the step limit, and stopping there leaves a
// history that a later Send continues.
func TestChatResumesPausedTurn(t *testing.T) {
	srv, ts := deferredDevices(t, &runtime.ToolSearch{Pinned: []string{"read_state"}, Native: true})
	fake, client := newFakeMessages(t, nil, pausedSearchReply, toolUseReply(switchOnLamp), answerReply)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
	if _, err := chat.Send(context.Background(), "switch on the lamp"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	var p anthropic.MessageNewParams
	if err := json.Unmarshal(reqs[1], &p); err != nil {
		t.Fatal(err)
	}
	if n := len(p.Messages); n != 2 || p.Messages[1].Role != anthropic.MessageParamRoleAssistant || p.Messages[1].Content[1].OfToolSearchToolResult == nil {
		t.Errorf("the resumed request does not end with the paused message: %s", reqs[1])
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Name != "switch_on" {
		t.Errorf("the server got %v", calls)
	}

	_, ts = deferredDevices(t, &runtime.ToolSearch{Pinned: []string{"read_state"}, Native: true})
	fake, client = newFakeMessages(t, nil, pausedSearchReply)
	chat = &Chat{Client: client, Model: "claude-test", Toolset: ts, MaxSteps: 1}
	if _, err := chat.Send(context.Background(), "switch on the lamp"); !errors.Is(err, ErrMaxSteps) {
		t.Fatalf("error %v, want ErrMaxSteps", err)
	}
	if n := len(chat.History); n != 2 {
		t.Errorf("history of %d messages, want the user's and the paused one", n)
	}
	fake.setReplies(answerReply)
	if _, err := chat.Send(context.Background(), "go on"); err != nil {
		t.Errorf("a later Send: %v", err)
	}
}
