package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// legacyAnswer is the logic of a small legacy MCP server with one tool,
// echo. It returns the response to a message, or "" for a notification or
// a response.
func legacyAnswer(version, body string) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string          `json:"protocolVersion"`
			Name            string          `json:"name"`
			Arguments       json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(body), &m) != nil || m.ID == nil || m.Method == "" {
		return ""
	}
	id := string(m.ID)
	result := func(r string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` + r + `}` }
	switch m.Method {
	case "initialize":
		return result(`{"protocolVersion":"` + version + `","capabilities":{"tools":{}},"serverInfo":{"name":"legacy-test","version":"1"}}`)
	case "ping":
		return result(`{}`)
	case "tools/list":
		return result(`{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}]}`)
	case "tools/call":
		var args struct {
			Message string `json:"message"`
		}
		json.Unmarshal(m.Params.Arguments, &args)
		text, _ := json.Marshal("Echo: " + args.Message)
		return result(`{"content":[{"type":"text","text":` + string(text) + `}]}`)
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"Method not found"}}`
}

// sseServer is a legacy HTTP+SSE server: GET /sse opens the stream, whose
// endpoint event names /messages?sessionId=..., and POSTs there are answered
// on the stream.
type sseServer struct {
	*httpServer
	mu       sync.Mutex
	streams  map[string]chan string
	endpoint string // the endpoint event's data; a default when empty
}

func newSSEServer(t *testing.T) *sseServer {
	s := &sseServer{streams: make(map[string]chan string)}
	s.httpServer = newHTTPServer(t, s.serve)
	return s
}

func (s *sseServer) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse":
		ch := make(chan string, 16)
		s.mu.Lock()
		id := "sess-" + string(rune('a'+len(s.streams)))
		s.streams[id] = ch
		endpoint := s.endpoint
		s.mu.Unlock()
		if endpoint == "" {
			endpoint = "/messages?sessionId=" + id
		}
		st := startSSE(w)
		st.event(": welcome")
		st.event("event: endpoint", "data: "+endpoint)
		for {
			select {
			case msg := <-ch:
				st.event("event: message", "data: "+msg)
			case <-r.Context().Done():
				return
			}
		}
	case r.Method == http.MethodPost && r.URL.Path == "/messages":
		s.mu.Lock()
		ch := s.streams[r.URL.Query().Get("sessionId")]
		s.mu.Unlock()
		if ch == nil {
			http.Error(w, "Could not find session", http.StatusNotFound)
			return
		}
		if r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want JSON", http.StatusUnsupportedMediaType)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		if ans := legacyAnswer("2024-11-05", readBodyString(r)); ans != "" {
			ch <- ans
		}
	default:
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// TestSSETransport runs the flow of Home Assistant's /mcp_server/sse: a
// bearer token on every request, the endpoint event, POSTs answered on the
// stream.
func TestSSETransport(t *testing.T) {
	checkLeaks(t)
	t.Setenv("MCPGEN_TEST_HA_TOKEN", "long-lived-access-token")
	srv := newSSEServer(t)
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_HA_TOKEN"
	c := dial(t, SSE(srv.URL+"/sse", opts))
	write(t, c, rpcReq(1, "initialize", ""))
	if got := readMsg(t, c); !strings.Contains(got, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize answer = %s", got)
	}
	write(t, c, rpcNote("notifications/initialized", "2024-11-05"))
	write(t, c, rpcReq(2, "tools/list", "2024-11-05"))
	if got := readMsg(t, c); !strings.Contains(got, `"echo"`) {
		t.Fatalf("tools/list answer = %s", got)
	}
	c.Close()
	var posts []string
	for _, r := range srv.requests() {
		if r.Header.Get("Authorization") != "Bearer long-lived-access-token" {
			t.Errorf("%s %s went without the token", r.Method, r.Path)
		}
		if r.Method == http.MethodPost {
			posts = append(posts, r.Path+"?"+r.Query)
		}
	}
	if len(posts) != 3 || posts[0] != "/messages?sessionId=sess-a" {
		t.Errorf("POSTs went to %v", posts)
	}
}

