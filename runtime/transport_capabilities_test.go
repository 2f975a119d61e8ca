package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// thirdPartyConn is a Conn written outside the package, as a user would
// write one: an in-memory 2026-07-28 server whose ConnCapabilities are
// whatever the test declares.
type thirdPartyConn struct {
	caps     runtime.ConnCapabilities
	declare  bool
	in       chan []byte
	closed   chan struct{}
	once     sync.Once
	silent   bool // leave server/discover unanswered
	blocking bool // leave tools/call unanswered

	mu      sync.Mutex
	methods []string
	callIDs []string // the ids of the tools/call requests
	headers [][]runtime.ParamHeader
	lists   int
}

func newThirdPartyConn(declare bool, caps runtime.ConnCapabilities) *thirdPartyConn {
	return &thirdPartyConn{caps: caps, declare: declare, in: make(chan []byte, 16), closed: make(chan struct{})}
}

// Connect returns c as a runtime.CapableConn, or, when the test declares
// nothing, as a plain runtime.Conn.
func (c *thirdPartyConn) Connect(context.Context) (runtime.Conn, error) {
	if c.declare {
		return capableConn{c}, nil
	}
	return c, nil
}

type capableConn struct{ *thirdPartyConn }

func (c capableConn) ConnCapabilities() runtime.ConnCapabilities { return c.caps }

func (c *thirdPartyConn) Write(ctx context.Context, m *runtime.OutMessage) error {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(m.Data, &msg); err != nil {
		return fmt.Errorf("decoding the message: %w", err)
	}
	c.mu.Lock()
	c.methods = append(c.methods, msg.Method)
	if msg.Method == "tools/call" {
		c.headers = append(c.headers, m.ParamHeaders)
		c.callIDs = append(c.callIDs, m.ID)
	}
	if msg.Method == "tools/list" {
		c.lists++
	}
	c.mu.Unlock()
	reply := func(result string) {
		c.in <- fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch msg.Method {
	case "server/discover":
		if !c.silent {
			reply(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"third","version":"1"},"ttlMs":0,"cacheScope":"public"}`)
		}
	case "initialize":
		reply(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"third","version":"1"}}`)
	case "tools/list":
		reply(`{"resultType":"complete","ttlMs":60000,"cacheScope":"private","tools":[{"name":"route","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}`)
	case "tools/call":
		switch {
		case c.blocking:
		case strings.Contains(string(m.Data), "leak"):
			c.in <- fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"bad token s3cr3t"}}`, msg.ID)
		default:
			reply(`{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
		}
	}
	return nil
}

func (c *thirdPartyConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-c.in:
		return b, nil
	case <-c.closed:
		return nil, runtime.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *thirdPartyConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *thirdPartyConn) sent(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.methods {
		if m == method {
			n++
		}
	}
	return n
}

