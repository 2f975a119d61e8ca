package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestInitializedBesideFirstListing checks that the notifications/initialized
// of a session without a session id goes out beside the first listing:
// the server holds the notification's answer until the listing has
// arrived, which a client waiting for that answer never sends. With a
// session id, the listing still follows the notification's answer, since
// a stateful server may refuse requests before it.
func TestInitializedBesideFirstListing(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateless", true: "stateful"}[stateful], func(t *testing.T) {
			listed := make(chan struct{})
			var listOnce sync.Once
			var notified, answered atomic.Int32
			var listedEarly atomic.Bool
			srv := newLegacyServer(t, stateful, func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusMethodNotAllowed)
			}, func(w http.ResponseWriter, r *http.Request) {
				notified.Add(1)
				if !stateful {
					// A bound, not a pace: the listing normally
					// arrives within microseconds.
					select {
					case <-listed:
					case <-time.After(30 * time.Second):
						t.Error("the listing did not arrive while notifications/initialized waited for its answer")
					case <-r.Context().Done():
					}
				}
				answered.Add(1)
				w.WriteHeader(http.StatusAccepted)
			}, func(answer func()) {
				if answered.Load() == 0 {
					listedEarly.Store(true)
				}
				answer()
				listOnce.Do(func() { close(listed) })
			})
			ctx := testenv.Context(t)
			s, err := Connect(ctx, StreamableHTTP(srv.URL+"/mcp", testHTTPOptions(t)), &Options{ProtocolVersion: LatestLegacyProtocolVersion})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.ListTools(ctx); err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			// Close waits for the notification's POST.
			if n := notified.Load(); n != 1 {
				t.Errorf("the server got notifications/initialized %d times, want once", n)
			}
			if stateful && listedEarly.Load() {
				t.Error("with a session id, the listing went out before notifications/initialized was answered")
			}
		})
	}
}

// TestInitializedFailureFailsLaterRequests checks that a notifications/initialized
// sent beside the requests after it and refused by the server is not lost:
// it is logged, and every later request fails with the server's answer,
// as Connect would have.
func TestInitializedFailureFailsLaterRequests(t *testing.T) {
	srv := newLegacyServer(t, false, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusMethodNotAllowed)
	}, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no such notification here", http.StatusBadRequest)
	}, func(answer func()) { answer() })
	logged := make(chan struct{})
	var once sync.Once
	opts := testHTTPOptions(t)
	opts.Logger = slog.New(&recordHandler{on: func(r slog.Record) {
		if r.Level == slog.LevelWarn && strings.Contains(r.Message, "notifications/initialized failed") {
			once.Do(func() { close(logged) })
		}
	}})
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(srv.URL+"/mcp", opts), &Options{ProtocolVersion: LatestLegacyProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	select {
	case <-logged:
	case <-ctx.Done():
		t.Fatal("the refused notifications/initialized was not logged")
	}
	for range 2 {
		_, err := s.ListTools(ctx)
		if err == nil || !strings.Contains(err.Error(), "sending notifications/initialized") || !strings.Contains(err.Error(), "400") {
			t.Fatalf("ListTools after a refused notifications/initialized: %v, want its error", err)
		}
	}
}

