package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

const (
	turnOnReply = `{"candidates": [{"content": {"role": "model", "parts": [
		{"functionCall": {"id": "fc-1", "name": "HassTurnOn", "args": {"name": "heater"}}}
	]}, "finishReason": "STOP"}]}`
	liveContextReply = `{"candidates": [{"content": {"role": "model", "parts": [
		{"functionCall": {"id": "fc-1", "name": "GetLiveContext", "args": {}}}
	]}, "finishReason": "STOP"}]}`
	okReply = `{"candidates": [{"content": {"role": "model", "parts": [{"text": "All right."}]}, "finishReason": "STOP"}]}`
)

// TestConfirmOnTerminal runs the assistant with a pseudo-terminal as its
// terminal: HassTurnOn runs only when the user answers y, a declined call
// leaves no tools/call on the server and the model hears of the decline,
// GetLiveContext is not asked about, and --yes asks nothing.
func TestConfirmOnTerminal(t *testing.T) {
	cases := []struct {
		name      string
		flags     []string
		reply     string
		answer    string // "" when no question is expected
		noTTY     bool
		wantCalls []string
		wantError string // in the function response the model gets
	}{
		{name: "yes", reply: turnOnReply, answer: "y\n", wantCalls: []string{"HassTurnOn"}},
		{name: "no", reply: turnOnReply, answer: "n\n", wantError: "the user declined the call to HassTurnOn; it was not run"},
		{name: "read-only tool", reply: liveContextReply, wantCalls: []string{"GetLiveContext"}},
		{name: "--yes", flags: []string{"--yes"}, reply: turnOnReply, wantCalls: []string{"HassTurnOn"}},
		{name: "no terminal", reply: turnOnReply, noTTY: true,
			wantError: "the call to HassTurnOn was not run: asking the user for confirmation failed: there is no terminal to ask the user on (--yes runs tool calls without asking)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ptmx, path := testenv.OpenPTY(t)
			screen := testenv.Watch(ptmx)
			if c.noTTY {
				path = "/nonexistent/tty"
			}
			old := terminalPath
			terminalPath = path
			t.Cleanup(func() { terminalPath = old })

			server, base := newStandIn(t)
			fake := &fakeGemini{replies: []string{c.reply, okReply}}
			gsrv := httptest.NewServer(fake)
			t.Cleanup(gsrv.Close)
			t.Setenv("TEST_HA_TOKEN", "ha-secret")
			env := map[string]string{"GEMINI_API_KEY": "gemini-key"}
			args := append(c.flags, "--token-env", "TEST_HA_TOKEN", "--url", base+"/api/mcp", "--base-url", gsrv.URL, "--model", "gemini-test", "--timeout", "20s", "warm the bathroom")
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
			}()
			if c.answer != "" {
				screen.WaitFor(t, `Run HassTurnOn {"name":"heater"}? [y/N] `)
				io.WriteString(ptmx, c.answer)
			}
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit status %d, stderr:\n%s", code, stderr.String())
				}
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatalf("the assistant did not finish; the terminal shows %q", screen.Seen())
			}
			if c.answer == "" && screen.Seen() != "" {
				t.Errorf("the terminal shows %q, want no question", screen.Seen())
			}
			calls, _, _ := server.recorded()
			var got []string
			for _, call := range calls {
				got = append(got, call.Name)
			}
			if strings.Join(got, ",") != strings.Join(c.wantCalls, ",") {
				t.Errorf("the server got calls of %v, want %v", got, c.wantCalls)
			}
			reqs := fake.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d Gemini requests, want 2", len(reqs))
			}
			var second struct {
				Contents []struct {
					Parts []struct {
						FunctionResponse *struct {
							Response map[string]any `json:"response"`
						} `json:"functionResponse"`
					} `json:"parts"`
				} `json:"contents"`
			}
			if err := json.Unmarshal(reqs[1], &second); err != nil {
				t.Fatal(err)
			}
			fr := second.Contents[2].Parts[0].FunctionResponse
			if msg, _ := fr.Response["error"].(string); msg != c.wantError {
				t.Errorf("the model got %v, want the error %q", fr.Response, c.wantError)
			}
		})
	}
}
