//go:build unix

package cli

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTimeoutBoundsShutdown runs tools against a stdio server that ignores
// its input closing and SIGTERM, one that never answers and one that
// answers at once: the whole command, the server's shutdown included, ends
// within --timeout (with room for a loaded machine), and the server is
// killed and reaped. Each wait of the shutdown took its full two seconds
// before, whatever remained of --timeout, so that --timeout 1s took 5 s.
// The timeouts leave a loaded machine time to start the stub (a -race test
// binary) before they run out, and still tell the old four extra seconds
// from the limit.
func TestTimeoutBoundsShutdown(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		timeout time.Duration
	}{
		{"silent", 3 * time.Second},
		{"answers", 3 * time.Second},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			argv, pidFile := stubServer(t, tc.mode)
			start := time.Now()
			code, out, errOut := run(t, "", append([]string{"tools", "--timeout", tc.timeout.String(), "--"}, argv...)...)
			took := time.Since(start)
			if limit := tc.timeout + 1500*time.Millisecond; took > limit {
				t.Errorf("tools --timeout %v took %v, more than %v", tc.timeout, took, limit)
			}
			ranOut := strings.Contains(errOut, fmt.Sprintf("(the --timeout of %v ran out)", tc.timeout))
			switch {
			case tc.mode == "silent" && (code != 1 || !ranOut):
				t.Errorf("exit %d, stderr %q; want the --timeout named", code, errOut)
			case tc.mode == "answers" && code != 0 && !ranOut:
				// Only a machine too loaded to start the server within the
				// timeout may fail it, and then for the timeout.
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			pid := stubPID(t, pidFile)
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("the server (pid %d) is still there after the command returned: kill 0: %v", pid, err)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		})
	}
}
