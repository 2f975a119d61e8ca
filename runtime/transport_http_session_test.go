package runtime

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// streamableServer is a Streamable HTTP MCP server with one tool, echo, in
// the legacy era (with sessions) or the modern one. Legacy servers answer
// server/discover with a plain 400, as the TypeScript SDK does.
type streamableServer struct {
	*httpServer
	modern  bool
	useSSE  bool         // answer requests with SSE streams
	session atomic.Int32 // current session number; 0 before initialize
	cutNext atomic.Bool  // cut the next tools/call stream after a priming event

	mu      sync.Mutex
	pending map[string]string // event id after which a cut response resumes
}

func newStreamableServer(t *testing.T, modern, useSSE bool) *streamableServer {
	s := &streamableServer{modern: modern, useSSE: useSSE, pending: make(map[string]string)}
	s.httpServer = newHTTPServer(t, s.serve)
	return s
}

func (s *streamableServer) sessionID() string { return fmt.Sprintf("session-%d", s.session.Load()) }

// expire makes the server forget the current session.
func (s *streamableServer) expire() { s.session.Add(100) }

func (s *streamableServer) serve(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		last := r.Header.Get("Last-Event-Id")
		s.mu.Lock()
		resp, ok := s.pending[last]
		delete(s.pending, last)
		s.mu.Unlock()
		if s.modern || !ok {
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		startSSE(w).event("id: resumed-"+last, "data: "+resp)
		return
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	}
	body := readBodyString(r)
	method := ""
	if i := strings.Index(body, `"method":"`); i >= 0 {
		method = body[i+10:]
		method = method[:strings.IndexByte(method, '"')]
	}
	if s.modern {
		if r.Header.Get("Mcp-Method") != method && idOf(body) != "" {
			writeJSON(w, 400, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"error":{"code":-32020,"message":"header mismatch"}}`)
			return
		}
		if method == "server/discover" {
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern-test","version":"1"}},"ttlMs":0,"cacheScope":"public"}}`)
			return
		}
	} else {
		switch {
		case method == "initialize":
			n := s.session.Add(1)
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("session-%d", n))
		case r.Header.Get("Mcp-Session-Id") == "":
			http.Error(w, "Bad Request: Server not initialized", http.StatusBadRequest)
			return
		case r.Header.Get("Mcp-Session-Id") != s.sessionID():
			http.Error(w, "Session not found", http.StatusNotFound)
			return
		}
	}
	answer := legacyAnswer("2025-06-18", body)
	if answer == "" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if s.modern {
		answer = strings.Replace(answer, `"result":{`, `"result":{"resultType":"complete",`, 1)
	}
	if !s.useSSE {
		writeJSON(w, 200, answer)
		return
	}
	st := startSSE(w)
	if method == "tools/call" && s.cutNext.CompareAndSwap(true, false) {
		eventID := "cut-" + idOf(body)
		s.mu.Lock()
		s.pending[eventID] = answer
		s.mu.Unlock()
		st.event("id: "+eventID, "retry: 100", "data:")
		return
	}
	st.event(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}`)
	st.event("data: " + answer)
}

// checkEcho lists the tools and calls echo through s.
func checkEcho(t *testing.T, s *Session) {
	t.Helper()
	ctx := testenv.Context(t)
	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if len(tools) != 1 || tools[0].Name != "echo" {
		t.Fatalf("ListTools = %+v", tools)
	}
	res, err := s.CallTool(ctx, "echo", map[string]string{"message": "hi"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if res.Text() != "Echo: hi" {
		t.Fatalf("CallTool text = %q", res.Text())
	}
}

func connectHTTP(t *testing.T, tr Transport) *Session {
	t.Helper()
	ctx := testenv.Context(t)
	s, err := Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSessionOverHTTPTransports(t *testing.T) {
	tests := []struct {
		name        string
		server      func(t *testing.T) *httpServer
		transport   func(url string, opts *HTTPOptions) Transport
		path        string
		wantVersion string
	}{
		{"streamable legacy JSON", func(t *testing.T) *httpServer { return newStreamableServer(t, false, false).httpServer }, StreamableHTTP, "/mcp", "2025-06-18"},
		{"streamable legacy SSE", func(t *testing.T) *httpServer { return newStreamableServer(t, false, true).httpServer }, StreamableHTTP, "/mcp", "2025-06-18"},
		{"streamable modern JSON", func(t *testing.T) *httpServer { return newStreamableServer(t, true, false).httpServer }, StreamableHTTP, "/mcp", "2026-07-28"},
		{"streamable modern SSE", func(t *testing.T) *httpServer { return newStreamableServer(t, true, true).httpServer }, StreamableHTTP, "/mcp", "2026-07-28"},
		{"HTTP+SSE", func(t *testing.T) *httpServer { return newSSEServer(t).httpServer }, SSE, "/sse", "2024-11-05"},
		{"auto to streamable legacy", func(t *testing.T) *httpServer { return newStreamableServer(t, false, true).httpServer }, HTTP, "/mcp", "2025-06-18"},
		{"auto to streamable modern", func(t *testing.T) *httpServer { return newStreamableServer(t, true, false).httpServer }, HTTP, "/mcp", "2026-07-28"},
		{"auto to HTTP+SSE", func(t *testing.T) *httpServer { return newSSEServer(t).httpServer }, HTTP, "/sse", "2024-11-05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLeaks(t)
			srv := tt.server(t)
			s := connectHTTP(t, tt.transport(srv.URL+tt.path, testHTTPOptions(t)))
			if v := s.ProtocolVersion(); v != tt.wantVersion {
				t.Errorf("ProtocolVersion = %s, want %s", v, tt.wantVersion)
			}
			checkEcho(t, s)
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			reqs := srv.requests()
			last := reqs[len(reqs)-1]
			switch tt.wantVersion {
			case "2025-06-18":
				if last.Method != http.MethodDelete || last.Header.Get("Mcp-Session-Id") == "" {
					t.Errorf("last request %s %s, want DELETE with the session id", last.Method, last.Path)
				}
			case "2026-07-28":
				for _, r := range reqs {
					if r.Method != http.MethodPost {
						t.Errorf("modern session sent %s", r.Method)
					}
				}
			}
		})
	}
}

// TestSessionReinitializesAfterExpiry checks the 404 path end to end: the
// Session initializes again and the call succeeds.
func TestSessionReinitializesAfterExpiry(t *testing.T) {
	checkLeaks(t)
	srv := newStreamableServer(t, false, true)
	s := connectHTTP(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	checkEcho(t, s)
	srv.expire()
	checkEcho(t, s)
	if got := srv.session.Load(); got != 102 {
		t.Errorf("server session number = %d, want a second initialize", got)
	}
}

// TestSessionResumesCutStream cuts a tools/call stream after its priming
// event; the call still returns its result, through GET + Last-Event-ID.
func TestSessionResumesCutStream(t *testing.T) {
	checkLeaks(t)
	srv := newStreamableServer(t, false, true)
	s := connectHTTP(t, StreamableHTTP(srv.URL, testHTTPOptions(t)))
	srv.cutNext.Store(true)
	start := time.Now()
	checkEcho(t, s)
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("the call returned after %v, sooner than the retry interval", d)
	}
	resumed := false
	for _, r := range srv.requests() {
		if r.Method == http.MethodGet && strings.HasPrefix(r.Header.Get("Last-Event-Id"), "cut-") {
			resumed = true
		}
	}
	if !resumed {
		t.Error("no GET with Last-Event-ID")
	}
}

func TestSessionHTTP500(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream exploded", http.StatusInternalServerError)
	})
	ctx := testenv.Context(t)
	_, err := Connect(ctx, HTTP(srv.URL, testHTTPOptions(t)), nil)
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 500 || !strings.Contains(err.Error(), "upstream exploded") {
		t.Fatalf("Connect error = %v, want the HTTP 500", err)
	}
}
