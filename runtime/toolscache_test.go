package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// countLists returns how many tools/list requests conn saw.
func countLists(conn *memConn) int {
	n := 0
	for _, m := range conn.methods() {
		if m == "tools/list" {
			n++
		}
	}
	return n
}

// cachingServer answers tools/list with one tool, named after the number of
// listings so far, and the caching fields fields (such as `"ttlMs":60000,`).
func cachingServer(fields func() string) func(c *memConn, ctx context.Context, m memMsg) error {
	var lists atomic.Int32
	return modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "tools/list" {
			n := lists.Add(1)
			c.reply(m, fmt.Sprintf(`{"resultType":"complete",%s"tools":[{"name":"t%d","inputSchema":{"type":"object"}}]}`, fields(), n))
		}
		return nil
	})
}

func listNames(t *testing.T, s *Session) string {
	t.Helper()
	tools, err := s.ListTools(context.Background())
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	return strings.Join(names, ",")
}

// A 2026-07-28 tools/list result with a ttlMs is fresh for that long:
// ListTools serves it again without asking the server. Before, every
// ListTools listed anew, whatever the server said of caching.
func TestToolsListCachedForTTL(t *testing.T) {
	conn := newMemConn(cachingServer(func() string { return `"ttlMs":60000,"cacheScope":"public",` }))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if a, b := listNames(t, s), listNames(t, s); a != "t1" || b != "t1" {
		t.Errorf("listed %q then %q, want t1 twice", a, b)
	}
	if n := countLists(conn); n != 1 {
		t.Errorf("%d tools/list requests, want 1", n)
	}
	// The cached list is the caller's to change.
	tools, _ := s.ListTools(context.Background())
	tools[0].Name = "changed"
	if got := listNames(t, s); got != "t1" {
		t.Errorf("after the caller changed its copy, listed %q", got)
	}
}

// A result that is stale at once (ttlMs 0, absent, negative or not an
// integer), one whose TTL has passed, a listing with a stale page, a legacy
// server's result and a Session with DisableToolsCache are all listed anew.
func TestToolsListNotCached(t *testing.T) {
	for _, tt := range []struct {
		name   string
		fields string
		opts   *Options
		legacy bool
		wait   time.Duration
	}{
		{name: "ttl-zero", fields: `"ttlMs":0,"cacheScope":"public",`},
		{name: "ttl-absent", fields: `"cacheScope":"public",`},
		{name: "ttl-negative", fields: `"ttlMs":-5,"cacheScope":"public",`},
		{name: "ttl-fraction", fields: `"ttlMs":1.5e4,"cacheScope":"public",`},
		{name: "expired", fields: `"ttlMs":20,"cacheScope":"public",`, wait: 60 * time.Millisecond},
		{name: "legacy", fields: `"ttlMs":60000,"cacheScope":"public",`, legacy: true},
		{name: "disabled", fields: `"ttlMs":60000,"cacheScope":"public",`, opts: &Options{DisableToolsCache: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			serve := cachingServer(func() string { return tt.fields })
			if tt.legacy {
				serve = legacyMem(serve)
			}
			conn := newMemConn(serve)
			s, err := Connect(context.Background(), conn, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			a := listNames(t, s)
			time.Sleep(tt.wait)
			if b := listNames(t, s); a != "t1" || b != "t2" {
				t.Errorf("listed %q then %q, want t1 then t2", a, b)
			}
		})
	}
}

// Each page has its own TTL: the listing is fresh until the first of them
// passes, and one page that is stale at once leaves the listing uncached.
func TestToolsListPagesTTL(t *testing.T) {
	for _, tt := range []struct {
		name       string
		ttl1, ttl2 string
		lists      int
	}{
		{"both-fresh", "60000", "30000", 2},
		{"second-stale", "60000", "0", 4},
		{"first-stale", "0", "60000", 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
				if m.Method != "tools/list" {
					return nil
				}
				if strings.Contains(string(m.Params), `"cursor"`) {
					c.reply(m, `{"resultType":"complete","ttlMs":`+tt.ttl2+`,"cacheScope":"public","tools":[{"name":"b","inputSchema":{}}]}`)
				} else {
					c.reply(m, `{"resultType":"complete","ttlMs":`+tt.ttl1+`,"cacheScope":"public","nextCursor":"2","tools":[{"name":"a","inputSchema":{}}]}`)
				}
				return nil
			}))
			s, err := Connect(context.Background(), conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for range 2 {
				if got := listNames(t, s); got != "a,b" {
					t.Errorf("listed %q, want a,b", got)
				}
			}
			if n := countLists(conn); n != tt.lists {
				t.Errorf("%d tools/list requests, want %d", n, tt.lists)
			}
		})
	}
}

