package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// This file checks what a Session leaves behind after Close and after its
// server crashed (goroutines, child processes, zombies, file descriptors),
// and that under concurrent calls to a server that drops connections every
// call returns its own result or an error, within its deadline.

// procChild is a process whose parent is the test process.
type procChild struct {
	pid    int
	state  string // "Z" for a zombie
	parent int
}

// children lists the processes whose parent is this process, with their
// state, from /proc.
func children(t testing.TB) []procChild {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Skip("no /proc")
	}
	self := os.Getpid()
	var out []procChild
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended meanwhile
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		if ppid != self {
			continue
		}
		pid, _ := strconv.Atoi(strings.Fields(s)[0])
		out = append(out, procChild{pid: pid, state: f[0], parent: ppid})
	}
	return out
}

// childPIDs returns the pids of the current children.
func childPIDs(t testing.TB) map[int]bool {
	m := map[int]bool{}
	for _, c := range children(t) {
		m[c.pid] = true
	}
	return m
}

// newChildren returns the children, zombies included, that were not in
// before. It waits a little for processes that are being reaped.
func newChildren(t testing.TB, before map[int]bool) []procChild {
	t.Helper()
	var left []procChild
	deadline := time.Now().Add(testenv.WaitLimit(t))
	for {
		left = left[:0]
		for _, c := range children(t) {
			if !before[c.pid] {
				left = append(left, c)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// loadSlack is what a loaded machine may add to an operation that ends at
// a timeout of its own. Tests that check such an operation ends in time
// allow this much more, which still tells a bounded wait from a hang.
const loadSlack = 10 * time.Second

// waitPending waits until n requests of s are in flight, on a loaded machine
// as long as it takes: a fixed sleep would let the test go on before the
// calls it means to interrupt were sent.
func waitPending(t testing.TB, s *Session, n int) {
	t.Helper()
	deadline := time.Now().Add(testenv.WaitLimit(t))
	for {
		got := pendingCount(s)
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests in flight, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pendingCount returns the number of requests of s in flight.
func pendingCount(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// openFDs counts this process's open file descriptors.
func openFDs(t testing.TB) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}

// checkFDs fails the test if, once it ends, more descriptors are open than
// when checkFDs was called. Connections being torn down get a moment.
func checkFDs(t *testing.T) {
	t.Helper()
	before := openFDs(t)
	t.Cleanup(func() {
		var n int
		for deadline := time.Now().Add(testenv.WaitLimit(t)); ; time.Sleep(20 * time.Millisecond) {
			if n = openFDs(t); n <= before {
				return
			}
			if time.Now().After(deadline) {
				break
			}
		}
		entries, _ := os.ReadDir("/proc/self/fd")
		var links []string
		for _, e := range entries {
			l, _ := os.Readlink("/proc/self/fd/" + e.Name())
			links = append(links, e.Name()+"->"+l)
		}
		t.Errorf("%d file descriptors open after the test, %d before: %s", n, before, strings.Join(links, " "))
	})
}

// checkChildren fails the test if it leaves a child process or a zombie.
func checkChildren(t *testing.T) {
	t.Helper()
	before := childPIDs(t)
	t.Cleanup(func() {
		if left := newChildren(t, before); len(left) > 0 {
			t.Errorf("processes left behind (pid, state): %v", left)
		}
	})
}

// TestStdioCloseAndCrashLeaveNothing connects to the fake stdio server, calls
// it and closes the Session; then kills a second server with SIGKILL while
// calls are in flight. Either way no goroutine, process, zombie or file
// descriptor is left, and the crash fails the calls with *ServerExitedError.
func TestStdioCloseAndCrashLeaveNothing(t *testing.T) {
	checkLeaks(t)
	checkChildren(t)
	checkFDs(t)

	s, err := Connect(context.Background(), fakeTransport(t, "modern"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.CallTool(context.Background(), "echo", map[string]any{"message": "hi"}); err != nil || res.Text() != "hi" {
		t.Fatalf("echo: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	before := childPIDs(t)
	s, err = Connect(context.Background(), fakeTransport(t, "modern"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var pid int
	for _, c := range children(t) {
		if !before[c.pid] {
			pid = c.pid
		}
	}
	if pid == 0 {
		t.Fatal("cannot find the server process")
	}
	errs := make(chan error, 10)
	for range 10 {
		go func() {
			_, err := s.CallTool(context.Background(), "slow", map[string]any{"ms": 10000})
			errs <- err
		}()
	}
	waitPending(t, s, 10)
	if err := killProcess(pid); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		select {
		case err := <-errs:
			var se *ServerExitedError
			if !errors.As(err, &se) || !strings.Contains(se.ExitStatus, "killed") {
				t.Errorf("call during the crash = %v, want a *ServerExitedError saying it was killed", err)
			}
		case <-time.After(testenv.WaitLimit(t)):
			t.Fatal("a call did not return after the server crashed")
		}
	}
	<-s.Done()
	var se *ServerExitedError
	if _, err := s.CallTool(context.Background(), "echo", nil); !errors.As(err, &se) {
		t.Errorf("call after the crash = %v, want the *ServerExitedError", err)
	}
}

// TestHTTPCloseLeavesNothing runs calls over Streamable HTTP, closes the
// Session and the client's idle connections, and checks goroutines and file
// descriptors.
func TestHTTPCloseLeavesNothing(t *testing.T) {
	checkLeaks(t)
	checkFDs(t)
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, textResult))
	})
	tr := http.DefaultTransport.(*http.Transport).Clone()
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, &HTTPOptions{Client: &http.Client{Transport: tr}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.CallTool(context.Background(), "x", nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s.Close()
	tr.CloseIdleConnections()
	srv.Close()
}

// callsDeadline is the deadline of each call of checkCalls: a third of the
// time the test may run. A thousand concurrent calls under the race
// detector took more than 20 s on a loaded two-core machine; what the tests
// check is that each call ends with its own result or an error, not how
// fast the machine is.
func callsDeadline(t *testing.T) time.Duration {
	return testenv.WaitLimit(t) / 3
}

// echoPayload is the unique payload of call i.
func echoPayload(i int) string { return "payload-" + strconv.Itoa(i) + "-" + strconv.Itoa(i*7919) }

// checkCalls runs n concurrent echo calls through call, each with its own
// deadline, and checks that every one returns in time with its own payload
// or an error. It returns how many succeeded.
func checkCalls(t *testing.T, n int, deadline time.Duration, call func(ctx context.Context, payload string) (*Result, error)) int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, late, wrong := 0, 0, 0
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			start := time.Now()
			res, err := call(ctx, echoPayload(i))
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			if took > deadline+loadSlack {
				late++
			}
			if err == nil {
				if res.Text() != echoPayload(i) {
					wrong++
					t.Errorf("call %d got %q", i, res.Text())
				} else {
					ok++
				}
			}
		}()
	}
	wg.Wait()
	if late > 0 || wrong > 0 {
		t.Errorf("%d of %d calls returned past their deadline, %d got another call's result", late, n, wrong)
	}
	return ok
}

// flakyHTTPServer echoes the message argument of every call, and drops the
// connection of a call with probability p (hijacking it and closing it
// without a response, or closing it halfway through the body).
func flakyHTTPServer(t *testing.T, p float64) *httpServer {
	return modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		var args struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(m.Params.Arguments, &args)
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`, m.ID, args.Message)
		if rand.Float64() >= p {
			writeJSON(w, 200, body)
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		if rand.IntN(2) == 0 {
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:len(body)/2])
			buf.Flush()
		}
		conn.Close()
	})
}

// TestConcurrentCallsHTTPDrops makes 1000 concurrent calls to a Streamable
// HTTP server that drops a tenth of the connections.
func TestConcurrentCallsHTTPDrops(t *testing.T) {
	checkLeaks(t)
	checkFDs(t)
	runHTTPDrops(t, 1000, 0.1)
}

func runHTTPDrops(t *testing.T, n int, p float64) {
	srv := flakyHTTPServer(t, p)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	defer tr.CloseIdleConnections()
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, &HTTPOptions{Client: &http.Client{Transport: tr}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ok := checkCalls(t, n, callsDeadline(t), func(ctx context.Context, payload string) (*Result, error) {
		return s.CallTool(ctx, "echo", map[string]any{"message": payload})
	})
	if ok < n/2 || ok == n {
		t.Errorf("%d of %d calls succeeded with drops at %.0f%%", ok, n, p*100)
	}
	t.Logf("%d of %d calls succeeded, the others failed with an error", ok, n)
}

// TestConcurrentCallsStdioCrash makes 1000 concurrent calls to a stdio
// server that is killed at a random moment. The runtime does not restart a
// stdio server: calls answered before the crash get their own payload, the
// others a *ServerExitedError; then a new Session serves again.
func TestConcurrentCallsStdioCrash(t *testing.T) {
	checkLeaks(t)
	checkChildren(t)
	checkFDs(t)
	runStdioCrashes(t, 1, 1000)
}

func runStdioCrashes(t *testing.T, rounds, n int) {
	for range rounds {
		before := childPIDs(t)
		s, err := Connect(context.Background(), fakeTransport(t, "modern"), nil)
		if err != nil {
			t.Fatal(err)
		}
		var pid int
		for _, c := range children(t) {
			if !before[c.pid] {
				pid = c.pid
			}
		}
		killer := time.AfterFunc(time.Duration(rand.IntN(50))*time.Millisecond, func() { killProcess(pid) })
		var mu sync.Mutex
		var otherErrs []error
		checkCalls(t, n, callsDeadline(t), func(ctx context.Context, payload string) (*Result, error) {
			res, err := s.CallTool(ctx, "echo", map[string]any{"message": payload})
			var se *ServerExitedError
			if err != nil && !errors.As(err, &se) {
				mu.Lock()
				otherErrs = append(otherErrs, err)
				mu.Unlock()
			}
			return res, err
		})
		killer.Stop()
		s.Close()
		if len(otherErrs) > 0 {
			t.Errorf("%d calls failed with something else than the server's exit, such as %v", len(otherErrs), otherErrs[0])
		}
	}
}

// legacySSEServer serves the legacy HTTP+SSE transport: one GET stream at
// /sse whose endpoint is /msg, where each POSTed request is answered on the
// stream with answer's result (initialize is answered with legacyInit).
func legacySSEServer(t *testing.T, answer func(m rpcIn) string) *httpServer {
	events := make(chan string, 1024)
	return newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /msg\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case ev := <-events:
					fmt.Fprintf(w, "data: %s\n\n", ev)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		var m rpcIn
		json.NewDecoder(r.Body).Decode(&m)
		w.WriteHeader(http.StatusAccepted)
		switch {
		case m.ID == nil:
		case m.Method == "initialize":
			events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, legacyInit)
		default:
			events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, answer(m))
		}
	})
}

// TestSSECloseLeavesNothing runs concurrent calls over the legacy HTTP+SSE
// transport, each answered with its own payload, then closes the Session:
// no goroutine or file descriptor is left.
func TestSSECloseLeavesNothing(t *testing.T) {
	checkLeaks(t)
	checkFDs(t)
	srv := legacySSEServer(t, func(m rpcIn) string {
		var args struct {
			Message string `json:"message"`
		}
		json.Unmarshal(m.Params.Arguments, &args)
		return fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, args.Message)
	})
	tr := http.DefaultTransport.(*http.Transport).Clone()
	s, err := Connect(context.Background(), SSE(srv.URL+"/sse", &HTTPOptions{Client: &http.Client{Transport: tr}}), &Options{ProtocolVersion: "2024-11-05"})
	if err != nil {
		t.Fatal(err)
	}
	if ok := checkCalls(t, 200, callsDeadline(t), func(ctx context.Context, payload string) (*Result, error) {
		return s.CallTool(ctx, "echo", map[string]any{"message": payload})
	}); ok != 200 {
		t.Errorf("%d of 200 calls succeeded", ok)
	}
	s.Close()
	tr.CloseIdleConnections()
	srv.Close()
}

// killProcess kills the process pid at once, as a crash would end it.
func killProcess(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
