package runtime

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// postMethods returns the JSON-RPC methods of the POSTs srv received.
func postMethods(srv *httpServer) []string {
	var methods []string
	for _, r := range srv.requests() {
		if r.Method == http.MethodPost {
			methods = append(methods, methodOf(r.Body))
		}
	}
	return methods
}

// methodOf returns the method named in a JSON-RPC body, or "".
func methodOf(body string) string {
	i := strings.Index(body, `"method":"`)
	if i < 0 {
		return ""
	}
	m := body[i+10:]
	return m[:strings.IndexByte(m, '"')]
}

// TestSlowFirstPOSTHTTP answers the first POST of a modern Streamable HTTP
// server (the server/discover probe) after 2.5 s, as a server waking from a
// cold start does: the Session must wait for that answer and settle on the
// modern era, never taking the slow server for a legacy one and sending
// initialize.
func TestSlowFirstPOSTHTTP(t *testing.T) {
	for _, tc := range []struct {
		name      string
		transport func(url string) Transport
	}{
		{"streamable", func(url string) Transport { return StreamableHTTP(url, nil) }},
		{"auto", func(url string) Transport { return HTTP(url, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newStreamableServer(t, true, false)
			var first atomic.Bool
			inner := srv.Config.Handler
			srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && first.CompareAndSwap(false, true) {
					time.Sleep(2500 * time.Millisecond)
				}
				inner.ServeHTTP(w, r)
			})
			ctx := testenv.Context(t)
			s, err := Connect(ctx, tc.transport(srv.URL), nil)
			if err != nil {
				t.Fatalf("Connect: %v (POSTs %v)", err, postMethods(srv.httpServer))
			}
			defer s.Close()
			if v := s.ProtocolVersion(); v != "2026-07-28" {
				t.Errorf("ProtocolVersion = %s, want 2026-07-28 (POSTs %v)", v, postMethods(srv.httpServer))
			}
			for _, m := range postMethods(srv.httpServer) {
				if m == "initialize" {
					t.Errorf("sent %s to a modern server that was only slow", m)
				}
			}
			checkEcho(t, s)
		})
	}
}

// TestSilentHTTPServerIsNotLegacy holds the probe's POST unanswered past
// Options.ProbeTimeout: over Streamable HTTP a legacy server refuses the
// probe at once, so silence is an error naming the bound, not a reason to
// fall back to initialize.
func TestSilentHTTPServerIsNotLegacy(t *testing.T) {
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	ctx := testenv.Context(t)
	_, err := Connect(ctx, HTTP(srv.URL, testHTTPOptions(t)), &Options{ProbeTimeout: 200 * time.Millisecond})
	var pte *ProbeTimeoutError
	if !errors.As(err, &pte) || pte.Timeout != 200*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Connect = %v, want a *ProbeTimeoutError of 200ms", err)
	}
	if !strings.Contains(err.Error(), "no answer to server/discover within 200ms") {
		t.Errorf("error %q does not name the probe and its bound", err)
	}
	if m := postMethods(srv); len(m) != 1 {
		t.Errorf("POSTs %v, want the probe alone", m)
	}
}

// TestSilentStdioServerPinnedModern pins 2026-07-28 against a stdio server
// that ignores the probe: Connect returns once the probe is written, and the
// first tool call fails with an error that names the bound that ran out.
func TestSilentStdioServerPinnedModern(t *testing.T) {
	ctx := testenv.Context(t)
	s, err := Connect(ctx, fakeTransport(t, "silent"), &Options{ProtocolVersion: "2026-07-28", ProbeTimeout: 200 * time.Millisecond})
	if err == nil {
		defer s.Close()
		_, err = s.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	}
	var pte *ProbeTimeoutError
	if !errors.As(err, &pte) || !strings.Contains(err.Error(), "negotiating protocol version 2026-07-28: no answer to server/discover within 200ms") {
		t.Fatalf("CallTool = %v, want a *ProbeTimeoutError", err)
	}
}
