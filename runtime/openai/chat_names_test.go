package openai

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// shiftedToolsets returns a toolset in which a/b is declared a_b, and the
// one built after the server also listed a tool named a_b, in which a_b
// names that tool and a/b has the name returned with them.
func shiftedToolsets(t *testing.T, caller runtime.Caller) (before, after *Toolset, moved string) {
	t.Helper()
	before, err := NewToolset(caller, []runtime.Tool{{Name: "a/b"}, {Name: "c"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := before.tools.DeclaredName("a/b"); d != "a_b" {
		t.Fatalf("a/b is declared %q, want a_b", d)
	}
	after, err = NewToolset(caller, []runtime.Tool{{Name: "a/b"}, {Name: "a_b"}, {Name: "c"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	moved, _ = after.tools.DeclaredName("a/b")
	if !strings.HasPrefix(moved, "a_b_") {
		t.Fatalf("after the change a/b is declared %q, want a_b and a hash", moved)
	}
	return before, after, moved
}

func ranCalls(c *fakeCaller) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

// A chat whose Toolset is replaced after the server's tool list changed
// does not run a tool the model did not mean: the model, going on with the
// conversation, calls a_b meaning a/b, which the new toolset declares
// under another name. That first call is refused, naming the function
// that now stands for a/b, while a call of a name that did not shift runs.
// A second call of a_b runs the tool a_b.
func TestChatToolsetReplacedNameShiftRefused(t *testing.T) {
	caller := &fakeCaller{}
	before, after, moved := shiftedToolsets(t, caller)
	fake, client := newFakeCompletions(t, nil,
		answerReply,
		toolCallsReply(`{"id":"call_1","type":"function","function":{"name":"a_b","arguments":"{}"}}`, `{"id":"call_2","type":"function","function":{"name":"c","arguments":"{}"}}`),
		answerReply,
		toolCallsReply(`{"id":"call_3","type":"function","function":{"name":"a_b","arguments":"{}"}}`),
		answerReply)
	chat := &Chat{Client: client, Model: "gpt-test", Toolset: before}
	ctx := context.Background()
	if _, err := chat.Send(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	chat.Toolset = after
	if _, err := chat.Send(ctx, "call a/b and c"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	msgs := requestMessages(t, reqs[len(reqs)-1])
	refused, ran := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if text, _ := refused.Content.(string); refused.ToolCallID != "call_1" || !strings.HasPrefix(text, "Error: ") || !strings.Contains(text, "a_b names another tool than before") || !strings.Contains(text, moved) {
		t.Errorf("the call of a_b got %+v, want a refusal naming %s", refused, moved)
	}
	if text, _ := ran.Content.(string); ran.ToolCallID != "call_2" || strings.HasPrefix(text, "Error") {
		t.Errorf("the call of c got %+v, want its output", ran)
	}
	if got := ranCalls(caller); !slices.Equal(got, []string{"c {}"}) {
		t.Errorf("the server ran %q, want only c", got)
	}

	if _, err := chat.Send(ctx, "call a_b again"); err != nil {
		t.Fatal(err)
	}
	if got := ranCalls(caller); !slices.Equal(got, []string{"c {}", "a_b {}"}) {
		t.Errorf("the server ran %q, want c, then a_b", got)
	}
}

// The same for a Responses conversation whose Toolset is replaced.
func TestResponsesToolsetReplacedNameShiftRefused(t *testing.T) {
	caller := &fakeCaller{}
	before, after, moved := shiftedToolsets(t, caller)
	fake, client := newFakeResponses(t, nil,
		heaterAnswer,
		fixed(responseBody("resp_c", "completed", functionCallItem("call_1", "a_b", "{}"), functionCallItem("call_2", "c", "{}"))),
		heaterAnswer,
		fixed(responseBody("resp_d", "completed", functionCallItem("call_3", "a_b", "{}"))),
		heaterAnswer)
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: before}
	ctx := context.Background()
	if _, err := conv.Send(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	conv.Toolset = after
	if _, err := conv.Send(ctx, "call a/b and c"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	outputs := map[string]string{}
	for _, item := range inputs(reqs[len(reqs)-1]) {
		if o := item.OfFunctionCallOutput; o != nil {
			outputs[o.CallID.Value] = o.Output.OfString.Value
		}
	}
	if text := outputs["call_1"]; !strings.HasPrefix(text, "Error: ") || !strings.Contains(text, "a_b names another tool than before") || !strings.Contains(text, moved) {
		t.Errorf("the call of a_b got %q, want a refusal naming %s", text, moved)
	}
	if text, ok := outputs["call_2"]; !ok || strings.HasPrefix(text, "Error") {
		t.Errorf("the call of c got %q, want its output", text)
	}
	if got := ranCalls(caller); !slices.Equal(got, []string{"c {}"}) {
		t.Errorf("the server ran %q, want only c", got)
	}

	if _, err := conv.Send(ctx, "call a_b again"); err != nil {
		t.Fatal(err)
	}
	if got := ranCalls(caller); !slices.Equal(got, []string{"c {}", "a_b {}"}) {
		t.Errorf("the server ran %q, want c, then a_b", got)
	}
}
