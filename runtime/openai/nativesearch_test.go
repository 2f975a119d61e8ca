package openai

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestNativeSearchKeepsServerToolNamedSearchTools: with the Responses
// API's tool_search, the toolset declares no search function of its own,
// so a server tool named search_tools keeps its name (toolname's Reserved
// names leave a tool's own name alone) and its calls reach the server,
// instead of being answered by a search the model was never offered.
func TestNativeSearchKeepsServerToolNamedSearchTools(t *testing.T) {
	srv := mcptest.Start(t, `[
		{"name": "search_tools", "description": "Searches the company's tool catalogue.", "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
		{"name": "read_state", "description": "Reads a device's state.", "inputSchema": {"type": "object", "properties": {"device": {"type": "string"}}}, "annotations": {"readOnlyHint": true}}
	]`)
	session, tools := srv.Connect(t)
	ts, err := NewToolset(session, tools, &Options{Search: &runtime.ToolSearch{Pinned: []string{"search_tools"}, Native: true}})
	if err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeResponses(t, nil, fixed(responseBody("resp_c", "completed", functionCallItem("call_1", "search_tools", `{"query":"heater"}`))), heaterAnswer)
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
	if _, err := conv.Send(context.Background(), "find a heater tool"); err != nil {
		t.Fatal(err)
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Name != "search_tools" || string(calls[0].Arguments) != `{"query":"heater"}` {
		t.Errorf("the server got %v, want search_tools with {\"query\":\"heater\"}", calls)
	}
	in := inputs(fake.requests()[1])
	if _, text := outputOf(in[len(in)-1]); text != "done search_tools" {
		t.Errorf("the call of search_tools is answered with %q", text)
	}
}
