package runtime

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

func TestStreamableModernHeadersAndJSON(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(readBodyString(r))+`,"result":{"resultType":"complete"}}`)
	})
	c := dial(t, StreamableHTTP(srv.URL+"/mcp", testHTTPOptions(t)))
	m := rpcReq(7, "tools/call", "2026-07-28")
	m.Name = "Hello, 世界"
	write(t, c, m)
	if got := readMsg(t, c); !strings.Contains(got, `"id":7`) {
		t.Fatalf("Read = %s", got)
	}
	write(t, c, rpcReq(8, "tools/list", "2026-07-28"))
	readMsg(t, c)

	reqs := srv.requests()
	h := reqs[0].Header
	want := map[string]string{
		"Accept":               "application/json, text/event-stream",
		"Content-Type":         "application/json",
		"Mcp-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "=?base64?SGVsbG8sIOS4lueVjA==?=",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if reqs[1].Header.Get("Mcp-Name") != "" || reqs[1].Header.Get("Mcp-Method") != "tools/list" {
		t.Errorf("tools/list headers: %v", reqs[1].Header)
	}
	c.Close()
	for _, r := range srv.requests() {
		if r.Method != http.MethodPost {
			t.Errorf("modern connection sent %s", r.Method)
		}
		if r.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("modern request carried a session id")
		}
	}
}

