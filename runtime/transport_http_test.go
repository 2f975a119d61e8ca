package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"go.uber.org/goleak"
)

// checkLeaks fails the test if goroutines started during it outlive it. Call
// it first, so that its cleanup runs after the servers' and clients'.
func checkLeaks(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// httpRecord is one request a test server received.
type httpRecord struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   string
}

// httpServer is a test server running handler and recording requests.
type httpServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []httpRecord
}

// newHTTPServer starts a server whose requests are recorded before handler
// runs. The server and the test's idle client connections close when the
// test ends.
func newHTTPServer(t *testing.T, handler http.HandlerFunc) *httpServer {
	t.Helper()
	s := &httpServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, httpRecord{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		handler(w, r)
	}))
	forgetErasOf(s.URL)
	t.Cleanup(s.Close)
	return s
}

// requests returns the requests received so far.
func (s *httpServer) requests() []httpRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]httpRecord(nil), s.reqs...)
}

// testHTTPOptions returns options with a client of the test's own, whose
// idle connections close when the test ends.
func testHTTPOptions(t *testing.T) *HTTPOptions {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &HTTPOptions{Client: &http.Client{Transport: tr}}
}

// dial connects t to the transport and closes the connection at the end.
func dial(t *testing.T, tr Transport) Conn {
	t.Helper()
	ctx := testenv.Context(t)
	c, err := tr.Connect(ctx)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readMsg reads one message, failing the test if none comes before its
// deadline.
func readMsg(t *testing.T, c Conn) string {
	t.Helper()
	ctx := testenv.Context(t)
	b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return string(b)
}

// readErr reads and expects an error.
func readErr(t *testing.T, c Conn) error {
	t.Helper()
	ctx := testenv.Context(t)
	b, err := c.Read(ctx)
	if err == nil {
		t.Fatalf("Read returned %s, want an error", b)
	}
	return err
}

func rpcReq(id int, method string, version string) *OutMessage {
	return &OutMessage{
		Data:            []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`, id, method)),
		Method:          method,
		ID:              fmt.Sprint(id),
		ProtocolVersion: version,
	}
}

func rpcNote(method, version string) *OutMessage {
	return &OutMessage{
		Data:            []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method)),
		Method:          method,
		ProtocolVersion: version,
	}
}

// write writes m under a context that lasts as long as the test, as a
// response stream lives as long as the context of its request.
func write(t *testing.T, c Conn, m *OutMessage) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	if err := c.Write(ctx, m); err != nil {
		t.Fatalf("Write(%s): %v", m.Method, err)
	}
}

// sseWriter writes SSE events and flushes each.
type sseWriter struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter, header ...string) sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		w.Header().Set(header[i], header[i+1])
	}
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	return sseWriter{w}
}

// event writes an event made of the given raw lines.
func (s sseWriter) event(lines ...string) {
	for _, l := range lines {
		io.WriteString(s.w, l+"\n")
	}
	io.WriteString(s.w, "\n")
	s.w.(http.Flusher).Flush()
}

func writeJSON(w http.ResponseWriter, status int, body string, header ...string) {
	w.Header().Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		w.Header().Set(header[i], header[i+1])
	}
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// idOf extracts the id member of a request body, as JSON text.
func idOf(body string) string {
	i := strings.Index(body, `"id":`)
	if i < 0 {
		return ""
	}
	rest := body[i+5:]
	j := strings.IndexAny(rest, ",}")
	return rest[:j]
}

// logBuffer is a slog handler target that tests can search.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestEncodeHeaderValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"get_weather", "get_weather"},
		{"file:///a b.txt", "file:///a b.txt"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" lead", "=?base64?IGxlYWQ=?="},
		{"trail\t", "=?base64?dHJhaWwJ?="},
		{"line\nbreak", "=?base64?bGluZQpicmVhaw==?="},
		{"=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="},
	}
	for _, tt := range tests {
		if got := encodeHeaderValue(tt.in); got != tt.want {
			t.Errorf("encodeHeaderValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:pw@example.com/mcp?key=secret#frag", "https://example.com/mcp"},
		{"http://127.0.0.1:8123/messages?sessionId=abc", "http://127.0.0.1:8123/messages"},
		{"http://h/p", "http://h/p"},
		{"http://user:pw@h/%zz?x=1", "http://h/%zz"},
	}
	for _, tt := range tests {
		if got := redactURL(tt.in); got != tt.want {
			t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHTTPURLChecked(t *testing.T) {
	for _, u := range []string{"ftp://h/x", "/relative", "http://", "::"} {
		for name, tr := range map[string]Transport{
			"streamable": StreamableHTTP(u, nil), "sse": SSE(u, nil), "auto": HTTP(u, nil),
		} {
			if _, err := tr.Connect(context.Background()); err == nil {
				t.Errorf("%s Connect(%q) succeeded", name, u)
			}
		}
	}
}

func TestBearerEnvMissing(t *testing.T) {
	t.Setenv("MCPGEN_TEST_EMPTY_TOKEN", "")
	_, err := StreamableHTTP("http://127.0.0.1:1/mcp", &HTTPOptions{BearerEnv: "MCPGEN_TEST_EMPTY_TOKEN"}).Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "MCPGEN_TEST_EMPTY_TOKEN") {
		t.Fatalf("Connect error = %v, want one naming the variable", err)
	}
}

// TestSecretsNeverShown sends a token and a secret query parameter to
// servers that echo them back in errors, and checks every error string and
// log line.
func TestSecretsNeverShown(t *testing.T) {
	checkLeaks(t)
	const token = "tok-3f9a-SECRET-e1"
	const querySecret = "qs-SECRET-77"
	t.Setenv("MCPGEN_TEST_TOKEN", token)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		echo := r.Header.Get("Authorization") + " " + r.URL.RawQuery
		switch r.URL.Path {
		case "/unauthorized":
			http.Error(w, "bad credentials: "+echo, http.StatusUnauthorized)
		case "/sse":
			http.Error(w, "nope: "+echo, http.StatusNotFound)
		default:
			http.Error(w, "failure: "+echo, http.StatusInternalServerError)
		}
	})
	var logs logBuffer
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_TOKEN"
	opts.Logger = logs.logger()
	opts.Header = http.Header{"X-Api-Key": {"key-SECRET-123456"}}

	var errs []error
	for _, path := range []string{"/fail", "/unauthorized"} {
		for _, tr := range []Transport{StreamableHTTP(srv.URL+path+"?k="+querySecret, opts), HTTP(srv.URL+path+"?k="+querySecret, opts)} {
			c := dial(t, tr)
			errs = append(errs, c.Write(context.Background(), rpcReq(1, "initialize", "")))
			c.Close()
		}
	}
	_, err := SSE(srv.URL+"/sse?k="+querySecret, opts).Connect(context.Background())
	errs = append(errs, err)
	// Auto-detection tries HTTP+SSE after the 404, and logs why it failed.
	c := dial(t, HTTP(srv.URL+"/sse?k="+querySecret, opts))
	errs = append(errs, c.Write(context.Background(), rpcReq(1, "initialize", "")))
	c.Close()
	if !strings.Contains(logs.String(), "neither") {
		t.Errorf("no log of the failed detection:\n%s", logs.String())
	}
	// A refused connection: the *url.Error must not show the query.
	c = dial(t, StreamableHTTP("http://127.0.0.1:1/mcp?k="+querySecret, opts))
	errs = append(errs, c.Write(context.Background(), rpcReq(1, "initialize", "")))

	for _, err := range errs {
		if err == nil {
			t.Fatal("a request that should fail succeeded")
		}
		for _, secret := range []string{token, querySecret, "key-SECRET-123456"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error shows a secret: %v", err)
			}
		}
	}
	var he *HTTPError
	if !errors.As(errs[0], &he) || he.StatusCode != 500 || !strings.Contains(string(he.Body), "[REDACTED]") {
		t.Errorf("first error = %#v, want an HTTP 500 with the echoed token redacted", errs[0])
	}
	var ae *AuthError
	if !errors.As(errs[2], &ae) || !strings.Contains(ae.Error(), "$MCPGEN_TEST_TOKEN") {
		t.Errorf("401 error = %v, want an *AuthError naming the variable", errs[2])
	}
	if strings.Contains(logs.String(), token) || strings.Contains(logs.String(), querySecret) {
		t.Errorf("log shows a secret:\n%s", logs.String())
	}
	for _, r := range srv.requests() {
		if r.Header.Get("Authorization") != "Bearer "+token {
			t.Errorf("%s %s went without the bearer token", r.Method, r.Path)
		}
	}
}

func TestAuthErrorHints(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	})
	opts := testHTTPOptions(t)
	c := dial(t, HTTP(srv.URL, opts))
	err := c.Write(context.Background(), rpcReq(1, "initialize", ""))
	var ae *AuthError
	if !errors.As(err, &ae) || ae.StatusCode != 403 || !strings.Contains(err.Error(), "--bearer-env") {
		t.Fatalf("Write error = %v, want an *AuthError mentioning --bearer-env", err)
	}
	// The auto transport took 403 for what it is: no GET for HTTP+SSE.
	for _, r := range srv.requests() {
		if r.Method == http.MethodGet {
			t.Errorf("a 403 led to %s %s", r.Method, r.Path)
		}
	}
}

func TestRedirectsDropCredentialsOnHostChange(t *testing.T) {
	checkLeaks(t)
	t.Setenv("MCPGEN_TEST_TOKEN", "redirect-token-1234")
	other := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		case "/away":
			http.Redirect(w, r, other.URL+"/final", http.StatusTemporaryRedirect)
		default:
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		}
	})
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_TOKEN"
	opts.Header = http.Header{"x-api-key": {"header-secret-42"}, "X-Plain": {"v"}}
	for _, path := range []string{"/same", "/away"} {
		c := dial(t, StreamableHTTP(srv.URL+path, opts))
		write(t, c, rpcReq(1, "tools/list", "2025-06-18"))
		readMsg(t, c)
	}
	var final httpRecord
	for _, r := range srv.requests() {
		if r.Path == "/final" {
			final = r
		}
	}
	if final.Path != "/final" || final.Header.Get("Authorization") == "" || final.Header.Get("X-Api-Key") == "" {
		t.Errorf("same-host redirect lost credentials: %+v", final)
	}
	away := other.requests()
	if len(away) != 1 {
		t.Fatalf("other host got %d requests", len(away))
	}
	if away[0].Header.Get("Authorization") != "" || away[0].Header.Get("X-Api-Key") != "" || away[0].Header.Get("X-Plain") != "" {
		t.Errorf("redirect to another host kept credentials: %v", away[0].Header)
	}
	if away[0].Body == "" {
		t.Errorf("307 redirect lost the POST body")
	}
}
