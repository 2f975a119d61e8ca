package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// memConn is an in-memory Conn whose server is a function called with each
// message the Session writes, in the writer's goroutine.
type memConn struct {
	in      chan []byte
	closed  chan struct{}
	once    sync.Once
	byClose bool
	serve   func(c *memConn, ctx context.Context, m memMsg) error

	mu   sync.Mutex
	seen []memMsg
}

// memMsg is a written message, decoded.
type memMsg struct {
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Version string          `json:"-"` // OutMessage.ProtocolVersion
	Name    string          `json:"-"` // OutMessage.Name
	Raw     string          `json:"-"`
	// Line is set when the Session left a newline just past Data, which
	// lets a stdio connection write the line in one write.
	Line bool `json:"-"`
}

func newMemConn(serve func(c *memConn, ctx context.Context, m memMsg) error) *memConn {
	return &memConn{in: make(chan []byte, 100), closed: make(chan struct{}), serve: serve}
}

func (c *memConn) Connect(context.Context) (Conn, error) { return c, nil }

func (c *memConn) ConnCapabilities() ConnCapabilities {
	return ConnCapabilities{CancelsByClosing: c.byClose}
}

func (c *memConn) Write(ctx context.Context, m *OutMessage) error {
	select {
	case <-c.closed:
		return ErrClosed
	default:
	}
	var msg memMsg
	if err := json.Unmarshal(m.Data, &msg); err != nil {
		return fmt.Errorf("memConn: the Session wrote invalid JSON %s: %v", m.Data, err)
	}
	msg.Version, msg.Name, msg.Raw = m.ProtocolVersion, m.Name, string(m.Data)
	msg.Line = newlinePast(m.Data)

	c.mu.Lock()
	c.seen = append(c.seen, msg)
	c.mu.Unlock()
	return c.serve(c, ctx, msg)
}

func (c *memConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-c.in:
		return b, nil
	case <-c.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *memConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// reply queues a response with result for the request m.
func (c *memConn) reply(m memMsg, result string) {
	c.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result))
}

