package gemini

import (
	"context"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
)

// After Live.Update, a function name the model was given for one MCP tool
// does not silently run another. Gemini refuses the MCP name a/b, declared
// a_b; once the server also lists a tool named a_b, the new toolset gives
// a_b to that tool and a/b a name with a hash. A call of a_b used to run
// the new tool; the first is refused, and the refusal names the function
// that now stands for the tool a_b named before. A function whose name did
// not shift runs, and so does a second call of a_b, made knowing what the
// name means now.
func TestLiveUpdateNameShiftRefused(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	caller := callerFunc(func(_ context.Context, name string, _ any) (*runtime.Result, error) {
		mu.Lock()
		ran = append(ran, name)
		mu.Unlock()
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "ran " + name}}}, nil
	})
	before, err := NewToolset(caller, []runtime.Tool{{Name: "a/b"}, {Name: "c"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := before.DeclaredName("a/b"); d != "a_b" {
		t.Fatalf("a/b is declared %q, want a_b", d)
	}
	conn := newMemLiveConn()
	live, err := newLive(conn, before, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- live.Run(context.Background(), nil) }()
	t.Cleanup(func() {
		conn.Close()
		<-done
	})
	after, err := NewToolset(caller, []runtime.Tool{{Name: "a/b"}, {Name: "a_b"}, {Name: "c"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	moved, _ := after.DeclaredName("a/b")
	if moved == "a_b" || !strings.HasPrefix(moved, "a_b_") {
		t.Fatalf("after the change a/b is declared %q, want a_b and a hash", moved)
	}
	if _, err := live.Update(after); err != nil {
		t.Fatal(err)
	}
	conn.in <- toolCall(&genai.FunctionCall{ID: "1", Name: "a_b"})
	r := conn.next(t)
	if msg, _ := r.Response["error"].(string); r.ID != "1" || !strings.Contains(msg, "a_b names another tool than before") || !strings.Contains(msg, moved) {
		t.Errorf("the call of a_b got %+v, want a refusal naming %s", r.Response, moved)
	}
	conn.in <- toolCall(&genai.FunctionCall{ID: "2", Name: moved}, &genai.FunctionCall{ID: "3", Name: "c"})
	for range 2 {
		r := conn.next(t)
		if want := map[string]string{"2": "ran a/b", "3": "ran c"}[r.ID]; r.Response["output"] != want {
			t.Errorf("call %s got %+v, want the output %q", r.ID, r.Response, want)
		}
	}
	mu.Lock()
	for _, name := range ran {
		if name == "a_b" {
			t.Errorf("the server's tool a_b ran under the name a/b had: %v", ran)
		}
	}
	mu.Unlock()
	conn.in <- toolCall(&genai.FunctionCall{ID: "4", Name: "a_b"})
	if r := conn.next(t); r.ID != "4" || r.Response["output"] != "ran a_b" {
		t.Errorf("the second call of a_b got %+v, want the output of the tool a_b", r.Response)
	}
}
