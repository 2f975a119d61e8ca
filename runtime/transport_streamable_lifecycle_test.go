package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// signalHandler is a slog handler that counts the records whose message
// contains match, and closes second at the second of them.
type signalHandler struct {
	match  string
	n      atomic.Int32
	once   sync.Once
	second chan struct{}
}

func (h *signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *signalHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.match) && h.n.Add(1) == 2 {
		h.once.Do(func() { close(h.second) })
	}
	return nil
}
func (h *signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *signalHandler) WithGroup(string) slog.Handler      { return h }

// TestRequestDuringReinitializeWaitsForNewSession expires a legacy
// Streamable HTTP session, and sends a second call while the first call's
// new initialize is still unanswered. The second call must not go out
// without a session id (which a server that requires sessions refuses with
// 400): it must wait for the new session, and succeed.
func TestRequestDuringReinitializeWaitsForNewSession(t *testing.T) {
	checkLeaks(t)
	var (
		session     atomic.Int32
		expired     atomic.Bool
		reinit      = make(chan struct{}) // the second initialize arrived
		reinitOnce  sync.Once
		sessionless = make(chan struct{}, 1) // a request without a session id arrived
	)
	logged := &signalHandler{match: "session expired", second: make(chan struct{})}
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, ok := legacyPOST(w, r)
		if !ok {
			return
		}
		sid := r.Header.Get("Mcp-Session-Id")
		switch {
		case strings.Contains(body, `"method":"initialize"`):
			if session.Load() > 0 {
				reinitOnce.Do(func() { close(reinit) })
				// Hold the new initialize until the other call has gone
				// out without a session, or has seen the expiry too.
				select {
				case <-sessionless:
				case <-logged.second:
				case <-r.Context().Done():
					return
				}
			}
			n := session.Add(1)
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("s%d", n))
		case sid == "":
			select {
			case sessionless <- struct{}{}:
			default:
			}
			http.Error(w, "Bad Request: No valid session ID provided", http.StatusBadRequest)
			return
		case expired.Load() && sid == fmt.Sprintf("s%d", session.Load()) && session.Load() == 1:
			http.Error(w, "Session not found", http.StatusNotFound)
			return
		}
		answer := legacyAnswer("2025-06-18", body)
		if answer == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, 200, answer)
	})
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(srv.URL, testHTTPOptions(t)), &Options{Logger: slog.New(logged)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, "echo", map[string]string{"message": "warm"}); err != nil {
		t.Fatal(err)
	}
	expired.Store(true)
	first := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "echo", map[string]string{"message": "a"})
		first <- err
	}()
	select {
	case <-reinit:
	case <-ctx.Done():
		t.Fatal("no second initialize")
	}
	res, err := s.CallTool(ctx, "echo", map[string]string{"message": "b"})
	if err != nil {
		t.Errorf("call during the new initialize: %v", err)
	} else if res.Text() != "Echo: b" {
		t.Errorf("call during the new initialize = %q", res.Text())
	}
	if err := <-first; err != nil {
		t.Errorf("call that met the expiry: %v", err)
	}
}

