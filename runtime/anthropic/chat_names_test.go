package anthropic

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// A chat whose Toolset is replaced after the server's tool list changed
// does not run a tool the model did not mean. Claude refuses the MCP name
// a/b, declared a_b; once the server also lists a tool named a_b, the new
// toolset gives a_b to that tool and a/b a name with a hash. The model,
// going on with the conversation, calls a_b meaning a/b: that first call
// is refused, naming the tool that now stands for a/b, while a call of a
// name that did not shift runs. A second call of a_b runs the tool a_b.
func TestChatToolsetReplacedNameShiftRefused(t *testing.T) {
	caller := &fakeCaller{}
	before, err := NewToolset(caller, []runtime.Tool{{Name: "a/b"}, {Name: "c"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := before.tools.DeclaredName("a/b"); d != "a_b" {
		t.Fatalf("a/b is declared %q, want a_b", d)
	}
	fake, client := newFakeMessages(t, nil,
		answerReply,
		toolUseReply(`{"type":"tool_use","id":"toolu_1","name":"a_b","input":{}}`, `{"type":"tool_use","id":"toolu_2","name":"c","input":{}}`),
		answerReply,
		toolUseReply(`{"type":"tool_use","id":"toolu_3","name":"a_b","input":{}}`),
		answerReply)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: before}
	ctx := context.Background()
	if _, err := chat.Send(ctx, "hello"); err != nil {
		t.Fatal(err)
	}

	after, err := NewToolset(caller, []runtime.Tool{{Name: "a/b"}, {Name: "a_b"}, {Name: "c"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	moved, _ := after.tools.DeclaredName("a/b")
	if !strings.HasPrefix(moved, "a_b_") {
		t.Fatalf("after the change a/b is declared %q, want a_b and a hash", moved)
	}
	chat.Toolset = after
	if _, err := chat.Send(ctx, "call a/b and c"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	got := lastResults(t, reqs[len(reqs)-1])
	if len(got) != 2 || !strings.HasPrefix(got[0], "toolu_1: error ") || !strings.Contains(got[0], "a_b names another tool than before") || !strings.Contains(got[0], moved) {
		t.Errorf("the tool results are %q, want the call of a_b refused, naming %s", got, moved)
	}
	if len(got) == 2 && !strings.HasPrefix(got[1], "toolu_2: done") {
		t.Errorf("the call of c got %q, want its output", got[1])
	}
	caller.mu.Lock()
	ran := slices.Clone(caller.calls)
	caller.mu.Unlock()
	if !slices.Equal(ran, []string{"c {}"}) {
		t.Errorf("the server ran %q, want only c", ran)
	}

	if _, err := chat.Send(ctx, "call a_b again"); err != nil {
		t.Fatal(err)
	}
	reqs = fake.requests()
	if got := lastResults(t, reqs[len(reqs)-1]); len(got) != 1 || !strings.HasPrefix(got[0], "toolu_3: done") {
		t.Errorf("the second call of a_b got %q, want the output of the tool a_b", got)
	}
}