func (c *memConn) replyError(m memMsg, code int, data string) {
	c.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"m","data":%s}}`, m.ID, code, data))
}

func (c *memConn) methods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.seen {
		out = append(out, m.Method)
	}
	return out
}

const (
	modernDiscover = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"public"}`
	legacyInit     = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"mem","version":"1"}}`
	textResult     = `{"content":[{"type":"text","text":"ok"}]}`
)

// legacyServer answers the probe with -32601 and the handshake with
// legacyInit, and passes other messages to next.
func legacyMem(next func(c *memConn, ctx context.Context, m memMsg) error) func(c *memConn, ctx context.Context, m memMsg) error {
	return func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.replyError(m, CodeMethodNotFound, "null")
		case "initialize":
			c.reply(m, legacyInit)
		case "notifications/initialized":
		default:
			return next(c, ctx, m)
		}
		return nil
	}
}

func TestSessionExpiredReinitializes(t *testing.T) {
	var expired bool
	var handshakes []string
	conn := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "tools/call" && !expired {
			expired = true
			return ErrSessionExpired
		}
		if m.Method == "tools/call" {
			c.reply(m, textResult)
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	handshakes = conn.methods()
	res, err := s.CallTool(context.Background(), "t", nil)
	if err != nil || res.Text() != "ok" {
		t.Fatalf("CallTool after expiry: %v", err)
	}
	got := strings.Join(conn.methods()[len(handshakes):], ",")
	if got != "tools/call,initialize,notifications/initialized,tools/call" {
		t.Errorf("messages after the handshake: %s", got)
	}
	seen := conn.seen
	if a, b := seen[len(seen)-1], seen[len(seen)-4]; string(a.ID) != string(b.ID) || a.Version != "2025-06-18" {
		t.Errorf("the resent request differs: %s vs %s (version %q)", a.Raw, b.Raw, a.Version)
	}
}

// handshakeRecorder records HandshakeDone calls.
type handshakeRecorder struct {
	*memConn
	mu       sync.Mutex
	versions []string
}

func (h *handshakeRecorder) Connect(context.Context) (Conn, error) { return h, nil }

func (h *handshakeRecorder) HandshakeDone(v string) {
	h.mu.Lock()
	h.versions = append(h.versions, v)
	h.mu.Unlock()
}

func TestHandshakeDoneAndVersions(t *testing.T) {
	conn := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		c.reply(m, `{"tools":[]}`)
		return nil
	}))
	h := &handshakeRecorder{memConn: conn}
	s, err := Connect(context.Background(), h, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(h.versions, ",") != "2025-06-18" {
		t.Errorf("HandshakeDone calls: %v", h.versions)
	}
	for _, m := range conn.seen {
		want := "2025-06-18"
		if m.Method == "server/discover" {
			want = "2026-07-28"
		}
		if m.Method == "initialize" {
			want = ""
		}
		if m.Version != want {
			t.Errorf("%s carried ProtocolVersion %q, want %q", m.Method, m.Version, want)
		}
	}
}

func TestProbeHTTPErrorFallsBack(t *testing.T) {
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			return &HTTPError{Method: "POST", URL: "http://x/mcp", StatusCode: 400, Body: []byte("Bad Request")}
		case "initialize":
			c.reply(m, legacyInit)
		}
		return nil
	})
	start := time.Now()
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ProtocolVersion() != "2025-06-18" || time.Since(start) > loadSlack {
		t.Errorf("version %s after %v", s.ProtocolVersion(), time.Since(start))
	}
}

func TestUnsupportedVersionRetry(t *testing.T) {
	discovers := 0
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "server/discover" {
			discovers++
			if discovers == 1 {
				c.replyError(m, CodeUnsupportedProtocolVersion, `{"supported":["2030-01-01","2026-07-28"],"requested":"x"}`)
				return nil
			}
			c.reply(m, modernDiscover)
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if discovers != 2 || s.ProtocolVersion() != "2026-07-28" {
		t.Errorf("%d discovers, version %s", discovers, s.ProtocolVersion())
	}
	if strings.Contains(strings.Join(conn.methods(), ","), "initialize") {
		t.Error("a modern error led to initialize")
	}
}

func TestMissingCapabilityIsAnError(t *testing.T) {
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		c.replyError(m, CodeMissingRequiredClientCapability, `{"requiredCapabilities":{"sampling":{}}}`)
		return nil
	})
	_, err := Connect(context.Background(), conn, nil)
	var re *RPCError
	if !errors.As(err, &re) || re.Code != CodeMissingRequiredClientCapability {
		t.Fatalf("Connect = %v", err)
	}
}

// modernMem answers the probe as a modern server and passes other messages to
// next.
func modernMem(next func(c *memConn, ctx context.Context, m memMsg) error) func(c *memConn, ctx context.Context, m memMsg) error {
	return func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "server/discover" {
			c.reply(m, modernDiscover)
			return nil
		}
		return next(c, ctx, m)
	}
}

func TestInputRequired(t *testing.T) {
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		var p struct {
			Name         string          `json:"name"`
			RequestState json.RawMessage `json:"requestState"`
		}
		json.Unmarshal(m.Params, &p)
		switch {
		case p.Name == "ask":
			c.reply(m, `{"resultType":"input_required","inputRequests":{"x":{"method":"elicitation/create","params":{}}}}`)
		case p.Name == "odd":
			c.reply(m, `{"resultType":"task","task":{}}`)
		case p.RequestState == nil:
			c.reply(m, `{"resultType":"input_required","requestState":"st-1"}`)
		case string(p.RequestState) == `"st-1"`:
			c.reply(m, `{"resultType":"complete","content":[{"type":"text","text":"second round"}]}`)
		default:
			c.replyError(m, CodeInvalidParams, "null")
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "t", nil)
	if err != nil || res.Text() != "second round" {
		t.Errorf("retry with requestState: %v", err)
	}
	if _, err := s.CallTool(context.Background(), "ask", nil); err == nil || !strings.Contains(err.Error(), "asks the client for input") {
		t.Errorf("inputRequests: %v", err)
	}
	if _, err := s.CallTool(context.Background(), "odd", nil); err == nil || !strings.Contains(err.Error(), `malformed task result: no taskId`) {
		t.Errorf("task result without a task id: %v", err)
	}
}

func TestCancellationByEra(t *testing.T) {
	for _, tc := range []struct {
		name           string
		legacy, closes bool
		wantNotified   bool
	}{
		{"modern stdio", false, false, true},
		{"modern http", false, true, false},
		{"legacy http", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeCtx := make(chan context.Context, 1)
			handler := func(c *memConn, ctx context.Context, m memMsg) error {
				if m.Method == "tools/call" {
					writeCtx <- ctx
				}
				return nil
			}
			serve := modernMem(handler)
			if tc.legacy {
				serve = legacyMem(handler)
			}
			conn := newMemConn(serve)
			conn.byClose = tc.closes
			s, err := Connect(context.Background(), conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				wctx := <-writeCtx
				cancel()
				if tc.closes {
					select {
					case <-wctx.Done():
					case <-time.After(testenv.WaitLimit(t)):
						t.Error("the context given to Write outlived the cancelled call")
					}
				}
			}()
			if _, err := s.CallTool(ctx, "t", nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool = %v, want Canceled", err)
			}
			notified := strings.Contains(strings.Join(conn.methods(), ","), "notifications/cancelled")
			if notified != tc.wantNotified {
				t.Errorf("notifications/cancelled sent: %v, want %v", notified, tc.wantNotified)
			}
		})
	}
}

func TestListenForToolChanges(t *testing.T) {
	changed := make(chan struct{}, 1)
	listening := make(chan memMsg, 1)
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "subscriptions/listen" {
			listening <- m
			go func() { c.in <- listenAck(m.ID, `{"toolsListChanged":true}`) }()
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, &Options{OnToolsChanged: func() { changed <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	m := <-listening
	if !strings.Contains(string(m.Params), `"toolsListChanged":true`) || !strings.Contains(string(m.Params), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) {
		t.Errorf("listen params: %s", m.Params)
	}
	conn.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, m.ID))
	select {
	case <-changed:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("OnToolsChanged not called")
	}
	s.Close()
	methods := strings.Join(conn.methods(), ",")
	if !strings.HasSuffix(methods, "subscriptions/listen,notifications/cancelled") {
		t.Errorf("messages: %s, want the listen cancelled at Close", methods)
	}
}

func TestTrafficLogRedactsAndToolLevels(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	conn := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		c.reply(m, textResult)
		return nil
	}))
	s, err := Connect(context.Background(), conn, &Options{
		Logger:        logger,
		LogTraffic:    true,
		ToolLogLevels: map[string]slog.Level{"poll": slog.LevelDebug - 4},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mu.Lock()
	buf.Reset()
	mu.Unlock()
	for range 3 {
		if _, err := s.CallTool(context.Background(), "poll", map[string]string{"q": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	if buf.Len() != 0 {
		t.Errorf("a silenced tool logged:\n%s", buf.String())
	}
	mu.Unlock()
	if _, err := s.CallTool(context.Background(), "login", map[string]any{"user": "ann", "apiKey": "s3cr3t", "nested": map[string]string{"access_token": "t0k3n"}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	if strings.Contains(out, "s3cr3t") || strings.Contains(out, "t0k3n") {
		t.Errorf("a secret reached the log:\n%s", out)
	}
	for _, want := range []string{"mcp send", "mcp recv", "tool call", "tool=login", "[REDACTED]", "ann"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestDrift(t *testing.T) {
	tools := `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`
	live := ToolsHash([]Tool{{Name: "a", Raw: json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`)}})
	newConn := func() *memConn {
		return newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
			c.reply(m, tools)
			return nil
		}))
	}
	for _, tc := range []struct {
		hash     string
		fail     bool
		wantErr  bool
		wantWarn int
	}{
		{live, false, false, 0},
		{"sha256:000000000000", false, false, 1},
		{"sha256:000000000000", true, true, 0},
	} {
		var buf bytes.Buffer
		var mu sync.Mutex
		logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, nil))
		s, err := Connect(context.Background(), newConn(), &Options{SnapshotHash: tc.hash, FailOnDrift: tc.fail, Logger: logger})
		var de *DriftError
		if tc.wantErr {
			if !errors.As(err, &de) || de.Live != live {
				t.Errorf("hash %s: Connect = %v, want a *DriftError", tc.hash, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		s.ListTools(context.Background())
		s.Close()
		mu.Lock()
		if n := strings.Count(buf.String(), "differ from the snapshot"); n != tc.wantWarn {
			t.Errorf("hash %s: %d warnings, want %d:\n%s", tc.hash, n, tc.wantWarn, buf.String())
		}
		mu.Unlock()
	}
}

// TestSnapshotHashWarnsWithoutLogger: the README's snippet sets
// SnapshotHash and no Logger, and promised a warning when the server's tools
// changed; with the nil Logger discarding everything, nothing was printed.
// The drift warning now goes to slog.Default() then, and nothing else does.
func TestSnapshotHashWarnsWithoutLogger(t *testing.T) {
	tools := `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`
	var buf bytes.Buffer
	var mu sync.Mutex
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(prev)

	conn := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		c.reply(m, tools)
		return nil
	}))
	s, err := Connect(context.Background(), conn, &Options{SnapshotHash: "sha256:000000000000", LogTraffic: true})
	if err != nil {
		t.Fatal(err)
	}
	s.ListTools(context.Background())
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	out := buf.String()
	if n := strings.Count(out, "differ from the snapshot"); n != 1 {
		t.Errorf("%d drift warnings on slog.Default(), want 1:\n%s", n, out)
	}
	if strings.Contains(out, "mcp send") || strings.Contains(out, "mcp recv") {
		t.Errorf("records other than the drift warning reached slog.Default():\n%s", out)
	}
}

