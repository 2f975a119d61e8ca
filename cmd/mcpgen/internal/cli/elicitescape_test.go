package cli

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestPromptShowsSchemaErrorsEscaped answers a form whose field has a
// pattern that does not compile and that carries terminal sequences (OSC 52,
// which writes the clipboard, OSC 0, which sets the window title, and
// clear-screen): the error quoting the pattern reaches the terminal with
// those sequences shown as escapes.
func TestPromptShowsSchemaErrorsEscaped(t *testing.T) {
	pattern := "(\x1b]52;c;SGVsbG8=\x07\x1b]0;pwned\x07\x1b[2J"
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
		"code": map[string]any{"type": "string", "pattern": pattern}}})
	req := &runtime.ElicitRequest{Server: runtime.Implementation{Name: "srv"}, Mode: runtime.ElicitForm, Message: "Code?", RequestedSchema: schema}
	ptmx, path := testenv.OpenPTY(t)
	screen := testenv.Watch(ptmx)
	defer func(old string) { ttyPath = old }(ttyPath)
	ttyPath = path
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&elicitor{stderr: io.Discard}).handle(ctx, req)
	}()
	screen.WaitFor(t, "Answer? [Y/n] ")
	io.WriteString(ptmx, "\n")
	screen.WaitFor(t, "code: ")
	io.WriteString(ptmx, "x\n")
	screen.WaitFor(t, `\x1b]52;c;SGVsbG8=`)
	screen.WaitFor(t, "code: ")
	cancel()
	<-done
	seen := screen.Seen()
	for _, bad := range []string{"\x1b", "\x07"} {
		if strings.Contains(seen, bad) {
			t.Errorf("the terminal got %q raw: %q", bad, seen)
		}
	}
}

// TestPromptRefusesNonWebURLs: a URL-mode request for a javascript:, file:
// or data: URL is declined with a message, without waiting for Enter.
func TestPromptRefusesNonWebURLs(t *testing.T) {
	for _, u := range []string{"javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi", "https:///x"} {
		ptmx, path := testenv.OpenPTY(t)
		screen := testenv.Watch(ptmx)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan *runtime.ElicitResult, 1)
		func() {
			defer func(old string) { ttyPath = old }(ttyPath)
			ttyPath = path
			go func() {
				res, _ := (&elicitor{stderr: io.Discard}).handle(ctx, &runtime.ElicitRequest{Server: runtime.Implementation{Name: "srv"}, Mode: runtime.ElicitURL, Message: "go", URL: u})
				done <- res
			}()
			defer cancel()
			screen.WaitFor(t, "declined: it is not an http or https URL")
			if res := <-done; res == nil || res.Action != runtime.ElicitDecline {
				t.Errorf("%s: %+v, want a decline", u, res)
			}
		}()
		if strings.Contains(screen.Seen(), "Press Enter") {
			t.Errorf("%s: the user was asked to accept it: %q", u, screen.Seen())
		}
	}
}
