package main

import (
	"strings"
	"testing"
)

func TestRunRejectsBadInvocations(t *testing.T) {
	tests := []struct {
		args     []string
		scenario string
		want     string
	}{
		{nil, "initialize", "usage: conformanceclient"},
		{[]string{"http://127.0.0.1:1/mcp"}, "no-such-scenario", `scenario "no-such-scenario" is not one this client knows`},
		{[]string{"http://127.0.0.1:1/mcp"}, "", `scenario "" is not one this client knows`},
		{[]string{"-v", "http://127.0.0.1:1/mcp"}, "initialize", "connecting to http://127.0.0.1:1/mcp"},
	}
	for _, tt := range tests {
		err := run(tt.args, tt.scenario)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q, %q) = %v, want an error containing %q", tt.args, tt.scenario, err, tt.want)
		}
	}
}

func TestContextCallsKeepArguments(t *testing.T) {
	calls, err := contextCalls(`{"name":"http-custom-headers","toolCalls":[{"name":"a","arguments":{"f":3.14159,"s":"Hello, 世界"}},{"name":"b","arguments":{"v":null}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].tool != "a" || calls[0].args != `{"f":3.14159,"s":"Hello, 世界"}` || calls[1].args != `{"v":null}` {
		t.Errorf("contextCalls = %+v", calls)
	}
	for _, bad := range []string{"", `{"toolCalls":[]}`, `{`} {
		if _, err := contextCalls(bad); err == nil {
			t.Errorf("contextCalls(%q) = nil error", bad)
		}
	}
}
