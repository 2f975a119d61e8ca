package cli

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testenv"
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
