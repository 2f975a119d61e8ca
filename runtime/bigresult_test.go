package runtime

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"strconv"
	"testing"
)

// bytesPerCall returns the heap bytes allocated per call of call, over n
// calls after a first one.
func bytesPerCall(t *testing.T, n int, call func()) float64 {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	call()
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for range n {
		call()
	}
	goruntime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// A stdio server that keeps sending 1 MiB results got each line read into
// a chain of ever larger buffers (6.4 MiB allocated per call), and Text
// copied the one text block once more. Now a long line starts as long as the
// last one, and Text returns a lone block as it is.
func TestLargeResultsStdioAllocateLittle(t *testing.T) {
	s, err := Connect(context.Background(), fakeTransport(t, "legacy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkBigResultAllocs(t, s)
}

// A 1 MiB result in an SSE event over Streamable HTTP was read into a line
// buffer grown from 8 KiB for every stream, copied into the event's data
// buffer, and copied again into the event: 8.3 MiB allocated per call. Now
// released readers keep their grown buffers, and an event of one data line
// is the one copy of it.
func TestLargeResultsHTTPAllocateLittle(t *testing.T) {
	srv := bigHTTPServer(t)
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkBigResultAllocs(t, s)
}

// checkBigResultAllocs fails t when a 1 MiB result through s allocates
// more than 3 MiB.
func checkBigResultAllocs(t *testing.T, s *Session) {
	t.Helper()
	args := json.RawMessage(`{"n":` + strconv.Itoa(1<<20) + `}`)
	perCall := bytesPerCall(t, 4, func() {
		res, err := s.CallTool(context.Background(), "big", args)
		if err != nil || len(res.Text()) != 1<<20 {
			t.Fatalf("big: %d bytes, %v", len(res.Text()), err)
		}
	})
	if limit := 3.0 * (1 << 20); perCall > limit {
		t.Errorf("%.1f MiB allocated per 1 MiB result, want at most %.0f MiB", perCall/(1<<20), limit/(1<<20))
	}
}

// keepingConn is an echoConn that does not declare ReleasesData, as a Conn
// that may use OutMessage.Data after Write returns (an HTTP client sending
// a body) must not.
type keepingConn struct{ *echoConn }

func (keepingConn) ConnCapabilities() ConnCapabilities {
	return ConnCapabilities{WriteIgnoresContext: true}
}

// On a connection that keeps OutMessage.Data (Streamable HTTP), every
// request took a 1 KiB buffer from the pool and never gave it back, so the
// pool allocated one per call. Now such a connection gets a copy of the
// message's own size, and the buffer goes back at once.
func TestUnreleasedDataCostsItsSize(t *testing.T) {
	perCall := func(conn Conn) float64 {
		s := newSession(conn, nil)
		defer s.Close()
		if err := s.negotiate(context.Background()); err != nil {
			t.Fatal(err)
		}
		args := json.RawMessage(`{"message":"hello"}`)
		return bytesPerCall(t, 200, func() {
			if _, err := s.CallTool(context.Background(), "echo", args); err != nil {
				t.Fatal(err)
			}
		})
	}
	released := perCall(&echoConn{in: make(chan []byte, 16), closed: make(chan struct{})})
	kept := perCall(keepingConn{&echoConn{in: make(chan []byte, 16), closed: make(chan struct{})}})
	if extra := kept - released; extra > 384 {
		t.Errorf("a call on a connection that keeps Data allocates %.0f bytes more than one that releases it, want at most 384", extra)
	}
}

// An SSE response over Streamable HTTP cost about 720 bytes more per call
// than the same response as JSON: a new event reader per stream and a new
// timer bounding the drain of the stream after the response. Readers and
// timers are now pooled.
func TestSSEResponseCostsLittleMoreThanJSON(t *testing.T) {
	perCall := func(useSSE bool) float64 {
		srv := benchServer(t, useSSE)
		s, err := Connect(context.Background(), StreamableHTTP(srv.URL, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		args := json.RawMessage(`{"message":"hello"}`)
		return bytesPerCall(t, 1500, func() {
			if _, err := s.CallTool(context.Background(), "echo", args); err != nil {
				t.Fatal(err)
			}
		})
	}
	jsonCost, sseCost := perCall(false), perCall(true)
	if extra := sseCost - jsonCost; extra > 450 {
		t.Errorf("an SSE response costs %.0f bytes more per call than a JSON one, want at most 450", extra)
	}
}
