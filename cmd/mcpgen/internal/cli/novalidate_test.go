package cli

import (
	"strings"
	"testing"
)

// sentLists counts the tools/list requests in the traffic log of -v.
func sentLists(stderr string) int {
	n := 0
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, `msg="mcp send"`) && strings.Contains(line, `\"method\":\"tools/list\"`) {
			n++
		}
	}
	return n
}

// TestNoValidateHelpMatchesListing checks that --no-validate does what its
// help says: it skips the tools/list request of the check, except on a
// 2026-07-28 Streamable HTTP server, where the call itself needs the list to
// send the x-mcp-header arguments as Mcp-Param-* headers, as the protocol
// requires; and that without it the check's list serves both.
func TestNoValidateHelpMatchesListing(t *testing.T) {
	_, help, _ := run(t, "", "call", "--help")
	if !strings.Contains(strings.Join(strings.Fields(help), " "), "--no-validate skips the check and the tools/list request it needs, except with a server speaking 2026-07-28 over Streamable HTTP (--url)") {
		t.Errorf("call --help does not say what --no-validate skips:\n%s", help)
	}
	if testing.Short() {
		t.Skip("starts servers")
	}
	for name, server := range sdkServers(t) {
		for _, tc := range []struct {
			flags     []string
			wantLists int
		}{
			{[]string{"--no-validate"}, map[string]int{"stdio": 0, "http": 1}[name]},
			{nil, 1},
		} {
			args := append(append([]string{"call", "-v", "echo", `{"message":"hi"}`}, tc.flags...), server...)
			code, out, errOut := run(t, "", args...)
			if code != 0 || out != "hi\n" {
				t.Fatalf("%s %v: exit %d, stdout %q\n%s", name, tc.flags, code, out, errOut)
			}
			if n := sentLists(errOut); n != tc.wantLists {
				t.Errorf("%s %v: %d tools/list requests, want %d", name, tc.flags, n, tc.wantLists)
			}
		}
	}
}
