package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestStrictUnionBranchNullsRemoved checks that a strict-mode call of a tool
// whose argument is a const-tagged union reaches the server when the model
// picks the second branch and sends null for an optional property of it, as
// the strict declaration makes it do.
func TestStrictUnionBranchNullsRemoved(t *testing.T) {
	tool := runtime.Tool{Name: "draw", InputSchema: json.RawMessage(`{"type":"object","properties":{"shape":{"anyOf":[
		{"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"number"}},"required":["kind"]},
		{"type":"object","properties":{"kind":{"const":"rect"},"width":{"type":"number"},"height":{"type":"number"}},"required":["kind"]}
	]}},"required":["shape"]}`)}
	caller := &fakeCaller{}
	ts, err := NewToolset(caller, []runtime.Tool{tool}, &Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := ts.Definitions()[0]; !d.Strict.Value {
		t.Fatalf("the tool is not declared strict")
	}
	out := ts.run(context.Background(), "draw", `{"shape":{"kind":"rect","width":2,"height":null}}`)
	if strings.HasPrefix(out, "Error: ") {
		t.Fatalf("the call failed: %s", out)
	}
	if len(caller.calls) != 1 || caller.calls[0] != `draw {"shape":{"kind":"rect","width":2}}` {
		t.Errorf("the server got %q", caller.calls)
	}
}

// TestDeferredSanitizedNameAvoidsSearchFunction checks that a tool whose
// name only becomes the search function's once rewritten ("search.tools")
// is declared under another name in deferred mode rather than making the
// toolset fail as if the server had a tool named search_tools.
func TestDeferredSanitizedNameAvoidsSearchFunction(t *testing.T) {
	tools := []runtime.Tool{
		{Name: "search.tools", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"m":{"type":"string"}}}`)},
	}
	ts, err := NewToolset(&fakeCaller{}, tools, &Options{Search: &runtime.ToolSearch{Pinned: []string{"echo"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ts.Definitions() {
		if d.Name == "search_tools" {
			t.Errorf("a server tool is declared as search_tools")
		}
	}
	out := ts.run(context.Background(), "search_tools", `{"query":"search tools"}`)
	if !strings.Contains(out, `"name":"search_tools_`) {
		t.Errorf("the search found %s", out)
	}
}

// TestStrictTopLevelUnionNotStrict checks that a tool whose input schema is
// a union of objects at the top level, each branch with its own
// properties, is not declared strict: strict mode closes the top-level
// object, which declares none of the branches' properties, so no call could
// carry the arguments the server requires.
func TestStrictTopLevelUnionNotStrict(t *testing.T) {
	tool := runtime.Tool{Name: "find", InputSchema: json.RawMessage(`{"type":"object","oneOf":[
		{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},
		{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}]}`)}
	defs, _, err := FunctionDefinitions([]runtime.Tool{tool}, &Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if defs[0].Strict.Value {
		b, _ := json.Marshal(defs[0].Parameters)
		t.Errorf("declared strict with parameters %s", b)
	}
}
