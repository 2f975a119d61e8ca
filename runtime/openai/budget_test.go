package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// ms365Pinned are the three tools the budget pins.
var ms365Pinned = []string{"get-current-user", "list-mail-messages", "get-calendar-view"}

func ms365Tools(t *testing.T) []runtime.Tool {
	t.Helper()
	tools, err := providertest.LoadTools(testenv.FromRoot("testdata/servers/ms365.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 344 {
		t.Fatalf("ms365 has %d tools, want 344", len(tools))
	}
	return tools
}

func jsonSize(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestMS365ToolLimit: over ms365's 344 tools, NewToolset refuses without
// deferred mode, with an error that names it; in deferred mode it accepts
// them, with either search, and refuses only when what one request may
// declare is over MaxTools.
func TestMS365ToolLimit(t *testing.T) {
	tools := ms365Tools(t)
	caller := &fakeCaller{}
	_, err := NewToolset(caller, tools, nil)
	var tooMany *runtime.TooManyToolsError
	if !errors.As(err, &tooMany) || tooMany.Tools != 344 || tooMany.Deferred || !strings.Contains(err.Error(), "deferred mode (runtime.ToolSearch)") {
		t.Errorf("without deferred mode: error = %v", err)
	}
	for _, native := range []bool{false, true} {
		ts, err := NewToolset(caller, tools, &Options{Search: &runtime.ToolSearch{Pinned: ms365Pinned, Native: native}})
		if err != nil {
			t.Fatalf("native %v: %v", native, err)
		}
		if n := len(ts.ResponsesTools()); native && n != 345 || !native && n != 4 {
			t.Errorf("native %v: the first Responses request declares %d tools", native, n)
		}
	}
	for _, c := range []struct {
		search *runtime.ToolSearch
		tools  int // 0: accepted
	}{
		{&runtime.ToolSearch{Pinned: []string{"*"}}, 345},
		{&runtime.ToolSearch{Pinned: ms365Pinned, MaxFound: 125}, 129},
		{&runtime.ToolSearch{Pinned: ms365Pinned, MaxFound: 124}, 0},
	} {
		_, err := NewToolset(caller, tools, &Options{Search: c.search})
		if c.tools == 0 {
			if err != nil {
				t.Errorf("%+v: %v", c.search, err)
			}
			continue
		}
		if !errors.As(err, &tooMany) || !tooMany.Deferred || tooMany.Tools != c.tools || !strings.Contains(err.Error(), "deferred mode") {
			t.Errorf("%+v: error = %v, want %d declarations refused in deferred mode", c.search, err, c.tools)
		}
	}
	if _, err := NewToolset(caller, tools, &Options{Search: &runtime.ToolSearch{Pinned: []string{"send-mail", "no-such-tool"}}}); err == nil || !strings.Contains(err.Error(), `"no-such-tool"`) {
		t.Errorf("a pin that matches nothing: error = %v", err)
	}
}

// TestMS365DeclarationBudget measures the bytes of the tool declarations
// of one request over ms365 with three tools pinned, against the bytes of
// the full set, in the Chat Completions and the Responses forms. With
// mcpgen's search a request declares at most 10% of the full set's bytes,
// before a search and after one. The Responses API's tool_search is
// reported, not bounded: its request carries every function (the deferred
// ones with defer_loading), so it sends more bytes than the full set; what
// enters the model's context is, as the API documents for deferred
// functions outside namespaces, the pinned declarations, the tool_search
// tool and the name and description of each deferred function, then the
// declarations a search loads.
func TestMS365DeclarationBudget(t *testing.T) {
	tools := ms365Tools(t)
	defs, _, err := FunctionDefinitions(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	var fullChat []openai.ChatCompletionToolUnionParam
	var fullResponses []responses.ToolUnionParam
	for _, d := range defs {
		fullChat = append(fullChat, openai.ChatCompletionFunctionTool(d))
		fullResponses = append(fullResponses, responsesFunction(d))
	}
	full := map[string]int{"chat": jsonSize(t, fullChat), "responses": jsonSize(t, fullResponses)}
	t.Logf("ms365, %d tools: the full set is %d bytes (Chat Completions), %d bytes (Responses)", len(tools), full["chat"], full["responses"])

	ts, err := NewToolset(&fakeCaller{}, tools, &Options{Search: &runtime.ToolSearch{Pinned: ms365Pinned}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string, chat, resp int) {
		t.Helper()
		for api, n := range map[string]int{"chat": chat, "responses": resp} {
			pct := 100 * float64(n) / float64(full[api])
			t.Logf("own search, %s, %s: %d bytes, %.1f%% of the full set", api, when, n, pct)
			if n*10 > full[api] {
				t.Errorf("own search, %s, %s: %d bytes is over 10%% of %d", api, when, n, full[api])
			}
		}
	}
	check("3 pinned + search_tools", jsonSize(t, ts.Tools()), jsonSize(t, ts.ResponsesTools()))
	if out := ts.run(context.Background(), "search_tools", `{"query":"send an email"}`); !strings.Contains(out, `"name":"send-mail"`) {
		t.Errorf("the search for an email finds %s", out)
	}
	check("after one search ("+strings.Join(ts.Found(), ", ")+")", jsonSize(t, ts.Tools()), jsonSize(t, ts.ResponsesTools()))
	for _, q := range []string{"calendar event", "excel range", "onenote page", "planner task", "teams chat message", "drive item", "contacts folder", "mail folder"} {
		ts.run(context.Background(), "search_tools", `{"query":"`+q+`"}`)
	}
	t.Logf("own search, after 9 searches, %d tools found: %d bytes (Chat Completions), %d bytes (Responses)", len(ts.Found()), jsonSize(t, ts.Tools()), jsonSize(t, ts.ResponsesTools()))

	native, err := NewToolset(&fakeCaller{}, tools, &Options{Search: &runtime.ToolSearch{Pinned: ms365Pinned, Native: true}})
	if err != nil {
		t.Fatal(err)
	}
	wire := jsonSize(t, native.ResponsesTools())
	var pinned []responses.ToolUnionParam
	var visible []map[string]any
	for _, tool := range native.ResponsesTools() {
		switch f := tool.OfFunction; {
		case f == nil:
			pinned = append(pinned, tool) // the tool_search tool
		case f.DeferLoading.Value:
			visible = append(visible, map[string]any{"name": f.Name, "description": f.Description.Value})
		default:
			pinned = append(pinned, tool)
		}
	}
	inContext := jsonSize(t, pinned) + jsonSize(t, visible)
	t.Logf("native tool_search, Responses: %d bytes on the wire (%.1f%% of the full set); about %d bytes enter the model's context before a search (%.1f%%): %d of pinned declarations and tool_search, %d of names and descriptions of the %d deferred functions; each search adds the declarations it loads",
		wire, 100*float64(wire)/float64(full["responses"]), inContext, 100*float64(inContext)/float64(full["responses"]), jsonSize(t, pinned), jsonSize(t, visible), len(visible))
	if wire <= full["responses"] {
		t.Errorf("the native request is %d bytes, not more than the full set's %d: are the deferred functions missing?", wire, full["responses"])
	}
}