func readBodyString(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

func TestStreamableLegacySession(t *testing.T) {
	checkLeaks(t)
	var sessionN atomic.Int32
	getStream := make(chan struct{}, 1)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		current := "s" + string(rune('0'+sessionN.Load()))
		switch r.Method {
		case http.MethodDelete:
			w.WriteHeader(http.StatusOK)
			return
		case http.MethodGet:
			if sid != current {
				http.Error(w, "no session", http.StatusBadRequest)
				return
			}
			s := startSSE(w)
			s.event(`data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			getStream <- struct{}{}
			<-r.Context().Done()
			return
		}
		body := readBodyString(r)
		switch {
		case strings.Contains(body, `"initialize"`):
			n := sessionN.Add(1)
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"protocolVersion":"2025-06-18"}}`,
				"Mcp-Session-Id", "s"+string(rune('0'+n)))
		case sid != current:
			http.Error(w, "session not found", http.StatusNotFound)
		case !strings.Contains(body, `"id"`):
			w.WriteHeader(http.StatusAccepted)
		default:
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{}}`)
		}
	})
	c := dial(t, StreamableHTTP(srv.URL+"/mcp", testHTTPOptions(t)))
	write(t, c, rpcReq(1, "initialize", ""))
	readMsg(t, c)
	write(t, c, rpcNote("notifications/initialized", "2025-06-18"))
	c.(HandshakeNotifier).HandshakeDone("2025-06-18")
	<-getStream
	if got := readMsg(t, c); !strings.Contains(got, "list_changed") {
		t.Fatalf("GET stream message = %s", got)
	}
	write(t, c, rpcReq(2, "tools/list", "2025-06-18"))
	readMsg(t, c)

	// The server forgets the session: 404 means ErrSessionExpired, and the
	// next initialize goes without the old id.
	sessionN.Add(1)
	err := c.Write(context.Background(), rpcReq(3, "tools/list", "2025-06-18"))
	if !errors.Is(err, ErrSessionExpired) {
		t.Fatalf("Write after expiry = %v, want ErrSessionExpired", err)
	}
	sessionN.Add(-1)
	write(t, c, rpcReq(4, "initialize", ""))
	readMsg(t, c)
	write(t, c, rpcReq(5, "tools/list", "2025-06-18"))
	readMsg(t, c)
	c.Close()

	reqs := srv.requests()
	var got []string
	for _, r := range reqs {
		got = append(got, r.Method+" "+r.Header.Get("Mcp-Session-Id")+" "+r.Header.Get("Mcp-Protocol-Version"))
	}
	want := []string{
		"POST  ",               // initialize
		"POST s1 2025-06-18",   // notifications/initialized
		"GET s1 2025-06-18",    // the GET stream
		"POST s1 2025-06-18",   // tools/list
		"POST s1 2025-06-18",   // 404
		"POST  ",               // initialize again, without the old id
		"POST s2 2025-06-18",   // tools/list
		"DELETE s2 2025-06-18", // Close
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStreamableSSEResponse(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		id := idOf(readBodyString(r))
		if id == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		s := startSSE(w)
		s.event(`id: p0`, `retry: 1000`, `data:`) // priming
		s.event(`: a comment`)
		s.event(`event: message`, `data: {"jsonrpc":"2.0","method":"notifications/progress",`, `data: "params":{"progressToken":1,"progress":1}}`)
		s.event(`data: {"jsonrpc":"2.0","id":"srv-1","method":"ping"}`)
		s.event(`data: {"jsonrpc":"2.0","id":` + id + `,"result":{"ok":true}}`)
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	write(t, c, rpcReq(3, "tools/call", "2025-11-25"))
	want := []string{
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\n\"params\":{\"progressToken\":1,\"progress\":1}}",
		`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"result":{"ok":true}}`,
	}
	for _, w := range want {
		if got := readMsg(t, c); got != w {
			t.Errorf("Read = %q, want %q", got, w)
		}
	}
	// The answer to the server's ping is a POST that gets 202.
	if err := c.Write(context.Background(), &OutMessage{Data: []byte(`{"jsonrpc":"2.0","id":"srv-1","result":{}}`), ID: `"srv-1"`, ProtocolVersion: "2025-11-25"}); err != nil {
		t.Fatal(err)
	}
}

func TestStreamableBatchPassesThrough(t *testing.T) {
	checkLeaks(t)
	const batch = `[{"jsonrpc":"2.0","method":"notifications/message","params":{}},{"jsonrpc":"2.0","id":1,"result":{}}]`
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sse" {
			startSSE(w).event("data: " + batch)
			return
		}
		writeJSON(w, 200, batch)
	})
	for _, path := range []string{"/json", "/sse"} {
		c := dial(t, StreamableHTTP(srv.URL+path, testHTTPOptions(t)))
		write(t, c, rpcReq(1, "tools/list", "2025-03-26"))
		if got := readMsg(t, c); got != batch {
			t.Errorf("%s: Read = %s", path, got)
		}
	}
}

func TestStreamableHTTPErrors(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		body := readBodyString(r)
		switch r.URL.Path {
		case "/500":
			http.Error(w, "internal trouble", http.StatusInternalServerError)
		case "/modern-400":
			writeJSON(w, 400, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}`)
		case "/404-method":
			writeJSON(w, 404, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"error":{"code":-32601,"message":"Method not found"}}`)
		case "/null-id":
			writeJSON(w, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`)
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html></html>")
		}
	})
	opts := testHTTPOptions(t)
	ctx := context.Background()

	c := dial(t, StreamableHTTP(srv.URL+"/500", opts))
	var he *HTTPError
	if err := c.Write(ctx, rpcReq(1, "tools/list", "2025-06-18")); !errors.As(err, &he) || he.StatusCode != 500 || string(he.Body) != "internal trouble" || he.Method != "POST" {
		t.Errorf("500: Write = %v", err)
	}

	for _, path := range []string{"/modern-400", "/404-method"} {
		c := dial(t, StreamableHTTP(srv.URL+path, opts))
		write(t, c, rpcReq(9, "server/discover", "2026-07-28"))
		if got := readMsg(t, c); !strings.Contains(got, `"error"`) || !strings.Contains(got, `"id":9`) {
			t.Errorf("%s: Read = %s, want the JSON-RPC error", path, got)
		}
	}

	c = dial(t, StreamableHTTP(srv.URL+"/null-id", opts))
	if err := c.Write(ctx, rpcReq(1, "server/discover", "2026-07-28")); !errors.As(err, &he) || he.StatusCode != 400 {
		t.Errorf("id-less error: Write = %v, want *HTTPError", err)
	}

	c = dial(t, StreamableHTTP(srv.URL+"/html", opts))
	if err := c.Write(ctx, rpcReq(1, "tools/list", "2025-06-18")); err == nil || !strings.Contains(err.Error(), "text/html") {
		t.Errorf("html: Write = %v", err)
	}
}

