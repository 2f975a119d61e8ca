package gemini

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// A chat whose Toolset is replaced after the server's tool list changed
// does not run a tool the model did not mean. Gemini refuses the MCP name
// a/b, declared a_b; once the server also lists a tool named a_b, the new
// toolset gives a_b to that tool and a/b a name with a hash. The model,
// going on with the conversation, calls a_b meaning a/b: that first call
// is refused, naming the function that now stands for a/b, while a call
// of a name that did not shift runs. A second call of a_b runs the tool
// a_b.
func TestChatToolsetReplacedNameShiftRefused(t *testing.T) {
	const callsAB = `{"candidates": [{"content": {"role": "model", "parts": [
		{"functionCall": {"id": "1", "name": "a_b", "args": {}}},
		{"functionCall": {"id": "2", "name": "c", "args": {}}}
	]}, "finishReason": "STOP"}]}`
	const callAB = `{"candidates": [{"content": {"role": "model", "parts": [
		{"functionCall": {"id": "3", "name": "a_b", "args": {}}}
	]}, "finishReason": "STOP"}]}`
	fake, client := newFakeGemini(t, textReply, callsAB, textReply, callAB, textReply)
	caller := &fakeCaller{answer: func(name string, _ json.RawMessage) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "ran " + name}}}, nil
	}}
	before, err := NewToolset(caller, []runtime.Tool{{Name: "a/b"}, {Name: "c"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := before.DeclaredName("a/b"); d != "a_b" {
		t.Fatalf("a/b is declared %q, want a_b", d)
	}
	chat := &Chat{Client: client, Model: "gemini-test", Toolset: before}
	ctx := context.Background()
	if _, err := chat.Send(ctx, "hello"); err != nil {
		t.Fatal(err)
	}

	after, err := NewToolset(caller, []runtime.Tool{{Name: "a/b"}, {Name: "a_b"}, {Name: "c"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	moved, _ := after.DeclaredName("a/b")
	if !strings.HasPrefix(moved, "a_b_") {
		t.Fatalf("after the change a/b is declared %q, want a_b and a hash", moved)
	}
	chat.Toolset = after
	if _, err := chat.Send(ctx, "call a/b and c"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	sent := decodeRequest(t, reqs[len(reqs)-1])
	responses := sent.Contents[len(sent.Contents)-1]
	if len(responses.Parts) != 2 {
		t.Fatalf("the function responses are %+v, want two", responses)
	}
	refused := responses.Parts[0].FunctionResponse
	if msg, _ := refused.Response["error"].(string); refused.ID != "1" || !strings.Contains(msg, "a_b names another tool than before") || !strings.Contains(msg, moved) {
		t.Errorf("the call of a_b got %+v, want a refusal naming %s", refused, moved)
	}
	if ran := responses.Parts[1].FunctionResponse; ran.ID != "2" || ran.Response["output"] != "ran c" {
		t.Errorf("the call of c got %+v, want the output of c", ran)
	}
	if got := caller.recorded(); len(got) != 1 || got[0] != "c {}" {
		t.Errorf("the server ran %q, want only c", got)
	}

	if _, err := chat.Send(ctx, "call a_b again"); err != nil {
		t.Fatal(err)
	}
	reqs = fake.requests()
	sent = decodeRequest(t, reqs[len(reqs)-1])
	again := sent.Contents[len(sent.Contents)-1].Parts[0].FunctionResponse
	if again.ID != "3" || again.Response["output"] != "ran a_b" {
		t.Errorf("the second call of a_b got %+v, want the output of the tool a_b", again)
	}
}
