package runtime

import (
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestNoGetStreamAskedOnce connects three legacy sessions to a server that
// answers the GET for server messages with 405: the first sends the GET,
// the others do not. Once the server opens the stream, and the 405 is
// older than noGetStreamTTL, sessions send it again.
func TestNoGetStreamAskedOnce(t *testing.T) {
	checkLeaks(t)
	var offer atomic.Bool
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if !offer.Load() {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			startSSE(w)
			<-r.Context().Done()
			return
		}
		if r.Method == http.MethodDelete {
			return
		}
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			t.Error(err)
		}
		switch m.Method {
		case "server/discover":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"no"}}`)
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
		case "tools/list":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":[]}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	gets := func() int {
		n := 0
		for _, r := range srv.requests() {
			if r.Method == http.MethodGet {
				n++
			}
		}
		return n
	}
	session := func() {
		t.Helper()
		ctx := testenv.Context(t)
		s, err := Connect(ctx, StreamableHTTP(srv.URL, testHTTPOptions(t)), &Options{ProtocolVersion: LatestLegacyProtocolVersion})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListTools(ctx); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	for range 3 {
		session()
	}
	if n := gets(); n != 1 {
		t.Fatalf("three sessions sent %d GETs, want 1: the 405 is remembered", n)
	}

	// The 405 ages out; the server now offers the stream.
	offer.Store(true)
	key := endpointKey(srv.URL)
	noGetStream.put(key, time.Now().Add(-noGetStreamTTL))
	session()
	if n := gets(); n != 2 {
		t.Fatalf("after the 405 aged out, %d GETs in all, want 2", n)
	}
	if offersNoGetStream(key) {
		t.Error("the endpoint is still remembered as offering no GET stream after it opened one")
	}
}

// TestSessionlessGetWaitsForFirstRequest connects a legacy session to a
// server that gives no session id. Its GET for server messages went out
// alongside the first listing, which then waited for a second connection
// and for the server to answer both; now the GET waits until the listing
// has been answered, and goes out after it.
func TestSessionlessGetWaitsForFirstRequest(t *testing.T) {
	checkLeaks(t)
	var listed, getAfterList, gets atomic.Int32
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			gets.Add(1)
			if listed.Load() > 0 {
				getAfterList.Add(1)
			}
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			t.Error(err)
		}
		switch m.Method {
		case "initialize":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}`)
		case "tools/list":
			// Long enough that a GET sent alongside arrives first.
			time.Sleep(100 * time.Millisecond)
			listed.Add(1)
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":[]}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	url := srv.URL + "/mcp"
	noGetStream.forget(endpointKey(url))
	t.Cleanup(func() { noGetStream.forget(endpointKey(url)) })
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(url, testHTTPOptions(t)), &Options{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if gets.Load() != 1 || getAfterList.Load() != 1 {
		t.Errorf("%d GETs, %d of them after the listing was answered; want one, after it", gets.Load(), getAfterList.Load())
	}
}
