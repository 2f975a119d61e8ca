package runtime

import (
	"context"
	"log/slog"
	"net/http"
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

// recordHandler is a slog.Handler that hands every record to on.
type recordHandler struct{ on func(slog.Record) }

func (h *recordHandler) Enabled(context.Context, slog.Level) bool      { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error { h.on(r); return nil }
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler            { return h }
func (h *recordHandler) WithGroup(string) slog.Handler                 { return h }
