package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/sse"
)

// TestStreamableResumeAfterEventCutMidway cuts a POST stream in the middle
// of the event that carries the response, after its id line. That event was
// never dispatched, so the resumption must ask for what follows the last
// event received whole (e1), and the server sends the response again.
// Before, the id of the event cut off was sent, and the server, which had
// nothing after it, never sent the response.
func TestStreamableResumeAfterEventCutMidway(t *testing.T) {
	checkLeaks(t)
	var mu sync.Mutex
	var lastIDs []string
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			s := startSSE(w)
			s.event(`id: e1`, `retry: 5`, `data:`)
			io.WriteString(w, "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"res") // cut mid-event
		case http.MethodGet:
			id := r.Header.Get("Last-Event-Id")
			mu.Lock()
			lastIDs = append(lastIDs, id)
			mu.Unlock()
			if id != "e1" {
				http.Error(w, "no events after "+id, http.StatusBadRequest)
				return
			}
			s := startSSE(w)
			s.event(`id: e2`, `data: {"jsonrpc":"2.0","id":4,"result":{"resumed":true}}`)
			<-r.Context().Done()
		}
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	write(t, c, rpcReq(4, "tools/call", "2025-11-25"))
	got := readMsg(t, c)
	mu.Lock()
	defer mu.Unlock()
	if got != `{"jsonrpc":"2.0","id":4,"result":{"resumed":true}}` {
		t.Errorf("message = %s, want the response (Last-Event-ID sent: %q)", got, lastIDs)
	}
	if strings.Join(lastIDs, ",") != "e1" {
		t.Errorf("Last-Event-ID sent: %q, want e1 once", lastIDs)
	}
}

// TestSSEStreamStartingWithBOM connects to an HTTP+SSE server whose stream
// begins with a byte order mark, which the event stream format strips. It
// used to make the first field name "\ufeffevent", so that the endpoint
// event was taken for one of another type and Connect failed.
func TestSSEStreamStartingWithBOM(t *testing.T) {
	checkLeaks(t)
	answers := make(chan string, 1)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusAccepted)
			answers <- legacyAnswer("2024-11-05", readBodyString(r))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "\ufeffevent: endpoint\ndata: /messages\n\n")
		w.(http.Flusher).Flush()
		select {
		case a := <-answers:
			io.WriteString(w, "data: "+a+"\n\n")
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
		<-r.Context().Done()
	})
	c := dial(t, SSE(srv.URL+"/sse", testHTTPOptions(t)))
	write(t, c, rpcReq(1, "ping", ""))
	if got := readMsg(t, c); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("answer = %s", got)
	}
}

// TestRequestAnsweredWithoutABody calls a server that answers a tools/call
// POST with 202 Accepted, 204 No Content or an empty 200, and connects to a
// URL that answers every POST with 202. Streamable HTTP answers a request
// with JSON or an event stream; these hold no response, and none comes
// elsewhere, so the request fails at once, naming the URL, instead of
// waiting out its timeout (the probe of Connect its 30 s).
func TestRequestAnsweredWithoutABody(t *testing.T) {
	checkLeaks(t)
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		switch m.Params.Name {
		case "accepted":
			w.WriteHeader(http.StatusAccepted)
		case "no-content":
			w.WriteHeader(http.StatusNoContent)
		case "empty":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
		}
	})
	const callTimeout = 60 * time.Second
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, testHTTPOptions(t)), &Options{CallTimeout: callTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tool := range []string{"accepted", "no-content", "empty"} {
		start := time.Now()
		_, err := s.CallTool(context.Background(), tool, nil)
		var te *TimeoutError
		if err == nil || errors.As(err, &te) || !strings.Contains(err.Error(), "no response") || !strings.Contains(err.Error(), srv.URL) {
			t.Errorf("%s: err = %v after %v; want the answer refused at once, naming the URL", tool, err, time.Since(start))
		}
	}

	// A URL that is no MCP endpoint, accepting every POST.
	sink := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, err = Connect(ctx, StreamableHTTP(sink.URL, testHTTPOptions(t)), nil)
	var pe *ProbeTimeoutError
	if err == nil || errors.As(err, &pe) || ctx.Err() != nil || !strings.Contains(err.Error(), "no response") {
		t.Errorf("connecting to a URL that accepts every POST: %v (context: %v); want the answer refused at once", err, ctx.Err())
	}
}

// TestRetryOfDaysIsKept reads retry fields of 30 days and of years: the
// reconnection waits the longest the connection allows, 30 s, as for a
// retry of a day. Before, a value past 2^31-1 ms (24.8 days) was ignored,
// so that the server that asked for the longest wait got the shortest,
// the 1 s of the connection's own backoff.
func TestRetryOfDaysIsKept(t *testing.T) {
	for _, ms := range []string{"86400000", "2592000000", "31536000000", "99999999999999999999999"} {
		r := sse.NewReader(strings.NewReader("retry: "+ms+"\nid: 1\ndata: {}\n\n"), 0)
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		if d := retryDelay(r, 0); d != maxRetry {
			t.Errorf("retry: %s: reconnection after %v, want %v", ms, d, maxRetry)
		}
		r.Release()
	}
}

// TestProbeAnsweredWithoutABodyFallsBack: a 2025-11-25 server that takes
// the unknown server/discover for a notification answers it 202. That
// answer cannot hold a response, so the probe fails at once, and like a
// legacy server's refusal of it, it leads to the 2025-11-25 handshake
// rather than ending Connect.
func TestProbeAnsweredWithoutABodyFallsBack(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch m.Method {
		case "initialize":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"1"}}}`, m.ID))
		case "tools/list":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`, m.ID))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Connect(ctx, StreamableHTTP(srv.URL, testHTTPOptions(t)), nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer s.Close()
	if v := s.ProtocolVersion(); v != "2025-11-25" {
		t.Errorf("negotiated %q, want 2025-11-25", v)
	}
	if tools, err := s.ListTools(ctx); err != nil || len(tools) != 1 {
		t.Errorf("ListTools = %v, %v", tools, err)
	}
}
