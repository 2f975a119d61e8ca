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

// getTimes records when a test server received each GET.
type getTimes struct {
	mu sync.Mutex
	at []time.Time
}

// add records a GET and returns its number, from 1.
func (g *getTimes) add() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.at = append(g.at, time.Now())
	return len(g.at)
}

func (g *getTimes) times() []time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]time.Time(nil), g.at...)
}

// TestGetStreamBackoffGrowsWhileEmpty answers every GET of a legacy
// session with a priming event carrying retry: 0, and ends the stream, as
// a server polling with nothing to send does. The stream is reopened, but
// after a wait that grows while the streams deliver nothing: the wait
// before the fifth GET is at least 1 s, where the server's retry
// interval alone would make it minGetRetry.
func TestGetStreamBackoffGrowsWhileEmpty(t *testing.T) {
	checkLeaks(t)
	var gets getTimes
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		n := gets.add()
		startSSE(w).event(fmt.Sprintf("id: g%d", n), "retry: 0", "data:")
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	c.(HandshakeNotifier).HandshakeDone("2025-11-25")
	waitFor(t, "five GETs", func() bool { return len(gets.times()) >= 5 })
	at := gets.times()
	var gaps []time.Duration
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i].Sub(at[i-1]))
	}
	// The waits are lower bounds, which a loaded machine only lengthens.
	if gaps[3] < time.Second {
		t.Errorf("waits between the GETs of streams that delivered nothing: %v; want the fourth at least 1s", gaps)
	}
}

// TestGetStreamGivenUpAfterEmptyStreams answers the GETs of a legacy
// session with streams that end without an event, except the first and
// the sixth, which deliver a message each. The four empty streams between
// them stay below the bound, and the message of the sixth resets the
// count: the GET stream is given up, with a warning, after the five empty
// streams that follow it, at the eleventh GET. Requests are still
// answered after that.
func TestGetStreamGivenUpAfterEmptyStreams(t *testing.T) {
	checkLeaks(t)
	var gets atomic.Int32
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			body := readBodyString(r)
			if strings.Contains(body, `"method"`) && strings.Contains(body, `"id"`) {
				writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{}}`)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			return
		}
		switch n := gets.Add(1); n {
		case 1, 6:
			startSSE(w).event("id: g1", "retry: 0", `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
		default:
			startSSE(w) // ends without an event
		}
	})
	logged := &signalHandler{match: "gave up on the GET stream", second: make(chan struct{})}
	opts := testHTTPOptions(t)
	opts.Logger = slog.New(logged)
	c := dial(t, StreamableHTTP(srv.URL, opts))
	c.(HandshakeNotifier).HandshakeDone("2025-11-25")
	for i := 0; i < 2; i++ {
		if got := readMsg(t, c); !strings.Contains(got, "list_changed") {
			t.Fatalf("GET stream message %d = %s", i+1, got)
		}
	}
	waitFor(t, "the GET stream given up", func() bool { return logged.n.Load() == 1 })
	if n := gets.Load(); n != 11 {
		t.Errorf("%d GETs before the GET stream was given up, want 11", n)
	}
	write(t, c, rpcReq(7, "tools/list", "2025-11-25"))
	if got := readMsg(t, c); !strings.Contains(got, `"id":7`) {
		t.Fatalf("answer after the GET stream was given up = %s", got)
	}
}

// TestGetStreamKeptThroughIdleTimeouts answers the GETs of a legacy
// session with streams that stay open without an event for longer than
// getStreamLived, then end, as a proxy's idle timeout ends them (nginx's
// after 60 s). Each such end counted as a failure, and the fifth gave the
// GET stream up for the rest of the session, losing every message the
// server sent later. They count as neither failures nor empty streams: the
// stream is reopened after each, and the message of the eighth arrives.
func TestGetStreamKeptThroughIdleTimeouts(t *testing.T) {
	checkLeaks(t)
	defer func(d time.Duration) { getStreamLived = d }(getStreamLived)
	getStreamLived = 20 * time.Millisecond
	var gets atomic.Int32
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		sse := startSSE(w)
		if gets.Add(1) == 8 {
			sse.event("id: g8", "retry: 0", `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			<-r.Context().Done()
			return
		}
		// Idle past getStreamLived, then ended, as by a proxy. The wait
		// is the condition under test: a loaded machine only lengthens it.
		select {
		case <-time.After(2 * getStreamLived):
		case <-r.Context().Done():
		}
	})
	gaveUp := &onLog{match: "gave up on the GET stream", fired: make(chan struct{})}
	opts := testHTTPOptions(t)
	opts.Logger = slog.New(gaveUp)
	c := dial(t, StreamableHTTP(srv.URL, opts))
	c.(HandshakeNotifier).HandshakeDone("2025-11-25")
	// The read ends at once if the GET stream is given up.
	ctx, cancel := context.WithCancel(testenv.Context(t))
	defer cancel()
	go func() {
		select {
		case <-gaveUp.fired:
			cancel()
		case <-ctx.Done():
		}
	}()
	b, err := c.Read(ctx)
	select {
	case <-gaveUp.fired:
		t.Fatalf("the GET stream was given up after %d idle streams", gets.Load())
	default:
	}
	if err != nil || !strings.Contains(string(b), "list_changed") {
		t.Fatalf("GET stream message = %s, %v", b, err)
	}
}

// onLog is a slog.Handler that closes fired at the first record whose
// message holds match.
type onLog struct {
	match string
	once  sync.Once
	fired chan struct{}
}

func (h *onLog) Enabled(context.Context, slog.Level) bool { return true }
func (h *onLog) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.match) {
		h.once.Do(func() { close(h.fired) })
	}
	return nil
}
func (h *onLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *onLog) WithGroup(string) slog.Handler      { return h }