// TestSessionRecoversAfterFailedReinitialize expires a legacy Streamable
// HTTP session while the server is restarting: the new initialize the
// expiry starts fails once (503). The call fails, but the next call must
// initialize again and succeed, instead of going out without a session id
// for the rest of the Session's life.
func TestSessionRecoversAfterFailedReinitialize(t *testing.T) {
	checkLeaks(t)
	var (
		session    atomic.Int32
		expired    atomic.Bool
		failInit   atomic.Bool
		sessionles atomic.Int32
	)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, ok := legacyPOST(w, r)
		if !ok {
			return
		}
		sid := r.Header.Get("Mcp-Session-Id")
		switch {
		case strings.Contains(body, `"method":"initialize"`):
			if failInit.CompareAndSwap(true, false) {
				http.Error(w, "starting up", http.StatusServiceUnavailable)
				return
			}
			n := session.Add(1)
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("s%d", n))
		case sid == "":
			sessionles.Add(1)
			http.Error(w, "Bad Request: No valid session ID provided", http.StatusBadRequest)
			return
		case expired.Load() && sid == "s1":
			http.Error(w, "Session not found", http.StatusNotFound)
			return
		}
		answer := legacyAnswer("2025-06-18", body)
		if answer == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, 200, answer)
	})
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(srv.URL, testHTTPOptions(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	expired.Store(true)
	failInit.Store(true)
	if _, err := s.CallTool(ctx, "echo", map[string]string{"message": "a"}); err == nil {
		t.Fatal("the call whose new initialize failed succeeded")
	} else {
		t.Logf("first call: %v", err)
	}
	res, err := s.CallTool(ctx, "echo", map[string]string{"message": "b"})
	if err != nil {
		t.Fatalf("call after the server came back: %v", err)
	}
	if res.Text() != "Echo: b" {
		t.Errorf("call after the server came back = %q", res.Text())
	}
	if n := sessionles.Load(); n != 0 {
		t.Errorf("%d requests went out without a session id", n)
	}
}

// TestCloseContextBoundsHangingDelete closes a legacy Streamable HTTP
// Session whose server never answers the DELETE that ends the session, with
// a short deadline: CloseContext bounds its waits for the server by that
// context, so it must not wait out the DELETE's own timeout.
func TestCloseContextBoundsHangingDelete(t *testing.T) {
	checkLeaks(t)
	srv := newStreamableServer(t, false, false)
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			<-r.Context().Done()
			return
		}
		inner.ServeHTTP(w, r)
	})
	for _, tr := range []struct {
		name string
		t    func(string, *HTTPOptions) Transport
	}{{"streamable", StreamableHTTP}, {"auto", HTTP}} {
		t.Run(tr.name, func(t *testing.T) {
			ctx := testenv.Context(t)
			s, err := Connect(ctx, tr.t(srv.URL+"/mcp", testHTTPOptions(t)), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkEcho(t, s)
			cctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			s.CloseContext(cctx)
			if d := time.Since(start); d >= deleteTimeout {
				t.Errorf("CloseContext with a 300ms deadline took %v, the DELETE's own timeout", d)
			}
		})
	}
}

// TestResumeWithRetryZeroDoesNotSpin answers a legacy tools/call with an
// event stream that sends a priming event with retry: 0 and ends, and does
// the same to every GET that resumes it. The client resumes, as it should,
// but must not do so in a tight loop: the GET stream for server messages
// already waits at least minGetRetry in that case.
func TestResumeWithRetryZeroDoesNotSpin(t *testing.T) {
	checkLeaks(t)
	var gets atomic.Int32
	var session atomic.Int32
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-Id") != "" {
			n := gets.Add(1)
			startSSE(w).event(fmt.Sprintf("id: p%d", n), "retry: 0", "data:")
			return
		}
		body, ok := legacyPOST(w, r)
		if !ok {
			return
		}
		switch {
		case strings.Contains(body, `"method":"initialize"`):
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("s%d", session.Add(1)))
		case strings.Contains(body, `"method":"tools/call"`):
			startSSE(w).event("id: p0", "retry: 0", "data:")
			return
		}
		answer := legacyAnswer("2025-06-18", body)
		if answer == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, 200, answer)
	})
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(srv.URL, testHTTPOptions(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	start := time.Now()
	_, err = s.CallTool(cctx, "echo", map[string]string{"message": "a"})
	d := time.Since(start)
	if err == nil {
		t.Fatal("the call succeeded")
	}
	n := gets.Load()
	// At least minGetRetry between two attempts; twice as many allowed.
	if limit := 2 * int32(d/minGetRetry+1); n > limit {
		t.Errorf("%d GETs resumed the stream in %v, more than %d", n, d, limit)
	}
	t.Logf("%d GETs in %v: %v", n, d, err)
}

// legacyPOST answers what the lifecycle tests' legacy servers answer alike:
// a GET for server messages with 405, the DELETE that ends a session with
// 200, and the server/discover probe with 400, so that the client falls
// back to initialize. For any other POST it returns the body and true.
func legacyPOST(w http.ResponseWriter, r *http.Request) (string, bool) {
	switch r.Method {
	case http.MethodGet:
		http.Error(w, "no", http.StatusMethodNotAllowed)
		return "", false
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return "", false
	}
	body := readBodyString(r)
	if strings.Contains(body, `"method":"server/discover"`) {
		http.Error(w, "Bad Request", http.StatusBadRequest)
		return "", false
	}
	return body, true
}
