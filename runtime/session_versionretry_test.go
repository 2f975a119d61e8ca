package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// metaVersion returns the io.modelcontextprotocol/protocolVersion of a
// request's _meta, or "".
func metaVersion(t *testing.T, m memMsg) string {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("params of %s: %v", m.Method, err)
		}
	}
	var v string
	if raw, ok := p.Meta["io.modelcontextprotocol/protocolVersion"]; ok {
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("_meta protocolVersion of %s: %v", m.Method, err)
		}
	}
	return v
}

// checkVersionsMatch fails t unless every request conn saw carries the same
// version in its MCP-Protocol-Version (OutMessage.ProtocolVersion) and in
// its _meta.
func checkVersionsMatch(t *testing.T, conn *memConn) {
	t.Helper()
	conn.mu.Lock()
	seen := append([]memMsg(nil), conn.seen...)
	conn.mu.Unlock()
	for _, m := range seen {
		if m.ID == nil {
			continue
		}
		if mv := metaVersion(t, m); mv != m.Version {
			t.Errorf("%s %s: header version %q, _meta version %q", m.Method, m.ID, m.Version, mv)
		}
	}
}

// The server rejects the first request with -32022 but lists the very version
// the Session pinned: the request is retried with it, as the conformance
// scenario request-metadata does, instead of failing with "the server speaks
// 2026-07-28; this client speaks 2026-07-28, ...".
func TestPinnedVersionRetriedAfterUnsupportedVersion(t *testing.T) {
	var discovers atomic.Int32
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "server/discover" {
			if discovers.Add(1) == 1 {
				c.replyError(m, CodeUnsupportedProtocolVersion, `{"supported":["2026-07-28"],"requested":"2026-07-28"}`)
				return nil
			}
			c.reply(m, modernDiscover)
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, &Options{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer s.Close()
	if n := discovers.Load(); n != 2 || s.ProtocolVersion() != "2026-07-28" {
		t.Errorf("%d discovers, version %s; want 2, 2026-07-28", n, s.ProtocolVersion())
	}
	checkVersionsMatch(t, conn)
}

// A pinned Session whose version the server does not list still fails, and
// names both sides' versions.
func TestPinnedVersionNotListedFails(t *testing.T) {
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		c.replyError(m, CodeUnsupportedProtocolVersion, `{"supported":["2030-01-01"],"requested":"2026-07-28"}`)
		return nil
	})
	_, err := Connect(context.Background(), conn, &Options{ProtocolVersion: "2026-07-28"})
	if err == nil || !strings.Contains(err.Error(), "2030-01-01") {
		t.Fatalf("Connect = %v, want an error naming 2030-01-01", err)
	}
	if n := len(conn.methods()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// A modern server rejects a request after the probe with -32022 (as a
// server behind a load balancer may): the request is retried once with a
// version both sides support, its MCP-Protocol-Version header matching its
// _meta, and the Session goes on with that version.
func TestUnsupportedVersionRetriedOnRequest(t *testing.T) {
	rejected := map[string]bool{}
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if !rejected[m.Method] {
			rejected[m.Method] = true
			c.replyError(m, CodeUnsupportedProtocolVersion, `{"supported":["2026-07-28"],"requested":"2026-07-28"}`)
			return nil
		}
		switch m.Method {
		case "tools/list":
			c.reply(m, `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			c.reply(m, textResult)
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer s.Close()
	if _, err := s.ListTools(context.Background()); err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if _, err := s.CallTool(context.Background(), "echo", map[string]any{}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if got, want := strings.Join(conn.methods(), ","), "server/discover,tools/list,tools/list,tools/call,tools/call"; got != want {
		t.Errorf("requests %s, want %s", got, want)
	}
	checkVersionsMatch(t, conn)
}

// A request rejected with -32022 is retried once only, and not at all when
// the server lists no modern version this client speaks: the Session cannot
// change era without a handshake.
func TestUnsupportedVersionRetriedOnce(t *testing.T) {
	for _, tt := range []struct {
		name, data string
		requests   int
	}{
		{"same-again", `{"supported":["2026-07-28"]}`, 2},
		{"legacy-only", `{"supported":["2025-06-18"]}`, 1},
		{"none", `{"supported":[]}`, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
				c.replyError(m, CodeUnsupportedProtocolVersion, tt.data)
				return nil
			}))
			s, err := Connect(context.Background(), conn, nil)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer s.Close()
			_, err = s.ListTools(context.Background())
			var re *RPCError
			if !errors.As(err, &re) || re.Code != CodeUnsupportedProtocolVersion {
				t.Fatalf("ListTools = %v, want the -32022 error", err)
			}
			if n := len(conn.methods()) - 1; n != tt.requests {
				t.Errorf("%d tools/list requests, want %d", n, tt.requests)
			}
		})
	}
}