// TestStreamableResume cuts a POST stream after a notification; the
// connection must resume it with GET and Last-Event-ID, no sooner than the
// retry interval the server set.
func TestStreamableResume(t *testing.T) {
	checkLeaks(t)
	const retry = 150 * time.Millisecond
	var cutAt atomic.Int64
	var resumedAfter atomic.Int64
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			s := startSSE(w)
			s.event(`id: e1`, `retry: 150`, `data:`)
			s.event(`id: e2`, `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`)
			cutAt.Store(time.Now().UnixNano())
		case http.MethodGet:
			if r.Header.Get("Last-Event-Id") != "e2" {
				http.Error(w, "want Last-Event-ID e2", http.StatusBadRequest)
				return
			}
			resumedAfter.Store(time.Now().UnixNano() - cutAt.Load())
			s := startSSE(w)
			s.event(`id: e3`, `data: {"jsonrpc":"2.0","id":4,"result":{"resumed":true}}`)
			// The server keeps the stream open; the client closes it.
			<-r.Context().Done()
		}
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	write(t, c, rpcReq(4, "tools/call", "2025-11-25"))
	if got := readMsg(t, c); !strings.Contains(got, "progress") {
		t.Fatalf("first message = %s", got)
	}
	if got := readMsg(t, c); got != `{"jsonrpc":"2.0","id":4,"result":{"resumed":true}}` {
		t.Fatalf("resumed message = %s", got)
	}
	if d := time.Duration(resumedAfter.Load()); d < retry {
		t.Errorf("resumed after %v, before the retry interval %v", d, retry)
	}
}

// TestStreamableResumeGivesUp checks the bound on resumption attempts.
func TestStreamableResumeGivesUp(t *testing.T) {
	checkLeaks(t)
	var gets atomic.Int32
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			gets.Add(1)
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		startSSE(w).event(`id: e1`, `retry: 5`, `data:`)
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	write(t, c, rpcReq(4, "tools/call", "2025-11-25"))
	err := readErr(t, c)
	var re *RequestError
	if !errors.As(err, &re) || re.ID != "4" || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Read error = %v, want a *RequestError for request 4", err)
	}
	if n := gets.Load(); n != maxResumeAttempts {
		t.Errorf("%d resumption attempts, want %d", n, maxResumeAttempts)
	}
}

// TestStreamableModernCutStream checks that a modern stream is never resumed:
// the request fails.
func TestStreamableModernCutStream(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			t.Errorf("modern connection sent GET")
			return
		}
		s := startSSE(w)
		s.event(`id: e1`, `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)
		io.WriteString(w, `data: {"jsonrpc":"2.0","id":5,"res`) // cut mid-event
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	write(t, c, rpcReq(5, "tools/call", "2026-07-28"))
	readMsg(t, c)
	var re *RequestError
	if err := readErr(t, c); !errors.As(err, &re) || re.ID != "5" {
		t.Fatalf("Read error = %v, want a *RequestError for request 5", err)
	}
}

func TestStreamableOversize(t *testing.T) {
	checkLeaks(t)
	big := strings.Repeat("x", 3000)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		id := idOf(readBodyString(r))
		switch r.URL.Path {
		case "/json":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{"text":"`+big+`"}}`)
		case "/chunked":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,`)
			w.(http.Flusher).Flush()
			io.WriteString(w, `"result":{"text":"`+big+`"}}`)
		case "/sse":
			s := startSSE(w)
			s.event(`data: {"result":{"text":"` + big + `"},"jsonrpc":"2.0","id":` + id + `}`)
		}
	})
	opts := testHTTPOptions(t)
	opts.MaxMessageSize = 1000
	var tl *MessageTooLargeError
	for _, path := range []string{"/json", "/chunked"} {
		for _, limit := range []int{100, 1000} {
			opts.MaxMessageSize = limit
			c := dial(t, StreamableHTTP(srv.URL+path, opts))
			if err := c.Write(context.Background(), rpcReq(1, "tools/call", "2025-06-18")); !errors.As(err, &tl) || tl.Limit != limit || !strings.HasPrefix(string(tl.Prefix), `{"jsonrpc":"2.0","id":1`[:min(limit, 23)]) {
				t.Errorf("oversize JSON from %s, limit %d: Write = %v", path, limit, err)
			}
		}
	}
	opts.MaxMessageSize = 1000

	c := dial(t, StreamableHTTP(srv.URL+"/sse", opts))
	write(t, c, rpcReq(2, "tools/call", "2025-06-18"))
	err := readErr(t, c)
	var re *RequestError
	if !errors.As(err, &re) || re.ID != "2" || !errors.As(err, &tl) || !strings.HasSuffix(string(tl.Suffix), `"id":2}`) {
		t.Fatalf("oversize event: Read = %v", err)
	}
	// Only that request failed: the connection goes on.
	c2 := dial(t, StreamableHTTP(srv.URL+"/sse", testHTTPOptions(t)))
	write(t, c2, rpcReq(3, "tools/call", "2025-06-18"))
	readMsg(t, c2)
}

