package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/internal/testing/livetest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestLiveSession runs the assistant in text mode against the Home
// Assistant stand-in and the Live API stand-in, with a pseudo-terminal as
// its terminal: a typed line reaches the model, the model's HassTurnOn call
// runs only when the user answers y (a declined call leaves no tools/call
// on the server, and the model hears of the decline), arguments that break
// the schema never reach the server and no question is asked, and the
// model's text is printed.
func TestLiveSession(t *testing.T) {
	cases := []struct {
		name      string
		flags     []string
		call      string
		answer    string // "" when no question is expected
		wantCalls []string
		want      string // in the function response the model gets
	}{
		{name: "yes", call: `"HassTurnOn","args":{"name":"heater"}`, answer: "y\n", wantCalls: []string{`HassTurnOn {"name":"heater"}`}, want: "action_done"},
		{name: "no", call: `"HassTurnOn","args":{"name":"heater"}`, answer: "n\n", want: "error: the user declined the call to HassTurnOn; it was not run"},
		{name: "invalid arguments", call: `"HassSetVolume","args":{"name":"speaker","volume_level":300}`, want: "error: invalid arguments for HassSetVolume at /volume_level: "},
		{name: "--yes", flags: []string{"--yes"}, call: `"HassTurnOn","args":{"name":"heater"}`, wantCalls: []string{`HassTurnOn {"name":"heater"}`}, want: "action_done"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Registered first, the leak check runs after every other
			// cleanup.
			opt := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, opt) })
			ptmx, path := testenv.OpenPTY(t)
			screen := testenv.Watch(ptmx)
			old := terminalPath
			terminalPath = path
			t.Cleanup(func() { terminalPath = old })

			server, url := newStandIn(t)
			gemini := livetest.Serve(t)
			t.Setenv("TEST_HA_TOKEN", "ha-secret")
			env := map[string]string{"GEMINI_API_KEY": livetest.APIKey}
			args := append(c.flags, "--token-env", "TEST_HA_TOKEN", "--url", url, "--base-url", gemini.URL, "--model", "gemini-test", "--timeout", "60s")
			stdin, typed := io.Pipe()
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- run(context.Background(), args, stdin, &stdout, &stderr, func(k string) string { return env[k] })
			}()

			conn := gemini.Accept(t)
			var setup struct {
				Setup struct {
					Model            string `json:"model"`
					GenerationConfig struct {
						ResponseModalities []string `json:"responseModalities"`
					} `json:"generationConfig"`
					Tools []struct {
						FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
					} `json:"tools"`
				} `json:"setup"`
			}
			if err := json.Unmarshal(conn.Setup, &setup); err != nil {
				t.Fatal(err)
			}
			s := setup.Setup
			if s.Model != "models/gemini-test" || strings.Join(s.GenerationConfig.ResponseModalities, ",") != "TEXT" ||
				len(s.Tools) != 1 || len(s.Tools[0].FunctionDeclarations) != 15 {
				t.Errorf("setup %s, want gemini-test in text with the 15 tools of the snapshot", conn.Setup)
			}

			io.WriteString(typed, "warm the bathroom\n")
			if cc := conn.NextOf(t, "clientContent"); !strings.Contains(string(cc), `"text":"warm the bathroom"`) {
				t.Errorf("the model got %s", cc)
			}
			conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-1","name":`+c.call+`}]}}`)
			if c.answer != "" {
				screen.WaitFor(t, `Run HassTurnOn {"name":"heater"}? [y/N] `)
				io.WriteString(ptmx, c.answer)
			}
			var resp struct {
				ToolResponse struct {
					FunctionResponses []struct {
						ID       string         `json:"id"`
						Response map[string]any `json:"response"`
					} `json:"functionResponses"`
				} `json:"toolResponse"`
			}
			raw := conn.NextOf(t, "toolResponse")
			if err := json.Unmarshal(raw, &resp); err != nil || len(resp.ToolResponse.FunctionResponses) != 1 {
				t.Fatalf("tool response %s (%v)", raw, err)
			}
			fr := resp.ToolResponse.FunctionResponses[0]
			got := ""
			if e, ok := fr.Response["error"].(string); ok {
				got = "error: " + e
			} else {
				got, _ = fr.Response["output"].(string)
			}
			if fr.ID != "c-1" || !strings.Contains(got, c.want) {
				t.Errorf("the model got %s, want %q for c-1", raw, c.want)
			}
			conn.Send(t, `{"serverContent":{"modelTurn":{"parts":[{"text":"All right."}]}}}`)
			conn.Send(t, `{"serverContent":{"turnComplete":true}}`)
			typed.Close()
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit status %d, stderr:\n%s", code, stderr.String())
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("the assistant did not finish; the terminal shows %q", screen.Seen())
			}
			if stdout.String() != "All right.\n" {
				t.Errorf("printed %q", stdout.String())
			}
			if c.answer == "" && screen.Seen() != "" {
				t.Errorf("the terminal shows %q, want no question", screen.Seen())
			}
			var calls []string
			for _, call := range server.recorded() {
				calls = append(calls, call.Name+" "+string(call.Arguments))
			}
			if strings.Join(calls, "\n") != strings.Join(c.wantCalls, "\n") {
				t.Errorf("the server got %q, want %q", calls, c.wantCalls)
			}
		})
	}
}
