package main

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestConfirmOnTerminal runs the example with a pseudo-terminal as its
// terminal, over real servers: the go-sdk test server's echo has no
// annotations, so the user is asked, and it runs only on y; a declined call
// sends no tools/call (the -v traffic log shows every message sent) and the
// model hears of the decline. server-everything marks its echo read-only,
// so nothing is asked.
func TestConfirmOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	echo := func(msg string) string {
		return `{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "echo", "args": {"message": "` + msg + `"}}}]}, "finishReason": "STOP"}]}`
	}
	cases := []struct {
		name     string
		server   []string
		answer   string // "" when no question is expected
		wantSent bool   // whether a tools/call goes to the server
		want     string // in the second model request
	}{
		{"unannotated, yes", []string{testenv.SDKServer(t)}, "y\n", true, `"output":"knock knock"`},
		{"unannotated, no", []string{testenv.SDKServer(t)}, "n\n", false, `"error":"the user declined the call to echo; it was not run"`},
		{"read-only", testenv.Everything(t, "stdio"), "", true, `"output":"Echo: knock knock"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ptmx, path := testenv.OpenPTY(t)
			screen := testenv.Watch(ptmx)
			old := terminalPath
			terminalPath = path
			t.Cleanup(func() { terminalPath = old })
			fake := &fakeGemini{replies: []string{echo("knock knock"),
				`{"candidates": [{"content": {"role": "model", "parts": [{"text": "Done."}]}, "finishReason": "STOP"}]}`}}
			gsrv := httptest.NewServer(fake)
			t.Cleanup(gsrv.Close)

			var stdout, stderr bytes.Buffer
			args := append([]string{"-v", "--base-url", gsrv.URL, "--model", "gemini-test", "--prompt", "echo knock knock", "--"}, c.server...)
			env := func(k string) string {
				if k == "GEMINI_API_KEY" {
					return "key"
				}
				return ""
			}
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, env) }()
			if c.answer != "" {
				screen.WaitFor(t, `Run echo {"message":"knock knock"}? [y/N] `)
				io.WriteString(ptmx, c.answer)
			}
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit status %d, stderr:\n%s", code, stderr.String())
				}
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatalf("the example did not finish; the terminal shows %q", screen.Seen())
			}
			if c.answer == "" && screen.Seen() != "" {
				t.Errorf("the terminal shows %q, want no question", screen.Seen())
			}
			if sent := strings.Contains(stderr.String(), `tools/call`); sent != c.wantSent {
				t.Errorf("tools/call sent: %v, want %v; traffic:\n%s", sent, c.wantSent, stderr.String())
			}
			fake.mu.Lock()
			bodies := fake.bodies
			fake.mu.Unlock()
			if len(bodies) != 2 || !bytes.Contains(bodies[1], []byte(c.want)) {
				t.Errorf("the second request does not carry %s: %s", c.want, bodies)
			}
		})
	}
}