// TestStreamableTrickle sends one byte a second: neither headers that never
// end nor a body that never completes may outlive the request's context.
func TestStreamableTrickle(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/headers" {
			// Never send the headers.
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		startSSE(w)
		for {
			if _, err := io.WriteString(w, ":"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
		}
	})
	c := dial(t, StreamableHTTP(srv.URL+"/headers", testHTTPOptions(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := c.Write(ctx, rpcReq(1, "tools/call", "2025-06-18")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Write with no headers = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second+loadSlack {
		t.Errorf("Write took %v", d)
	}

	c = dial(t, StreamableHTTP(srv.URL+"/body", testHTTPOptions(t)))
	ctx2, cancel2 := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel2()
	if err := c.Write(ctx2, rpcReq(2, "tools/call", "2025-06-18")); err != nil {
		t.Fatal(err)
	}
	// Nothing useful arrives; Read gives up with its own context.
	if _, err := c.Read(ctx2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read = %v, want DeadlineExceeded", err)
	}
	// Close returns promptly, and checkLeaks sees the stream's goroutine gone.
	start = time.Now()
	c.Close()
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v", d)
	}
}

// TestStreamableCloseUnblocks checks that Close ends a blocked Read and an
// open stream whose request context lives on.
func TestStreamableCloseUnblocks(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		<-r.Context().Done()
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	write(t, c, rpcReq(1, "tools/call", "2025-06-18"))
	done := make(chan error)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Read after Close = %v", err)
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("Close did not unblock Read")
	}
	if err := c.Write(context.Background(), rpcReq(2, "tools/list", "2025-06-18")); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v", err)
	}
}

// TestStreamableGETStreamNotOffered checks that a 405 on GET is fine.
func TestStreamableGETStreamNotOffered(t *testing.T) {
	checkLeaks(t)
	got := make(chan struct{}, 1)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			select {
			case got <- struct{}{}:
			default:
			}
			return
		}
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	c.(HandshakeNotifier).HandshakeDone("2025-06-18")
	// The GET is refused before the call, however long it takes to go out.
	select {
	case <-got:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("no GET after the handshake")
	}
	write(t, c, rpcReq(1, "tools/list", "2025-06-18"))
	readMsg(t, c)
	c.Close()
	n := 0
	for _, r := range srv.requests() {
		if r.Method == http.MethodGet {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d GET requests, want 1", n)
	}
}

