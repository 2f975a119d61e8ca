package runtime

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestLegacyFirstListingOneConnection checks that the handshake and the
// first listing of a legacy session, and the GET for server messages after
// them, go over one HTTP connection against a server that answers every
// POST with an event stream and ends it a little after the response, as
// go-sdk's does: notifications/initialized waits for the end of
// initialize's stream, and the GET for the end of the listing's, instead
// of opening a connection beside a stream that still holds one. A session
// without a session id sends notifications/initialized beside the listing,
// which saves the listing a round trip for a second connection. With the
// process's shared clients, the first GET to an endpoint goes over the
// pooled connections of requests too, not the stream client's (see
// getStreamOffered).
func TestLegacyFirstListingOneConnection(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		for _, shared := range []bool{false, true} {
			name := map[bool]string{false: "stateless", true: "stateful"}[stateful] + map[bool]string{false: "", true: " shared clients"}[shared]
			t.Run(name, func(t *testing.T) {
				opts := testHTTPOptions(t)
				if shared {
					opts = nil
					t.Cleanup(func() {
						sharedHTTPClient().CloseIdleConnections()
						sharedStreamClient().CloseIdleConnections()
					})
				}
				// A request that follows a stream's end takes the
				// connection once net/http has put it back in its pool, a
				// moment after the client read the end; one sent within
				// that moment dials. So one of a few sessions must use one
				// connection throughout: a client that sends beside the
				// stream, as before, fails them all.
				var last []string
				for range 5 {
					conns, one := testLegacyFirstListingOneConnection(t, stateful, opts)
					if one {
						return
					}
					last = conns
				}
				t.Fatalf("every session used more than one connection; the last:\n%s", strings.Join(last, "\n"))
			})
		}
	}
}

// testLegacyFirstListingOneConnection runs one session and returns the
// connections its requests and its GET used, and whether they were as few
// as they can be.
func testLegacyFirstListingOneConnection(t *testing.T, stateful bool, opts *HTTPOptions) (used []string, one bool) {
	defer func(d time.Duration) { handshakeStreamWait = d }(handshakeStreamWait)
	handshakeStreamWait = testenv.WaitLimit(t)
	// tail is how long the server keeps a stream open after its response,
	// unless a request arrives meanwhile on another connection: what a
	// client sends without waiting for the stream's end arrives then.
	const tail = 200 * time.Millisecond
	var mu sync.Mutex
	var conns []string // "METHOD method via remote address", in order
	otherConn := make(chan struct{}, 16)
	gotGet := make(chan struct{})
	var getOnce sync.Once
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		body := readBodyString(r)
		what := r.Method
		if i := strings.Index(body, `"method":"`); i >= 0 {
			what += " " + strings.SplitN(body[i+10:], `"`, 2)[0]
		}
		mu.Lock()
		if len(conns) > 0 && !strings.HasSuffix(conns[0], r.RemoteAddr) {
			select {
			case otherConn <- struct{}{}:
			default:
			}
		}
		conns = append(conns, what+" via "+r.RemoteAddr)
		mu.Unlock()
		switch r.Method {
		case http.MethodGet:
			getOnce.Do(func() { close(gotGet) })
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		case http.MethodDelete:
			w.WriteHeader(http.StatusOK)
			return
		}
		var result string
		switch {
		case strings.Contains(body, `"initialize"`):
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`
		case !strings.Contains(body, `"id"`):
			w.WriteHeader(http.StatusAccepted)
			return
		default:
			result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`
		}
		var hdr []string
		if stateful {
			hdr = []string{"Mcp-Session-Id", "s1"}
		}
		sw := startSSE(w, hdr...)
		sw.event(`data: {"jsonrpc":"2.0","id":` + idOf(body) + `,"result":` + result + `}`)
		tm := time.NewTimer(tail)
		defer tm.Stop()
		select {
		case <-otherConn:
		case <-tm.C:
		case <-r.Context().Done():
		}
	})
	s := connectLegacyAndList(t, srv.URL+"/mcp", opts)
	defer s.Close()
	select {
	case <-gotGet:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("no GET stream was requested after the first listing")
	}
	mu.Lock()
	defer mu.Unlock()
	// A stateless session's notifications/initialized goes out beside
	// the listing, on a connection of its own (see streamableConn.Write):
	// two in all.
	want := 1
	if !stateful {
		want = 2
	}
	addrs := map[string]bool{}
	for _, c := range conns {
		if !strings.HasPrefix(c, http.MethodDelete) {
			addrs[c[strings.LastIndex(c, " ")+1:]] = true
		}
	}
	return slices.Clone(conns), len(addrs) <= want
}

// TestGetStreamRemembered checks that an endpoint whose server answered the
// GET with a stream is remembered, so that the GETs of later sessions to
// it take the stream client, whose connections are cheap to hold open.
func TestGetStreamRemembered(t *testing.T) {
	opened := make(chan struct{}, 1)
	srv := newLegacyListServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		select {
		case opened <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}, func(answer func()) { answer() })
	key := endpointKey(srv.URL + "/mcp")
	if offersGetStream(key) {
		t.Fatal("a new endpoint is remembered as offering the GET stream")
	}
	ctx := testenv.Context(t)
	s := connectLegacyAndList(t, srv.URL+"/mcp", testHTTPOptions(t))
	defer s.Close()
	select {
	case <-opened:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("no GET stream was opened")
	}
	// The client records the stream once it has its answer's headers,
	// after the server sent them.
	for !offersGetStream(key) {
		select {
		case <-ctx.Done():
			t.Fatal("the endpoint is not remembered as offering the GET stream")
		case <-time.After(time.Millisecond):
		}
	}
}

// connectLegacyAndList connects to the Streamable HTTP endpoint url pinned
// to the 2025-11-25 era and lists the tools once; the caller closes the
// session.
func connectLegacyAndList(t *testing.T, url string, opts *HTTPOptions) *Session {
	t.Helper()
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(url, opts), &Options{ProtocolVersion: LatestLegacyProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTools(ctx); err != nil {
		s.Close()
		t.Fatal(err)
	}
	return s
}