func TestLateModernServer(t *testing.T) {
	discovers := 0
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			discovers++
			if discovers > 1 {
				c.reply(m, modernDiscover)
			}
		case "initialize":
			c.replyError(m, CodeInvalidParams, `{"supported":["2026-07-28"],"requested":"2025-11-25"}`)
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, &Options{ProbeTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ProtocolVersion() != "2026-07-28" || discovers != 2 {
		t.Errorf("version %s after %d discovers", s.ProtocolVersion(), discovers)
	}
}

func TestServerEndsSubscription(t *testing.T) {
	listening := make(chan memMsg, 1)
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "subscriptions/listen" {
			listening <- m
			go func() { c.in <- listenAck(m.ID, `{"toolsListChanged":true}`) }()
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, &Options{OnToolsChanged: func() {}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := <-listening
	conn.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`, m.ID))
	select {
	case <-s.listenDone:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the subscription did not end when the server cancelled it")
	}
}

func TestConcurrentExpiryInitializesOnce(t *testing.T) {
	var mu sync.Mutex
	expired, calls, inits := false, 0, 0
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		mu.Lock()
		defer mu.Unlock()
		switch m.Method {
		case "server/discover":
			c.replyError(m, CodeMethodNotFound, "null")
		case "initialize":
			inits++
			expired = false
			c.reply(m, legacyInit)
		case "tools/call":
			calls++
			if calls == 5 {
				expired = true
			}
			if expired {
				return ErrSessionExpired
			}
			c.reply(m, textResult)
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.CallTool(context.Background(), "t", nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if inits != 2 {
		t.Errorf("%d initialize requests, want 2 (the first and one after the expiry)", inits)
	}
}

func TestConnectHonoursContext(t *testing.T) {
	conn := newMemConn(func(*memConn, context.Context, memMsg) error { return nil })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Connect(ctx, conn, &Options{ProbeTimeout: time.Minute})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Connect = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second+loadSlack {
		t.Errorf("Connect returned after %v", d)
	}
}

func TestSilentServerAfterProbe(t *testing.T) {
	// The probe times out, and initialize gets no answer either: Connect
	// ends at the call timeout.
	conn := newMemConn(func(*memConn, context.Context, memMsg) error { return nil })
	_, err := Connect(context.Background(), conn, &Options{ProbeTimeout: 50 * time.Millisecond, CallTimeout: 100 * time.Millisecond})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Method != "initialize" {
		t.Fatalf("Connect = %v, want an initialize timeout", err)
	}
}

func TestProbeAuthErrorIsNotAnEraSign(t *testing.T) {
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "initialize" {
			t.Error("a 401 on the probe led to initialize")
		}
		return &HTTPError{Method: "POST", URL: "http://x/mcp", StatusCode: 401}
	})
	_, err := Connect(context.Background(), conn, nil)
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 {
		t.Fatalf("Connect = %v, want the 401", err)
	}
}

// releasingConn is a memConn that, like a stdio connection, is done with a
// message's Data when Write returns: the Session then writes requests from
// its pooled buffers.
type releasingConn struct{ *memConn }

func (c releasingConn) Connect(context.Context) (Conn, error) { return c, nil }

func (c releasingConn) ConnCapabilities() ConnCapabilities {
	cc := c.memConn.ConnCapabilities()
	cc.ReleasesData = true
	return cc
}

// TestEveryMessageLeavesRoomForItsNewline checks that each kind of message
// a Session writes (request, notification, answer to a server request)
// carries the newline slack a stdio connection writes the line with in one
// write.
func TestEveryMessageLeavesRoomForItsNewline(t *testing.T) {
	called := make(chan struct{})
	cancelled := make(chan struct{})
	answered := make(chan struct{})
	conn := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		switch {
		case m.Method == "tools/list":
			c.reply(m, `{"tools":[]}`)
		case m.Method == "tools/call":
			close(called)
		case m.Method == "notifications/cancelled":
			close(cancelled)
		case m.Method == "" && string(m.ID) == `"p1"`:
			close(answered)
		}
		return nil
	}))
	roots := func(context.Context) ([]Root, error) { return nil, nil }
	s, err := Connect(context.Background(), releasingConn{conn}, &Options{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.NotifyRootsChanged(context.Background()); err != nil {
		t.Fatal(err)
	}
	conn.in <- []byte(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	<-answered
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-called
		cancel()
	}()
	if _, err := s.CallTool(ctx, "t", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool = %v, want context.Canceled", err)
	}
	<-cancelled

	conn.mu.Lock()
	defer conn.mu.Unlock()
	kinds := map[string]bool{}
	for _, m := range conn.seen {
		kind := m.Method
		if kind == "" {
			kind = "answer to a server request"
		}
		kinds[kind] = true
		if !m.Line {
			t.Errorf("%s: no newline just past the message: %s", kind, m.Raw)
		}
	}
	for _, want := range []string{"initialize", "notifications/initialized", "tools/list", "notifications/roots/list_changed", "answer to a server request", "tools/call", "notifications/cancelled"} {
		if !kinds[want] {
			t.Errorf("no %s was written; written: %v", want, kinds)
		}
	}
}

// listenAck is the acknowledgement of the subscriptions/listen request id
// that honours notifications, a JSON object; Connect waits for it.
func listenAck(id json.RawMessage, notifications string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s},"notifications":%s}}`, id, notifications))
}

// signalTo returns a callback, such as Options.OnToolsChanged, that sends
// on ch without waiting, so that a signal already pending absorbs the next.
func signalTo(ch chan struct{}) func() {
	return func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
