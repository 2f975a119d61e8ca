package cli

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestCallTaskRequiredTool: mcpgen call runs a tool whose taskSupport is
// required (the TypeScript SDK example's delay) as a task, with or without
// the tool list that validation fetches, and cancels it when --timeout runs
// out.
func TestCallTaskRequiredTool(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	for _, flags := range [][]string{nil, {"--no-validate"}} {
		args := append([]string{"call"}, flags...)
		args = append(args, "delay", `{"duration":200}`, "--url", url)
		code, out, errOut := run(t, "", args...)
		if code != 0 || strings.TrimSpace(out) != "Completed 200ms delay" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", flags, code, out, errOut)
		}
	}
	code, _, errOut := run(t, "", "call", "--timeout", "1s", "delay", `{"duration":60000}`, "--url", url)
	if code != 1 || !strings.Contains(errOut, "calling delay: task ") || !strings.Contains(errOut, "cancelled: context deadline exceeded") {
		t.Errorf("--timeout: exit %d, stderr %q", code, errOut)
	}
}

// TestCallTaskStdio: over stdio, server-everything's task-required
// simulate-research-query runs to its report, its stages printed as
// progress.
func TestCallTaskStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	args := append([]string{"call", "simulate-research-query", `{"topic":"tasks"}`, "--"}, testenv.Everything(t, "stdio")...)
	code, out, errOut := run(t, "", args...)
	if code != 0 || !strings.Contains(out, "# Research Report: tasks") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, stage := range []string{"Gathering sources...", "Generating report..."} {
		if !strings.Contains(errOut, "progress simulate-research-query: "+stage+"\n") {
			t.Errorf("stderr %q lacks the stage %q", errOut, stage)
		}
	}
}

// TestCallTaskAsksForInput: mcpgen call runs the TypeScript SDK example's
// collect-user-info-task, a 2025-11-25 task that asks for a form while it
// runs, to completion with the answers typed on a pseudo-terminal, and
// declines it without a terminal.
func TestCallTaskAsksForInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	o := runOnTerminal(t, [][2]string{
		{"asks: Please provide your contact information", ""},
		{"Answer? [Y/n] ", "\n"},
		{"Full Name (Your full name) *: ", "Ada Lovelace\n"},
		{"Email (Your email address) *: ", "ada@example.com\n"},
	}, "call", "collect-user-info-task", `{"infoType":"contact"}`, "--url", url)
	got := strings.Join(strings.Fields(o.out), " ")
	want := `Collected contact info: { "email": "ada@example.com", "name": "Ada Lovelace" }`
	if o.code != 0 || !strings.Contains(got, want) {
		t.Errorf("exit %d, stdout %q, want it to contain %q\nstderr: %s\nterminal: %s", o.code, got, want, o.errOut, o.seen)
	}

	// Without a terminal the request is declined and the task ends so.
	defer func(old string) { ttyPath = old }(ttyPath)
	ttyPath = "/nonexistent/tty"
	code, out, errOut := run(t, "", "call", "collect-user-info-task", `{"infoType":"contact"}`, "--url", url)
	if code != 0 || strings.TrimSpace(out) != "User declined to provide contact information" || !strings.Contains(errOut, "there is no terminal to ask on") {
		t.Errorf("without a terminal: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
