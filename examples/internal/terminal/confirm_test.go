package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

func TestAskOnTerminal(t *testing.T) {
	call := runtime.ProposedCall{Tool: runtime.Tool{Name: "HassTurnOn"}, Arguments: json.RawMessage(`{"name":"heater\u001b[2J"}`)}
	for _, c := range []struct {
		answer string
		want   bool
	}{{"y\n", true}, {"YES\n", true}, {"n\n", false}, {"\n", false}, {"sure\n", false}} {
		ptmx, path := testenv.OpenPTY(t)
		screen := testenv.Watch(ptmx)
		done := make(chan bool, 1)
		go func() {
			ok, err := (&Confirm{Path: path}).Ask(context.Background(), call)
			if err != nil {
				t.Error(err)
			}
			done <- ok
		}()
		screen.WaitFor(t, `Run HassTurnOn {"name":"heater\u001b[2J"}? [y/N] `)
		io.WriteString(ptmx, c.answer)
		if ok := <-done; ok != c.want {
			t.Errorf("answer %q: Ask = %v, want %v", c.answer, ok, c.want)
		}
	}
}

func TestAskCancelled(t *testing.T) {
	ptmx, path := testenv.OpenPTY(t)
	screen := testenv.Watch(ptmx)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		ok, err := (&Confirm{Path: path}).Ask(ctx, runtime.ProposedCall{Tool: runtime.Tool{Name: "t"}})
		if ok {
			t.Error("a cancelled question ran the call")
		}
		done <- err
	}()
	screen.WaitFor(t, "Run t ? [y/N] ")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func TestAskWithoutTerminal(t *testing.T) {
	ok, err := (&Confirm{Path: "/nonexistent/tty"}).Ask(context.Background(), runtime.ProposedCall{Tool: runtime.Tool{Name: "t"}})
	if ok || err == nil || err.Error() != "there is no terminal to ask the user on (--yes runs tool calls without asking)" {
		t.Errorf("Ask = %v, %v", ok, err)
	}
}