// TestInitializedRefusedEndsSession checks that a Session whose
// notifications/initialized, sent beside the requests after it, was
// refused ends with the server's answer, as Connect would have failed
// with it: Done is closed and Err says why, so that a Restarting connects
// again on its next call instead of failing every call for good. The
// detecting transport (HTTP) shares the path.
func TestInitializedRefusedEndsSession(t *testing.T) {
	transports := map[string]func(string, *HTTPOptions) Transport{"StreamableHTTP": StreamableHTTP, "HTTP": HTTP}
	for name, transport := range transports {
		for _, status := range []int{http.StatusNotFound, http.StatusUnauthorized, http.StatusServiceUnavailable} {
			t.Run(fmt.Sprintf("%s/%d", name, status), func(t *testing.T) {
				checkLeaks(t)
				var notified atomic.Int32
				srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
					if r.Method != http.MethodPost {
						w.WriteHeader(http.StatusMethodNotAllowed)
						return
					}
					body := readBodyString(r)
					switch {
					case strings.Contains(body, `"initialize"`):
						writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
					case strings.Contains(body, `"notifications/initialized"`):
						if notified.Add(1) == 1 {
							http.Error(w, "not now", status)
							return
						}
						w.WriteHeader(http.StatusAccepted)
					default:
						writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`)
					}
				})
				ctx := testenv.Context(t)
				r, err := ConnectRestarting(ctx, transport(srv.URL+"/mcp", testHTTPOptions(t)), &Options{ProtocolVersion: LatestLegacyProtocolVersion})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				first := r.latest.Load()
				select {
				case <-first.Done():
				case <-ctx.Done():
					t.Fatal("the Session still works after its notifications/initialized was refused")
				}
				if err := first.Err(); err == nil || !strings.Contains(err.Error(), "sending notifications/initialized") || !strings.Contains(err.Error(), strconv.Itoa(status)) {
					t.Errorf("Err after a refused notifications/initialized: %v, want its error", err)
				}
				tools, err := r.ListTools(ctx)
				if err != nil || len(tools) != 1 {
					t.Fatalf("ListTools after the restart: %v, %d tools", err, len(tools))
				}
				// Close waits for the second Session's notification.
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
				if n := notified.Load(); n != 2 {
					t.Errorf("the server got notifications/initialized %d times, want twice", n)
				}
			})
		}
	}
}

// TestInitializedSentWhenClosedAtOnce checks that a Session closed right
// after Connect still sends the notifications/initialized that went out
// on its own: Close waits for it instead of dropping it.
func TestInitializedSentWhenClosedAtOnce(t *testing.T) {
	checkLeaks(t)
	var notified atomic.Int32
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body := readBodyString(r)
		switch {
		case strings.Contains(body, `"initialize"`):
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
		case strings.Contains(body, `"notifications/initialized"`):
			notified.Add(1)
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	})
	ctx := testenv.Context(t)
	const sessions = 10
	for range sessions {
		s, err := Connect(ctx, StreamableHTTP(srv.URL+"/mcp", testHTTPOptions(t)), &Options{ProtocolVersion: LatestLegacyProtocolVersion})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := notified.Load(); n != sessions {
		t.Errorf("the server got notifications/initialized from %d of %d sessions closed at once", n, sessions)
	}
}

// TestServerRequestDuringInitializeNotHeld checks that the answer to a
// ping the server sends on initialize's event stream, before the
// initialize response, goes out at once: only the message after the
// handshake waits for the end of that stream, which here cannot come
// before the answer.
func TestServerRequestDuringInitializeNotHeld(t *testing.T) {
	defer func(d time.Duration) { handshakeStreamWait = d }(handshakeStreamWait)
	handshakeStreamWait = testenv.WaitLimit(t)
	for _, stateful := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateless", true: "stateful"}[stateful], func(t *testing.T) {
			ponged := make(chan struct{}, 1)
			srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				body := readBodyString(r)
				var hdr []string
				if stateful {
					hdr = []string{"Mcp-Session-Id", "s1"}
				}
				switch {
				case strings.Contains(body, `"initialize"`):
					sw := startSSE(w, hdr...)
					sw.event(`data: {"jsonrpc":"2.0","id":"p1","method":"ping"}`)
					// A bound, not a pace: the answer normally arrives
					// within milliseconds.
					select {
					case <-ponged:
					case <-time.After(handshakeStreamWait / 2):
						t.Error("the answer to the ping did not arrive while initialize's stream waited for it")
					case <-r.Context().Done():
					}
					sw.event(`data: {"jsonrpc":"2.0","id":` + idOf(body) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
				case strings.Contains(body, `"p1"`):
					ponged <- struct{}{}
					w.WriteHeader(http.StatusAccepted)
				case strings.Contains(body, `"notifications/initialized"`):
					w.WriteHeader(http.StatusAccepted)
				default:
					writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"tools":[]}}`, hdr...)
				}
			})
			ctx := testenv.Context(t)
			s, err := Connect(ctx, StreamableHTTP(srv.URL+"/mcp", testHTTPOptions(t)), &Options{ProtocolVersion: LatestLegacyProtocolVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.ListTools(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// recordHandler is a slog.Handler that hands every record to on.
type recordHandler struct{ on func(slog.Record) }

func (h *recordHandler) Enabled(context.Context, slog.Level) bool      { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error { h.on(r); return nil }
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler            { return h }
func (h *recordHandler) WithGroup(string) slog.Handler                 { return h }
