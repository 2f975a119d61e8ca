package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestModernServerRequestsNotAnswered talks to a 2026-07-28 server that
// sends JSON-RPC requests (ping, sampling/createMessage) before answering a
// call, which that era has no place for: the server sends only responses and
// notifications, the client only requests and notifications. The Session
// runs no handler for them and writes no response, and logs a warning; a
// ping alone is answered, since servers that keep sessions alive with
// pings (go-sdk's keep-alive) close a session that does not answer them.
func TestModernServerRequestsNotAnswered(t *testing.T) {
	pong := make(chan struct{})
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "" && string(m.ID) == `"s-ping"` {
			close(pong)
		}
		if m.Method == "tools/call" {
			c.in <- []byte(`{"jsonrpc":"2.0","id":"s-ping","method":"ping"}`)
			c.in <- []byte(`{"jsonrpc":"2.0","id":"s-sample","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}`)
			c.in <- []byte(`{"jsonrpc":"2.0","id":"s-other","method":"roots/list"}`)
			c.reply(m, `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
		}
		return nil
	}))
	sampled := make(chan struct{}, 1)
	var logs logBuffer
	s, err := Connect(context.Background(), conn, &Options{
		Logger: logs.logger(),
		Sampling: func(ctx context.Context, req *SamplingRequest) (*SamplingResult, error) {
			sampled <- struct{}{}
			return &SamplingResult{Role: "assistant", Content: []Content{{Type: ContentText, Text: "no"}}, Model: "m"}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.CallTool(context.Background(), "t", nil); err != nil || res.Text() != "ok" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	// The ping's answer is written by the reply writer, in its own time.
	select {
	case <-pong:
	case <-time.After(testenv.WaitLimit(t)):
		t.Error("the Session did not answer the server's ping")
	}
	// Close waits for the handlers it started and the reply writer.
	s.Close()
	select {
	case <-sampled:
		t.Error("the sampling handler ran for a 2026-07-28 server's JSON-RPC request")
	default:
	}
	conn.mu.Lock()
	for _, m := range conn.seen {
		if m.Method == "" && string(m.ID) != `"s-ping"` {
			t.Errorf("the Session answered a 2026-07-28 server's request: %s", m.Raw)
		}
	}
	conn.mu.Unlock()
	if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "ignored requests from the server") {
		t.Errorf("no warning about the requests:\n%s", l)
	}
}
