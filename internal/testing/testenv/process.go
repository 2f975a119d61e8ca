package testenv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// deadlineMargin is the time Context keeps back before the test binary's
// deadline, for the test to report what it waited for and clean up.
const deadlineMargin = 30 * time.Second

// longWait bounds waits in a test binary run without a deadline (-timeout 0).
const longWait = 10 * time.Minute

// Context returns a context for the requests of a test against a real
// server, which ends when the test does or shortly before the test binary's
// deadline (go test -timeout), whichever comes first. A loaded machine may
// take its time; a server that never answers still fails the test with the
// context's error rather than the harness's panic.
func Context(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), waitUntil(t))
	t.Cleanup(cancel)
	return ctx
}

// WaitLimit returns how long a test may wait for something that should
// happen, such as a goroutine's answer, before it reports that it did not:
// until shortly before the test binary's deadline. A wait on a loaded
// machine takes what it takes; only a wait that never ends fails.
func WaitLimit(t testing.TB) time.Duration {
	return time.Until(waitUntil(t))
}

// waitUntil returns when waits in t must give up: deadlineMargin before the
// test binary's deadline, or longWait from now without one.
func waitUntil(t testing.TB) time.Time {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := d.Deadline(); ok {
			until := dl.Add(-deadlineMargin)
			if half := time.Now().Add(time.Until(dl) / 2); until.Before(half) {
				until = half
			}
			return until
		}
	}
	return time.Now().Add(longWait)
}

// tailBuffer keeps the last tailSize bytes written to it; it is safe for
// concurrent use, so a test may read what a process wrote while exec still
// copies into it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 8 << 10

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - tailSize; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(bytes.TrimSpace(b.buf))
}

// process is a server started for a test: its output is kept (and logged
// with -v), and exited is closed once it has ended.
type process struct {
	name   string
	cmd    *exec.Cmd
	out    tailBuffer
	exited chan struct{}
	err    error // cmd.Wait's error, once exited is closed
}

// start starts cmd, whose output the process keeps; when first is not nil,
// the command's standard output goes through it. The process is killed when
// the test ends.
func start(t testing.TB, name string, cmd *exec.Cmd, first *firstLine) *process {
	t.Helper()
	p := &process{name: name, cmd: cmd, exited: make(chan struct{})}
	var sink io.Writer = &p.out
	if testing.Verbose() {
		sink = io.MultiWriter(&p.out, &logWriter{t: t, prefix: name})
	}
	cmd.Stderr = sink
	cmd.Stdout = sink
	if first != nil {
		first.out = sink
		cmd.Stdout = first
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// failure describes the process's end, with the tail of its output.
func (p *process) failure() string {
	return fmt.Sprintf("%s exited (%v) before it served:\n%s", p.name, p.err, p.out.String())
}

// waitForPort waits until something accepts connections on port, and
// fails the test at once if the process exits first (it could not bind,
// say) and when the wait outlasts the test's deadline. It reports whether
// the process ended because the port was taken (its output says EADDRINUSE,
// as Node's does, or "already in use", as server-everything's does), in
// which case the caller may try another.
func (p *process) waitForPort(t testing.TB, port int) (addrInUse bool) {
	t.Helper()
	begun, until := time.Now(), waitUntil(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return false
		}
		select {
		case <-p.exited:
			if out := p.out.String(); strings.Contains(out, "EADDRINUSE") || strings.Contains(out, "already in use") {
				return true
			}
			t.Fatalf("%s", p.failure())
		case <-tick.C:
		}
		if time.Now().After(until) {
			t.Fatalf("%s: nothing listens on %s after %v (last dial: %v); its output:\n%s", p.name, addr, time.Since(begun).Round(time.Second), err, p.out.String())
		}
	}
}

// firstLine is the standard output of a process that names its endpoint
// on its first line: it passes everything on to out and sends that line.
type firstLine struct {
	out  io.Writer
	line chan string
	mu   sync.Mutex
	buf  []byte
	sent bool
}

func (w *firstLine) Write(p []byte) (int, error) {
	w.mu.Lock()
	if !w.sent {
		w.buf = append(w.buf, p...)
		if i := bytes.IndexByte(w.buf, '\n'); i >= 0 {
			w.sent = true
			w.line <- strings.TrimSpace(string(w.buf[:i]))
			w.buf = nil
		}
	}
	w.mu.Unlock()
	return w.out.Write(p)
}

// startForURL starts cmd as start does and returns the first line it
// writes to its standard output, which names its endpoint. It fails the
// test at once if the process exits before writing it, with what it wrote.
func startForURL(t testing.TB, name string, cmd *exec.Cmd) (*process, string) {
	t.Helper()
	w := &firstLine{line: make(chan string, 1)}
	p := start(t, name, cmd, w)
	timer := time.NewTimer(time.Until(waitUntil(t)))
	defer timer.Stop()
	select {
	case line := <-w.line:
		return p, line
	case <-p.exited:
		select {
		case line := <-w.line:
			return p, line
		default:
		}
		t.Fatalf("%s", p.failure())
	case <-timer.C:
		t.Fatalf("%s wrote no URL before the test's deadline; its output:\n%s", name, p.out.String())
	}
	return p, ""
}

// logWriter logs each line written to it with the test's Logf.
type logWriter struct {
	t      testing.TB
	prefix string
	mu     sync.Mutex
	part   []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			break
		}
		w.t.Logf("%s: %s", w.prefix, w.part[:i])
		w.part = w.part[i+1:]
	}
	return len(p), nil
}

// bindAttempts is how many sets of free ports serveOnFreePorts tries: a
// port found free may be taken by another process before the server binds
// it.
const bindAttempts = 3

// serveOnFreePorts starts the server newCmd builds for n free loopback
// ports, and waits until it listens on each. A server that exits because
// a port was taken meanwhile is started again on other ports; any other
// exit fails the test at once, with the server's output.
func serveOnFreePorts(t testing.TB, name string, n int, newCmd func(ports []int) *exec.Cmd) []int {
	t.Helper()
	for attempt := 1; ; attempt++ {
		ports := freePorts(t, n)
		p := start(t, name, newCmd(ports), nil)
		inUse := false
		for _, port := range ports {
			if inUse = p.waitForPort(t, port); inUse {
				break
			}
		}
		if !inUse {
			return ports
		}
		if attempt == bindAttempts {
			t.Fatalf("%s: a port was taken each of %d times; last:\n%s", name, attempt, p.failure())
		}
	}
}

// freePorts returns n distinct ports that were free a moment ago.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		lns = append(lns, ln)
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	return ports
}