// TestStreamableConnectionReuse checks that SSE responses leave the HTTP
// connection reusable.
func TestStreamableConnectionReuse(t *testing.T) {
	checkLeaks(t)
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := idOf(readBodyString(r))
		startSSE(w).event(`data: {"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	opts := testHTTPOptions(t)
	ends := make(chan error, 1)
	opts.Client.Transport = bodyEndTransport{opts.Client.Transport, ends}
	c := dial(t, StreamableHTTP(srv.URL, opts))
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := c.Write(ctx, rpcReq(i+1, "tools/call", "2025-06-18")); err != nil {
			t.Fatal(err)
		}
		readMsg(t, c)
		cancel() // as the Session does once the call returns
		// net/http puts the connection back in its pool before a body's
		// Read returns io.EOF, so once the stream's end has been read the
		// next call must find it there.
		select {
		case err := <-ends:
			if err != io.EOF {
				t.Fatalf("call %d: response stream ended with %v, not io.EOF", i+1, err)
			}
		case <-testenv.Context(t).Done():
			t.Fatalf("call %d: the response stream's end was never read", i+1)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("20 calls opened %d connections, want 1", n)
	}
}

// bodyEndTransport reports on ends how each POST's response body ended:
// the error its Read returned first, or errBodyClosed when it was closed
// before that.
type bodyEndTransport struct {
	base http.RoundTripper
	ends chan<- error
}

var errBodyClosed = errors.New("body closed before its end was read")

func (t bodyEndTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost {
		resp.Body = &endReportingBody{ReadCloser: resp.Body, ends: t.ends}
	}
	return resp, err
}

type endReportingBody struct {
	io.ReadCloser
	ends chan<- error
	once sync.Once
}

func (b *endReportingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.report(err)
	}
	return n, err
}

func (b *endReportingBody) Close() error {
	b.report(errBodyClosed)
	return b.ReadCloser.Close()
}

func (b *endReportingBody) report(err error) {
	b.once.Do(func() { b.ends <- err })
}

// TestStreamableGETStreamReconnects checks that the GET stream is reopened
// after the server closes it, with Last-Event-ID and after its retry
// interval, and that its messages reach Read.
func TestStreamableGETStreamReconnects(t *testing.T) {
	checkLeaks(t)
	var gets atomic.Int32
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		switch gets.Add(1) {
		case 1:
			s := startSSE(w)
			s.event("id: g1", "retry: 30", `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			// The server ends the stream, as SSE polling does.
		case 2:
			if r.Header.Get("Last-Event-Id") != "g1" {
				http.Error(w, "want Last-Event-ID g1", http.StatusBadRequest)
				return
			}
			s := startSSE(w)
			s.event("id: g2", `data: {"jsonrpc":"2.0","id":"s1","method":"ping"}`)
			<-r.Context().Done()
		default:
			http.Error(w, "too many GETs", http.StatusBadRequest)
		}
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	c.(HandshakeNotifier).HandshakeDone("2025-11-25")
	if got := readMsg(t, c); !strings.Contains(got, "list_changed") {
		t.Fatalf("first GET stream message = %s", got)
	}
	if got := readMsg(t, c); !strings.Contains(got, `"ping"`) {
		t.Fatalf("second GET stream message = %s", got)
	}
	if n := gets.Load(); n != 2 {
		t.Errorf("%d GET requests, want 2", n)
	}
}

