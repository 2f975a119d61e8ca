package runtime

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestPinnedStdioListingEndsWithFailedProbe pins 2026-07-28 over stdio
// against a server that reads nothing, with no call timeout: the listing
// that went out behind the probe ends with the probe's error once the probe
// timeout has passed, instead of waiting for an answer that cannot come.
func TestPinnedStdioListingEndsWithFailedProbe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := Connect(ctx, fakeTransport(t, "deaf"), &Options{ProtocolVersion: "2026-07-28", ProbeTimeout: 200 * time.Millisecond, CallTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := s.ListTools(ctx)
		errc <- err
	}()
	// The probe times out after 200 ms; a listing still waiting 20 s later
	// waits for nothing.
	guard := time.NewTimer(probeEndBound)
	defer guard.Stop()
	select {
	case err = <-errc:
	case <-guard.C:
		cancel()
		t.Fatalf("ListTools still waits 20 s after a probe timeout of 200 ms (then: %v)", <-errc)
	}
	var pte *ProbeTimeoutError
	if !errors.As(err, &pte) {
		t.Fatalf("ListTools = %v, want the probe's *ProbeTimeoutError", err)
	}
}

// TestPinnedStdioFailedProbeEndsSession pins 2026-07-28 over stdio against
// a server that ignores the probe: the Session that failed it ends, so that
// Err says why, Done is closed, and a Restarting connects again rather than
// failing every call with the same error for good.
func TestPinnedStdioFailedProbeEndsSession(t *testing.T) {
	checkChildren(t)
	ctx := testenv.Context(t)
	r, err := ConnectRestarting(ctx, fakeTransport(t, "silent"), &Options{ProtocolVersion: "2026-07-28", ProbeTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first, err := r.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	var pte *ProbeTimeoutError
	if !errors.As(err, &pte) {
		t.Fatalf("CallTool = %v, want the probe's *ProbeTimeoutError", err)
	}
	if err := first.Err(); !errors.As(err, &pte) {
		t.Errorf("Err = %v after the probe failed, want its *ProbeTimeoutError", err)
	}
	if v := first.ProtocolVersion(); v != "" {
		t.Errorf("ProtocolVersion = %q after the probe failed, want none", v)
	}
	if !doneWithin(first, probeEndBound) {
		t.Error("Done still open 20 s after the probe failed")
	}
	next, err := r.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next == first {
		t.Error("Restarting kept the Session whose probe failed")
	}
}

// TestPinnedStdioServerExitLoggedOnce pins 2026-07-28 over stdio against a
// server that exits on its first message: its exit is logged once, as a
// warning, not again as the failure of the probe it ended.
func TestPinnedStdioServerExitLoggedOnce(t *testing.T) {
	ctx := testenv.Context(t)
	var mu sync.Mutex
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := Connect(ctx, fakeTransport(t, "die-init"), &Options{ProtocolVersion: "2026-07-28", Logger: logger})
	if err == nil {
		defer s.Close()
		_, err = s.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	}
	var se *ServerExitedError
	if !errors.As(err, &se) {
		t.Fatalf("CallTool = %v, want a *ServerExitedError", err)
	}
	mu.Lock()
	logged := buf.String()
	mu.Unlock()
	if n := strings.Count(logged, "level=WARN"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, logged)
	}
}

// TestPinnedStdioClosedDuringProbe closes a Session pinned to 2026-07-28
// over stdio while its probe waits for an answer: its calls fail with
// ErrClosed, not with a cancellation the caller would take for its own.
func TestPinnedStdioClosedDuringProbe(t *testing.T) {
	ctx := testenv.Context(t)
	s, err := Connect(ctx, fakeTransport(t, "deaf"), &Options{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	<-s.eraCheck.written // the probe waits for its answer
	s.Close()
	_, err = s.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	if !errors.Is(err, ErrClosed) || errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool after Close = %v, want ErrClosed", err)
	}
}

// TestPinnedHTTPFailedProbeClosesDone pins 2026-07-28 over Streamable HTTP
// against a legacy server: once the probe has shown it, the Session ends,
// and Done closes with it, as it does when a connection is lost. Over HTTP
// the Session's reader waited in the connection's queue, and Done stayed
// open until Close.
func TestPinnedHTTPFailedProbeClosesDone(t *testing.T) {
	srv := newStreamableServer(t, false, false)
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(srv.URL+"/mcp", testHTTPOptions(t)), &Options{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, "echo", map[string]string{"message": "hi"}); err == nil || !strings.Contains(err.Error(), "does not speak protocol version 2026-07-28") {
		t.Fatalf("CallTool = %v, want the probe's refusal", err)
	}
	if !doneWithin(s, probeEndBound) {
		t.Fatal("Done still open 20 s after the probe showed a legacy server")
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "does not speak protocol version 2026-07-28") {
		t.Errorf("Err = %v, want the probe's refusal", err)
	}
	if v := s.ProtocolVersion(); v != "" {
		t.Errorf("ProtocolVersion = %q after the probe showed a legacy server, want none", v)
	}
}

// probeEndBound is how long after a failed probe these tests give the
// Session to end what it must: far beyond the probe's own timeout, so that
// only a Session that never ends reaches it.
const probeEndBound = 20 * time.Second

// doneWithin reports whether s's Done closes within d.
func doneWithin(s *Session, d time.Duration) bool {
	guard := time.NewTimer(d)
	defer guard.Stop()
	select {
	case <-s.Done():
		return true
	case <-guard.C:
		return false
	}
}

// TestPinnedModernAgainstLegacyRealServers pins 2026-07-28 against
// @modelcontextprotocol/server-everything, which speaks only the legacy
// era, over stdio and Streamable HTTP: the first tool call fails with the
// probe's refusal, and the Session ends with that error as its Err and no
// protocol version.
func TestPinnedModernAgainstLegacyRealServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	everything := testenv.Everything(t, "stdio")
	for _, tc := range []struct {
		name string
		tr   Transport
	}{
		{"stdio", NewCommandTransport(everything[0], everything[1:]...)},
		{"streamable", StreamableHTTP(testenv.ServeEverything(t, "streamableHttp"), nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testenv.Context(t)
			s, err := Connect(ctx, tc.tr, &Options{ProtocolVersion: "2026-07-28"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			const refusal = "does not speak protocol version 2026-07-28"
			if _, err := s.CallTool(ctx, "echo", map[string]string{"message": "hi"}); err == nil || !strings.Contains(err.Error(), refusal) {
				t.Fatalf("CallTool = %v, want the probe's refusal", err)
			}
			if !doneWithin(s, probeEndBound) {
				t.Fatal("Done still open 20 s after the probe showed a legacy server")
			}
			if err := s.Err(); err == nil || !strings.Contains(err.Error(), refusal) {
				t.Errorf("Err = %v, want the probe's refusal", err)
			}
			if v := s.ProtocolVersion(); v != "" {
				t.Errorf("ProtocolVersion = %q, want none", v)
			}
		})
	}
}