// A Conn from outside the package gets the behaviour of the built-in
// transports by declaring their ConnCapabilities, and the safe defaults
// without them.
func TestThirdPartyConnCapabilities(t *testing.T) {
	connect := func(t *testing.T, c *thirdPartyConn, opts *runtime.Options) *runtime.Session {
		t.Helper()
		s, err := runtime.Connect(context.Background(), c, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	for _, declared := range []bool{true, false} {
		name := map[bool]string{true: "declared", false: "undeclared"}[declared]

		t.Run("CancelsByClosing/"+name, func(t *testing.T) {
			c := newThirdPartyConn(declared, runtime.ConnCapabilities{CancelsByClosing: true})
			c.blocking = true
			s := connect(t, c, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if _, err := s.CallTool(ctx, "route", map[string]any{}); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("CallTool: %v, want the context's deadline", err)
			}
			// Streamable HTTP cancels by closing the stream: no notification.
			want := map[bool]int{true: 0, false: 1}[declared]
			if n := c.sent("notifications/cancelled"); n != want {
				t.Errorf("%d notifications/cancelled, want %d", n, want)
			}
		})

		t.Run("CancelRequest/"+name, func(t *testing.T) {
			var mu sync.Mutex
			var cancelled []string
			c := newThirdPartyConn(declared, runtime.ConnCapabilities{CancelRequest: func(id string) {
				mu.Lock()
				cancelled = append(cancelled, id)
				mu.Unlock()
			}})
			c.blocking = true
			s := connect(t, c, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if _, err := s.CallTool(ctx, "route", map[string]any{}); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("CallTool: %v, want the context's deadline", err)
			}
			c.mu.Lock()
			ids := slices.Clone(c.callIDs)
			c.mu.Unlock()
			mu.Lock()
			defer mu.Unlock()
			// The Session ends the call's request through the Conn, by its
			// id, as it does over Streamable HTTP.
			if len(ids) != 1 || slices.Contains(cancelled, ids[0]) != declared {
				t.Errorf("tools/call ids %v, CancelRequest called for %v; want the call's id cancelled: %v", ids, cancelled, declared)
			}
		})

		t.Run("AnswersEveryRequest/"+name, func(t *testing.T) {
			c := newThirdPartyConn(declared, runtime.ConnCapabilities{AnswersEveryRequest: true})
			c.silent = true
			s, err := runtime.Connect(context.Background(), c, &runtime.Options{ProbeTimeout: 50 * time.Millisecond})
			if declared {
				// As over Streamable HTTP: a silent probe is a slow server.
				var pe *runtime.ProbeTimeoutError
				if !errors.As(err, &pe) {
					t.Fatalf("Connect: %v, want a *ProbeTimeoutError", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Connect: %v, want a fallback to the handshake", err)
			}
			defer s.Close()
			if v := s.ProtocolVersion(); v != "2025-11-25" {
				t.Errorf("negotiated %s, want 2025-11-25 after the fallback", v)
			}
		})

		t.Run("SendsParamHeaders/"+name, func(t *testing.T) {
			c := newThirdPartyConn(declared, runtime.ConnCapabilities{SendsParamHeaders: true})
			s := connect(t, c, nil)
			if _, err := s.CallTool(context.Background(), "route", map[string]any{"region": "eu"}); err != nil {
				t.Fatal(err)
			}
			c.mu.Lock()
			got := fmt.Sprint(c.headers)
			c.mu.Unlock()
			want := map[bool]string{true: "[[{Region eu}]]", false: "[[]]"}[declared]
			if got != want {
				t.Errorf("param headers %s, want %s", got, want)
			}
		})

		t.Run("ScrubSecrets/"+name, func(t *testing.T) {
			c := newThirdPartyConn(declared, runtime.ConnCapabilities{
				ScrubSecrets: func(s string) string { return strings.ReplaceAll(s, "s3cr3t", "[redacted]") },
			})
			s := connect(t, c, nil)
			_, err := s.CallTool(context.Background(), "route", map[string]any{"region": "leak"})
			if err == nil {
				t.Fatal("CallTool succeeded, want the server's error")
			}
			if leaked := strings.Contains(err.Error(), "s3cr3t"); leaked == declared {
				t.Errorf("error %q: secret leaked %v with ScrubSecrets declared %v", err, leaked, declared)
			}
		})

		t.Run("AuthGeneration/"+name, func(t *testing.T) {
			var gen atomic.Uint64
			c := newThirdPartyConn(declared, runtime.ConnCapabilities{AuthGeneration: gen.Load})
			s := connect(t, c, nil)
			for range 2 {
				if _, err := s.ListTools(context.Background()); err != nil {
					t.Fatal(err)
				}
				gen.Add(1)
			}
			// A private listing is kept only for the credentials it was
			// made with; without a generation, the Conn has one set.
			want := map[bool]int{true: 2, false: 1}[declared]
			c.mu.Lock()
			n := c.lists
			c.mu.Unlock()
			if n != want {
				t.Errorf("%d tools/list requests, want %d", n, want)
			}
		})
	}
}

// TestWriteTimeoutIsDeadlineExceeded checks that a call whose timeout runs
// out while it is being sent reads as a timeout: when the caller's own
// deadline ends at the same moment, the Session returns the transport's
// ErrWriteTimeout, which callers test with context.DeadlineExceeded.
func TestWriteTimeoutIsDeadlineExceeded(t *testing.T) {
	err := fmt.Errorf("calling slow: %w", runtime.ErrWriteTimeout)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("ErrWriteTimeout does not match context.DeadlineExceeded")
	}
	if !errors.Is(err, runtime.ErrWriteTimeout) {
		t.Error("a wrapped ErrWriteTimeout does not match ErrWriteTimeout")
	}
	if errors.Is(context.DeadlineExceeded, runtime.ErrWriteTimeout) {
		t.Error("context.DeadlineExceeded matches ErrWriteTimeout")
	}
}