// TestStreamableModernCancelClosesStream checks that ending the caller's
// context before the response closes the request's stream, which is how a
// 2026-07-28 request is cancelled.
func TestStreamableModernCancelClosesStream(t *testing.T) {
	checkLeaks(t)
	disconnected := make(chan struct{})
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		startSSE(w).event(`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)
		<-r.Context().Done()
		close(disconnected)
	})
	c := dial(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	ctx, cancel := context.WithCancel(context.Background())
	if err := c.Write(ctx, rpcReq(1, "tools/call", "2026-07-28")); err != nil {
		t.Fatal(err)
	}
	readMsg(t, c)
	cancel()
	select {
	case <-disconnected:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the server never saw the stream close")
	}
}

// Neither Connect nor the first listing waits for the server's answer to
// the GET stream, a round trip of its own before the first request: a
// stateless legacy server (no Mcp-Session-Id) cannot route anything a
// request causes to this client's GET stream, and a listing makes a
// stateful one send nothing there. The server here answers the GET only
// once it has the listing.
func TestLegacyListingSkipsGetWait(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateless", true: "stateful"}[stateful], func(t *testing.T) {
			listed := make(chan struct{})
			var listOnce sync.Once
			srv := newLegacyListServer(t, stateful, func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-listed:
					w.WriteHeader(http.StatusMethodNotAllowed)
				case <-r.Context().Done():
				}
			}, func(answer func()) {
				answer()
				listOnce.Do(func() { close(listed) })
			})
			start := time.Now()
			s, err := Connect(context.Background(), StreamableHTTP(srv.URL+"/mcp", testHTTPOptions(t)), &Options{ProtocolVersion: LatestLegacyProtocolVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.ListTools(context.Background()); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took >= getOpenWait {
				t.Errorf("Connect and the first listing took %v, with the GET answered only after the listing: they waited for it", took)
			}
		})
	}
}

// newLegacyListServer serves a 2025-11-25 server that lists no tools, with
// a session id when stateful. onGet answers the GET stream. onList is given
// each listing's answer to write, so that it can act before or after it.
func newLegacyListServer(t *testing.T, stateful bool, onGet http.HandlerFunc, onList func(answer func())) *httpServer {
	return newLegacyServer(t, stateful, onGet, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}, onList)
}

// newLegacyServer is newLegacyListServer with onNotify answering every
// notification.
func newLegacyServer(t *testing.T, stateful bool, onGet, onNotify http.HandlerFunc, onList func(answer func())) *httpServer {
	return newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			onGet(w, r)
			return
		case http.MethodDelete:
			w.WriteHeader(http.StatusOK)
			return
		}
		body := readBodyString(r)
		switch {
		case strings.Contains(body, `"initialize"`):
			var hdr []string
			if stateful {
				hdr = []string{"Mcp-Session-Id", "s1"}
			}
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, hdr...)
		case !strings.Contains(body, `"id"`):
			onNotify(w, r)
		default:
			onList(func() { writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"tools":[]}}`) })
		}
	})
}

// TestLegacyGetFollowsFirstAnswer checks that the GET stream of a legacy
// session, stateful or not, goes out once the first request after the
// handshake, a listing, has been answered, not beside it: the listing then
// costs no second connection, and the server no stream, before its answer.
func TestLegacyGetFollowsFirstAnswer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stateful bool
	}{{"stateless", false}, {"stateful", true}} {
		stateful := tc.stateful
		t.Run(tc.name, func(t *testing.T) {
			var listed atomic.Bool
			early := make(chan bool, 1)
			gotGet := make(chan struct{})
			var getOnce sync.Once
			srv := newLegacyListServer(t, stateful, func(w http.ResponseWriter, _ *http.Request) {
				select {
				case early <- !listed.Load():
				default:
				}
				getOnce.Do(func() { close(gotGet) })
				w.WriteHeader(http.StatusMethodNotAllowed)
			}, func(answer func()) {
				// A GET sent beside the listing arrives meanwhile; one sent
				// after its answer cannot, and nothing signals that none
				// is coming, so the wait is bounded by time.
				select {
				case <-gotGet:
				case <-time.After(100 * time.Millisecond):
				}
				listed.Store(true)
				answer()
			})
			s := connectLegacyAndList(t, srv.URL+"/mcp", testHTTPOptions(t))
			defer s.Close()
			select {
			case wasEarly := <-early:
				if wasEarly {
					t.Error("the GET stream was requested before the first listing was answered")
				}
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatal("no GET stream was requested after the first listing")
			}
		})
	}
}

