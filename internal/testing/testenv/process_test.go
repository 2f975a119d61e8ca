package testenv

import (
	"fmt"
	"os/exec"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

// fatalTB records the first Fatalf of a starter instead of failing the
// test, and runs the starter's cleanups when asked.
type fatalTB struct {
	testing.TB
	msg      string
	cleanups []func()
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	goruntime.Goexit()
}

func (f *fatalTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

// run calls fn with f in a goroutine of its own, as a test would run, and
// then runs the cleanups fn registered.
func (f *fatalTB) run(fn func(testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// TestStarterFailsAtOnce: a server that exits before it listens (it could
// not bind, say) fails the test at once with what it wrote, rather than
// after a wait for its port; one whose port was taken between the search
// for a free port and its bind is started again on another port, and
// fails with the bind error when that keeps happening. The old starters
// waited their full 20 seconds and then said only that nothing listened.
func TestStarterFailsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, script, want string
		runs               int
	}{
		{"exits", `echo "Error: listen EACCES: permission denied 127.0.0.1:$PORT" >&2; exit 1`, "exited (exit status 1) before it served:\nError: listen EACCES: permission denied", 1},
		{"port taken", `echo "Error: listen EADDRINUSE: address already in use 127.0.0.1:$PORT" >&2; exit 1`, "a port was taken each of 3 times; last:\nfake exited (exit status 1) before it served:\nError: listen EADDRINUSE", bindAttempts},
		// server-everything's words, seen when another process took the
		// port between the search for a free one and the server's bind.
		{"port taken, in other words", `echo "MCP Streamable HTTP Server listening on port $PORT"; echo "Failed to start: Port $PORT is already in use. Set PORT to a free port or stop the conflicting process." >&2; exit 1`, "a port was taken each of 3 times; last:\nfake exited (exit status 1) before it served:\nMCP Streamable HTTP Server listening on port", bindAttempts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fatalTB{TB: t}
			runs := 0
			begun := time.Now()
			f.run(func(tb testing.TB) {
				serveOnFreePorts(tb, "fake", 1, func(ports []int) *exec.Cmd {
					runs++
					cmd := exec.Command("sh", "-c", tc.script)
					cmd.Env = []string{fmt.Sprintf("PORT=%d", ports[0])}
					return cmd
				})
			})
			if !strings.Contains(f.msg, tc.want) {
				t.Errorf("the starter failed with %q, want %q", f.msg, tc.want)
			}
			if runs != tc.runs {
				t.Errorf("the server was started %d times, want %d", runs, tc.runs)
			}
			t.Logf("failed after %v", time.Since(begun))
		})
	}
}

// TestStartForURL: the URL a server prints on its first line is returned;
// a server that exits before it prints one fails the test at once, with
// its output and exit status.
func TestStartForURL(t *testing.T) {
	f := &fatalTB{TB: t}
	var url string
	f.run(func(tb testing.TB) {
		_, url = startForURL(tb, "fake", exec.Command("sh", "-c", "echo http://127.0.0.1:1/mcp; echo more; exec sleep 600"))
	})
	if f.msg != "" || url != "http://127.0.0.1:1/mcp" {
		t.Errorf("startForURL = %q, failure %q", url, f.msg)
	}

	f = &fatalTB{TB: t}
	f.run(func(tb testing.TB) {
		_, url = startForURL(tb, "fake", exec.Command("sh", "-c", "echo listen tcp: address 127.0.0.1:99999: invalid port >&2; exit 3"))
	})
	if want := "fake exited (exit status 3) before it served:\nlisten tcp: address 127.0.0.1:99999: invalid port"; f.msg != want {
		t.Errorf("startForURL failed with %q, want %q", f.msg, want)
	}
}

// TestContextFollowsTheTestDeadline: Context ends before the test binary's
// deadline, and not after a fixed few seconds.
func TestContextFollowsTheTestDeadline(t *testing.T) {
	ctx := Context(t)
	got, ok := ctx.Deadline()
	if !ok {
		t.Fatal("Context has no deadline")
	}
	if dl, ok := t.Deadline(); ok {
		if !got.Before(dl) || got.Before(time.Now().Add(time.Until(dl)/2-time.Second)) {
			t.Errorf("Context ends at %v, the test at %v", got, dl)
		}
	} else if time.Until(got) < longWait-time.Minute {
		t.Errorf("without a test deadline, Context ends in %v", time.Until(got))
	}
}

// TestServeSDKExampleFailsAtOnce: a Node server that cannot start fails
// the test at once with Node's own message; the old starter waited 20
// seconds for the port and then said only that nothing listened on it.
func TestServeSDKExampleFailsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node")
	}
	t.Setenv("NODE_OPTIONS", "--no-such-node-option")
	f := &fatalTB{TB: t}
	begun := time.Now()
	f.run(func(tb testing.TB) { ServeSDKExample(tb, "simpleStreamableHttp") })
	if !strings.Contains(f.msg, "--no-such-node-option is not allowed in NODE_OPTIONS") || !strings.Contains(f.msg, "exited (exit status 9) before it served") {
		t.Errorf("ServeSDKExample failed with %q", f.msg)
	}
	t.Logf("failed after %v", time.Since(begun))
}
