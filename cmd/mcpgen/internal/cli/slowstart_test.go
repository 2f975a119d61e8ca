package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// behindDelay returns the command line that starts argv after the shell has
// slept for three seconds, longer than any fixed probe wait should be, as
// go run, docker run, npx -y or uvx often take.
func behindDelay(argv ...string) []string {
	return append([]string{"sh", "-c", `sleep 3; exec "$@"`, "sh"}, argv...)
}

// TestSlowStartingServerStdio reaches a modern server (the go-sdk server)
// and a legacy one (server-everything) that start only after three seconds:
// the era must come from the server's answer to server/discover, however
// late, not from a clock.
func TestSlowStartingServerStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	sdk := testenv.SDKServer(t)
	everything := testenv.Everything(t, "stdio")
	for _, tc := range []struct {
		name  string
		flags []string
		argv  []string
		want  string
	}{
		{"go-sdk", nil, []string{sdk}, "sdkserver 1.0.0, protocol 2026-07-28, 6 tool(s)"},
		{"go-sdk pinned modern", []string{"--protocol-version", "2026-07-28"}, []string{sdk}, "sdkserver 1.0.0, protocol 2026-07-28, 6 tool(s)"},
		{"everything", nil, everything, "mcp-servers/everything 2.0.0, protocol 2025-11-25,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{"tools"}, tc.flags...), "--")
			code, out, errOut := run(t, "", append(args, behindDelay(tc.argv...)...)...)
			if code != 0 || !strings.HasPrefix(out, tc.want) {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
		})
	}
}

// TestProbeTimeoutFlag sets --probe-timeout against an HTTP server that never
// answers: the command fails at that bound, and says which flag to raise.
func TestProbeTimeoutFlag(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read to the end, so that the server notices the client going away.
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer srv.Close()
	code, _, errOut := run(t, "", "tools", "--probe-timeout", "200ms", "--url", srv.URL)
	if code != 1 || !strings.Contains(errOut, "no answer to server/discover within 200ms") || !strings.Contains(errOut, "needs a longer --probe-timeout") {
		t.Fatalf("exit %d, stderr %q; want the probe timeout named", code, errOut)
	}
	_, out, _ := run(t, "", "tools", "--help")
	if !strings.Contains(out, "-probe-timeout duration") || !strings.Contains(out, "no limit but --timeout (default 30s)") {
		t.Errorf("tools --help does not show --probe-timeout and its default:\n%s", out)
	}
}