// A GET held back until the first answer costs a timer, not a goroutine:
// after the handshake no goroutine of the GET stream runs yet, and the
// first listing's answer starts the one that sends the GET. The servers
// are a stateful fake that answers the GET with 405 and the stateful go-sdk
// server, which opens the stream.
func TestHeldGetStartsNoGoroutine(t *testing.T) {
	for _, tc := range []struct {
		name string
		// serve returns the endpoint's URL and reports whether the GET
		// has been sent.
		serve func(t *testing.T) (string, func(*Session) bool)
	}{
		{"fake", func(t *testing.T) (string, func(*Session) bool) {
			var got atomic.Bool
			srv := newLegacyListServer(t, true, func(w http.ResponseWriter, _ *http.Request) {
				got.Store(true)
				w.WriteHeader(http.StatusMethodNotAllowed)
			}, func(answer func()) { answer() })
			return srv.URL + "/mcp", func(*Session) bool { return got.Load() }
		}},
		{"go-sdk", func(t *testing.T) (string, func(*Session) bool) {
			if testing.Short() {
				t.Skip("starts a real server")
			}
			return testenv.ServeSDKArgs(t, "-stateful"), func(s *Session) bool {
				return s.conn.(*streamableConn).getReader.Load() != nil
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, sent := tc.serve(t)
			ctx := testenv.Context(t)
			s, err := Connect(ctx, StreamableHTTP(url, testHTTPOptions(t)), &Options{ProtocolVersion: LatestLegacyProtocolVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// A goroutine not yet run shows only its wrapper, named after
			// the function that started it.
			if n := goroutinesIn("runtime.(*streamableConn).listen(", "runtime.(*streamableConn).HandshakeDone"); n != 0 {
				t.Errorf("%d goroutines of the GET stream run before the first request; want none", n)
			}
			if _, err := s.ListTools(ctx); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the GET stream requested after the first listing", func() bool { return sent(s) })
		})
	}
}

// goroutinesIn counts the goroutines whose stack, or the line naming what
// created them, holds one of fns.
func goroutinesIn(fns ...string) int {
	buf := make([]byte, 1<<20)
	for {
		n := goruntime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, fn := range fns {
			if strings.Contains(g, fn) {
				count++
				break
			}
		}
	}
	return count
}

// A stateful legacy server drops what it sends on a GET stream that is
// not open yet, such as the list_changed a tool call causes: a tool call
// right after Connect waits for the server's answer to the GET, though
// the listing before it does not.
func TestStatefulLegacyCallWaitsForGetStream(t *testing.T) {
	for _, listFirst := range []bool{true, false} {
		t.Run(map[bool]string{true: "after a listing", false: "first"}[listFirst], func(t *testing.T) {
			testStatefulLegacyCallWaitsForGetStream(t, listFirst)
		})
	}
}

func testStatefulLegacyCallWaitsForGetStream(t *testing.T, listFirst bool) {
	const getDelay = 300 * time.Millisecond
	var mu sync.Mutex
	var push func(string) // set while the GET stream is open
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			w.WriteHeader(http.StatusOK)
			return
		case http.MethodGet:
			time.Sleep(getDelay) // a slow server
			events := make(chan string, 4)
			mu.Lock()
			push = func(line string) { events <- line }
			mu.Unlock()
			sw := startSSE(w)
			for {
				select {
				case e := <-events:
					sw.event(e)
				case <-r.Context().Done():
					return
				}
			}
		}
		body := readBodyString(r)
		switch {
		case strings.Contains(body, `"initialize"`):
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}`, "Mcp-Session-Id", "s1")
		case !strings.Contains(body, `"id"`):
			w.WriteHeader(http.StatusAccepted)
		case strings.Contains(body, `"tools/list"`):
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"tools":[{"name":"grow","inputSchema":{"type":"object"}}]}}`)
		default:
			mu.Lock()
			p := push
			mu.Unlock()
			text := "dropped"
			if p != nil {
				p(`data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
				text = "grown"
			}
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"content":[{"type":"text","text":"`+text+`"}]}}`)
		}
	})
	changed := make(chan struct{}, 1)
	ctx := testenv.Context(t)
	s, err := Connect(ctx, StreamableHTTP(srv.URL+"/mcp", testHTTPOptions(t)), &Options{
		ProtocolVersion: LatestLegacyProtocolVersion,
		OnToolsChanged:  signalTo(changed),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if listFirst {
		if _, err := s.ListTools(ctx); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.CallTool(ctx, "grow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != "grown" {
		t.Fatalf("the tool call reached the server before its GET stream was open: %q", res.Text())
	}
	select {
	case <-changed:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("no list_changed from the GET stream")
	}
}