// notifications/tools/list_changed makes the cached list stale at once,
// before OnToolsChanged runs, so that the ListTools it typically makes sees
// the new list.
func TestToolsListChangedInvalidatesCache(t *testing.T) {
	relisted := make(chan string, 1)
	listening := make(chan memMsg, 1)
	serve := cachingServer(func() string { return `"ttlMs":3600000,"cacheScope":"public",` })
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "subscriptions/listen" {
			listening <- m
			go func() { c.in <- listenAck(m.ID, `{"toolsListChanged":true}`) }()
			return nil
		}
		return serve(c, ctx, m)
	})
	var s *Session
	s, err := Connect(context.Background(), conn, &Options{OnToolsChanged: func() {
		tools, err := s.ListTools(context.Background())
		if err != nil || len(tools) != 1 {
			relisted <- fmt.Sprint(err)
			return
		}
		relisted <- tools[0].Name
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := listNames(t, s); got != "t1" {
		t.Fatalf("listed %q, want t1", got)
	}
	m := <-listening
	conn.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, m.ID))
	select {
	case got := <-relisted:
		if got != "t2" {
			t.Errorf("OnToolsChanged listed %q, want t2 (listed anew)", got)
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("OnToolsChanged not called")
	}
	if got := listNames(t, s); got != "t2" {
		t.Errorf("after the change, listed %q, want t2 from the cache", got)
	}
	if n := countLists(conn); n != 2 {
		t.Errorf("%d tools/list requests, want 2", n)
	}
}

// authConn is a memConn whose authorization context changes when gen does.
type authConn struct {
	*memConn
	gen atomic.Uint64
}

func (c *authConn) Connect(context.Context) (Conn, error) { return c, nil }
func (c *authConn) ConnCapabilities() ConnCapabilities {
	return ConnCapabilities{CancelsByClosing: c.byClose, AuthGeneration: c.gen.Load}
}

// A private result is cached for one authorization context: new
// credentials (a step up to more scopes, say) list anew. A public one is
// kept across them.
func TestToolsListPrivateCacheFollowsAuthorization(t *testing.T) {
	for _, tt := range []struct {
		scope string
		want  string
	}{
		{"private", "t1,t2,t2"},
		{"public", "t1,t1,t1"},
		{"unknown", "t1,t2,t2"},
	} {
		t.Run(tt.scope, func(t *testing.T) {
			conn := &authConn{memConn: newMemConn(cachingServer(func() string { return `"ttlMs":60000,"cacheScope":"` + tt.scope + `",` }))}
			s, err := Connect(context.Background(), conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			a := listNames(t, s)
			conn.gen.Add(1)
			b, c := listNames(t, s), listNames(t, s)
			if got := a + "," + b + "," + c; got != tt.want {
				t.Errorf("listed %s, want %s", got, tt.want)
			}
		})
	}
}

// Over Streamable HTTP, credentials an Authorizer obtains after a refusal
// are a new authorization context: a private listing cached under the old
// one is listed anew.
func TestHTTPPrivateToolsCacheFollowsCredentials(t *testing.T) {
	var want atomic.Value
	want.Store("Bearer t1")
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want.Load().(string) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch m.Method {
		case "server/discover":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, modernDiscover))
		case "tools/list":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":60000,"cacheScope":"private","tools":[{"name":"as-%s","inputSchema":{}}]}}`, m.ID, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))
		case "tools/call":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, textResult))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	opts := testHTTPOptions(t)
	opts.Authorizer = &tokenSequence{}
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, opts), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, b := listNames(t, s), listNames(t, s)
	want.Store("Bearer t2")
	if _, err := s.CallTool(context.Background(), "as-t1", nil); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	c := listNames(t, s)
	if got := a + "," + b + "," + c; got != "as-t1,as-t1,as-t2" {
		t.Errorf("listed %s, want as-t1,as-t1,as-t2", got)
	}
	lists := 0
	for _, r := range srv.requests() {
		if strings.Contains(r.Body, `"tools/list"`) && r.Header.Get("Authorization") != "Bearer t0" {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("%d tools/list requests answered, want 2 (the second listing came from the cache)", lists)
	}
}

// tokenSequence sends the tokens t0, t1, t2, ..., moving to the next one
// each time the server refuses the current one.
type tokenSequence struct{ n atomic.Int32 }

func (a *tokenSequence) Authorize(req *http.Request) error {
	req.Header.Set("Authorization", fmt.Sprintf("Bearer t%d", a.n.Load()))
	return nil
}

func (a *tokenSequence) Refused(ctx context.Context, req *http.Request, resp *http.Response) (bool, error) {
	a.n.Add(1)
	return true, nil
}

// TestToolsListChangedDuringListingNotCached sends
// notifications/tools/list_changed while the server answers a tools/list
// whose result may be cached for an hour: the listing the change overtook
// is returned but not kept, so the next ListTools asks the server again.
func TestToolsListChangedDuringListingNotCached(t *testing.T) {
	lists := 0
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "tools/list" {
			lists++
			if lists == 1 {
				c.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			}
			c.reply(m, fmt.Sprintf(`{"resultType":"complete","tools":[{"name":"t%d","inputSchema":{"type":"object"}}],"ttlMs":3600000,"cacheScope":"public"}`, lists))
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, want := range []string{"t1", "t2", "t2"} {
		if got := listNames(t, s); got != want {
			t.Errorf("listed %q, want %q", got, want)
		}
	}
	if n := countLists(conn); n != 2 {
		t.Errorf("%d tools/list requests, want 2: the second listing is kept", n)
	}
}

// TestToolsTTLBeyondInt64 reads a ttlMs of 19 digits beyond an int64 as
// the longest TTL, as it reads 1e19: it wrapped around to a negative
// number, which left the listing stale at once.
func TestToolsTTLBeyondInt64(t *testing.T) {
	for _, lit := range []string{"9223372036854775808", "9999999999999999999", "1e19", "1e400"} {
		var pc pageCaching
		pc.decode("ttlMs", []byte(lit))
		if pc.ttl != maxToolsTTL {
			t.Errorf("ttlMs %s: TTL %v, want %v", lit, pc.ttl, maxToolsTTL)
		}
	}
}
