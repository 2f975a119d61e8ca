package cli

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestCallPromptsForElicitation answers the TypeScript SDK example server's
// forms on a pseudo-terminal: defaults are offered and taken with Enter,
// enums are numbered choices, and an answer the schema rejects is asked
// again.
func TestCallPromptsForElicitation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	tests := []struct {
		infoType string
		steps    [][2]string // what the terminal shows, then what is typed
		want     string
	}{
		{"preferences", [][2]string{
			{"asks: Please set your preferences", ""},
			{"Answer? [Y/n] ", "\n"},
			{"  2) dark - Dark", ""},
			{"  3) auto - Auto", "7\n"},
			{"choose a number from 1 to 3", "2\n"},
			{"Enable Notifications (Would you like to receive notifications?) [y/n] [default true]: ", "\n"},
			{"  3) monthly - Monthly", "weekly\n"},
		}, `Collected preferences information: { "frequency": "weekly", "notifications": true, "theme": "dark" }`},
		{"feedback", [][2]string{
			{"Answer? [Y/n] ", "y\n"},
			{"Rating (Rate your experience (1-5)) *: ", "9\n"},
			{"maximum", "x\n"},
			{"a whole number is needed", "4\n"},
			{"Comments (Additional comments (optional)): ", "\n"},
			{"Would you recommend this? (Would you recommend this to others?) * [y/n]: ", "yes\n"},
		}, `Collected feedback information: { "rating": 4, "recommend": true }`},
		{"contact", [][2]string{
			{"Answer? [Y/n] ", "n\n"},
		}, "User declined contact information request."},
	}
	for _, tt := range tests {
		t.Run(tt.infoType, func(t *testing.T) {
			o := runOnTerminal(t, tt.steps, "call", "collect-user-info", `{"infoType":"`+tt.infoType+`"}`, "--url", url)
			got := strings.Join(strings.Fields(o.out), " ")
			if o.code != 0 || !strings.Contains(got, tt.want) {
				t.Errorf("exit %d, stdout %q, want it to contain %q\nstderr: %s\nterminal: %s", o.code, got, tt.want, o.errOut, o.seen)
			}
		})
	}
}

// terminalOutcome is how an mcpgen command run by runOnTerminal ended, and
// what its terminal showed.
type terminalOutcome struct {
	code        int
	out, errOut string
	seen        string
}

// runOnTerminal runs mcpgen with args on a pseudo-terminal and answers it:
// each step waits until the terminal shows its first string, then types its
// second.
func runOnTerminal(t *testing.T, steps [][2]string, args ...string) terminalOutcome {
	t.Helper()
	ptmx, path := testenv.OpenPTY(t)
	screen := testenv.Watch(ptmx)
	defer func(old string) { ttyPath = old }(ttyPath)
	ttyPath = path
	done := make(chan terminalOutcome, 1)
	go func() {
		code, out, errOut := run(t, "", args...)
		done <- terminalOutcome{code: code, out: out, errOut: errOut}
	}()
	for _, step := range steps {
		screen.WaitFor(t, step[0])
		io.WriteString(ptmx, step[1])
	}
	o := <-done
	o.seen = screen.Seen()
	return o
}

// TestCallDeclinesWithoutTerminal: without a terminal, or with --no-input,
// mcpgen call declines the server's request for input, says so on standard
// error, and prints the server's answer to the decline.
func TestCallDeclinesWithoutTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	defer func(old string) { ttyPath = old }(ttyPath)
	ttyPath = "/nonexistent/tty"
	for _, tc := range []struct {
		flags  []string
		reason string
	}{
		{nil, "there is no terminal to ask on"},
		{[]string{"--no-input"}, "--no-input"},
	} {
		args := append(append([]string{"call"}, tc.flags...), "collect-user-info", `{"infoType":"contact"}`, "--url", url)
		code, out, errOut := run(t, "", args...)
		if code != 0 || !strings.Contains(out, "No information was collected. User declined contact information request.") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.flags, code, out, errOut)
		}
		if want := "mcpgen: declined "; !strings.Contains(errOut, want) || !strings.Contains(errOut, tc.reason) || !strings.Contains(errOut, "Please provide your contact information") {
			t.Errorf("%v: stderr %q", tc.flags, errOut)
		}
	}
}

// TestPromptURLElicitation: a URL-mode request shows the URL and its domain
// and waits for Enter (accept) or n (decline); a closed terminal cancels.
func TestPromptURLElicitation(t *testing.T) {
	req := &runtime.ElicitRequest{Server: runtime.Implementation{Name: "srv"}, Mode: runtime.ElicitURL, Message: "Sign in", URL: "https://auth.example.com/login?x=1", ElicitationID: "e"}
	for _, tc := range []struct{ typed, want string }{{"\n", runtime.ElicitAccept}, {"n\n", runtime.ElicitDecline}} {
		ptmx, path := testenv.OpenPTY(t)
		screen := testenv.Watch(ptmx)
		el := &elicitor{stderr: io.Discard}
		done := make(chan *runtime.ElicitResult, 1)
		func() {
			defer func(old string) { ttyPath = old }(ttyPath)
			ttyPath = path
			go func() {
				res, err := el.handle(context.Background(), req)
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			screen.WaitFor(t, "srv asks: Sign in")
			screen.WaitFor(t, "(domain auth.example.com):")
			screen.WaitFor(t, "https://auth.example.com/login?x=1")
			screen.WaitFor(t, "Press Enter once you have finished there, or type n to decline: ")
			io.WriteString(ptmx, tc.typed)
			if res := <-done; res == nil || res.Action != tc.want {
				t.Errorf("typed %q: %+v, want %s", tc.typed, res, tc.want)
			}
		}()
	}
	ptmx, path := testenv.OpenPTY(t)
	screen := testenv.Watch(ptmx)
	defer func(old string) { ttyPath = old }(ttyPath)
	ttyPath = path
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&elicitor{stderr: io.Discard}).handle(context.Background(), &runtime.ElicitRequest{Mode: runtime.ElicitURL, URL: "https://xn--pple-43d.com/"})
	}()
	screen.WaitFor(t, "Warning: the domain is written in punycode")
	io.WriteString(ptmx, "n\n")
	<-done
}