func TestSSEEndpointChecks(t *testing.T) {
	checkLeaks(t)
	tests := []struct {
		name     string
		endpoint string
		wantErr  string
	}{
		{"absolute URL on the same origin", "", ""},
		{"another origin", "http://evil.example/messages", "origin"},
		{"another scheme", "https://127.0.0.1/messages", "origin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSSEServer(t)
			srv.endpoint = tt.endpoint
			if tt.endpoint == "" {
				srv.endpoint = srv.URL + "/messages?sessionId=sess-a"
			}
			c, err := SSE(srv.URL+"/sse", testHTTPOptions(t)).Connect(context.Background())
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				write(t, c, rpcReq(1, "initialize", ""))
				readMsg(t, c)
				return
			}
			if err == nil {
				c.Close()
				t.Fatal("Connect accepted the endpoint")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Connect error = %v", err)
			}
		})
	}
}

func TestSSEEndpointTimeoutAndWrongFirstEvent(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		s := startSSE(w)
		if r.URL.Path == "/wrong" {
			s.event("event: message", `data: {"jsonrpc":"2.0","method":"x"}`)
		}
		<-r.Context().Done()
	})
	opts := testHTTPOptions(t)
	opts.EndpointTimeout = 200 * time.Millisecond
	start := time.Now()
	_, err := SSE(srv.URL+"/silent", opts).Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no endpoint event within 200ms") {
		t.Errorf("silent stream: Connect error = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second+loadSlack {
		t.Errorf("Connect took %v", d)
	}
	_, err = SSE(srv.URL+"/wrong", opts).Connect(context.Background())
	if !errors.Is(err, errNotSSEEndpoint) {
		t.Errorf("wrong first event: Connect error = %v", err)
	}
	// The caller's context also bounds the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	opts.EndpointTimeout = time.Minute
	if _, err := SSE(srv.URL+"/silent", opts).Connect(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Connect with an expiring context = %v", err)
	}
}

func TestSSEStreamEndEndsConnection(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			http.Error(w, "gone", http.StatusNotFound)
			return
		}
		s := startSSE(w)
		s.event("event: endpoint", "data: /messages")
		s.event("event: message", "data: "+strings.Repeat("z", 2000))
		s.event(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
	})
	opts := testHTTPOptions(t)
	opts.MaxMessageSize = 1000
	c := dial(t, SSE(srv.URL, opts))
	var tl *MessageTooLargeError
	if err := readErr(t, c); !errors.As(err, &tl) {
		t.Errorf("oversize event: Read = %v", err)
	}
	if got := readMsg(t, c); !strings.Contains(got, "notifications/message") {
		t.Errorf("message after the oversize event = %s", got)
	}
	if err := readErr(t, c); !strings.Contains(err.Error(), "ended") {
		t.Errorf("Read at the end of the stream = %v", err)
	}
	var he *HTTPError
	if err := c.Write(context.Background(), rpcReq(1, "tools/list", "2024-11-05")); !errors.As(err, &he) || he.StatusCode != 404 || strings.Contains(he.URL, "?") {
		t.Errorf("POST to a gone endpoint = %v", err)
	}
}

// TestSSEEndpointWithDefaultPort: an endpoint event naming the stream's
// origin with its default port written out (http://host:80/... for a
// stream at http://host/sse, as a server that builds the URL from its own
// address sends) names the same origin, and the POSTs go there, with the
// connection's headers.
func TestSSEEndpointWithDefaultPort(t *testing.T) {
	checkLeaks(t)
	srv := newSSEServer(t)
	srv.endpoint = "http://mcp.test:80/messages?sessionId=sess-a"
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	addr := srv.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	t.Cleanup(tr.CloseIdleConnections)
	opts := &HTTPOptions{Client: &http.Client{Transport: tr}, Header: http.Header{"X-Api-Key": {"k"}}}
	c, err := SSE("http://mcp.test/sse", opts).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	write(t, c, rpcReq(1, "initialize", ""))
	if got := readMsg(t, c); !strings.Contains(got, `"protocolVersion"`) {
		t.Fatalf("Read = %s", got)
	}
	for _, r := range srv.requests() {
		if r.Method == http.MethodPost && r.Header.Get("X-Api-Key") != "k" {
			t.Errorf("POST %s without the connection's header", r.Path)
		}
	}

	// A redirect there is one to the same origin, which keeps the
	// credentials.
	from, _ := http.NewRequest(http.MethodPost, "http://mcp.test/mcp", nil)
	to, _ := http.NewRequest(http.MethodPost, "http://mcp.test:80/mcp", nil)
	to.Header.Set("Authorization", "Bearer t")
	if err := RedirectPolicy(nil)(to, []*http.Request{from}); err != nil || to.Header.Get("Authorization") == "" {
		t.Errorf("a redirect to the default port written out dropped the credentials (%v)", err)
	}
}
