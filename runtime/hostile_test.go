package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// This file plays a hostile server: responses that never end, streams that
// trickle one byte a second, oversize messages and tool lists past the
// limit. Each must end in a defined error within the call's deadline, and
// leave nothing running behind (checkLeaks, and the child process checks of
// lifecycle_test.go).

// rpcIn is a JSON-RPC message a test server received.
type rpcIn struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

// modernHTTPServer serves the 2026-07-28 Streamable HTTP transport: it
// answers server/discover and notifications itself and passes tools/call to
// call, which owns the response.
func modernHTTPServer(t *testing.T, call func(w http.ResponseWriter, r *http.Request, m rpcIn)) *httpServer {
	return newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch {
		case m.Method == "server/discover":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, modernDiscover))
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "tools/call":
			call(w, r, m)
		default:
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID))
		}
	})
}

// trickle writes prefix, then one byte of b every interval until the client
// goes away.
func trickle(w http.ResponseWriter, r *http.Request, prefix string, b byte, interval time.Duration) {
	io.WriteString(w, prefix)
	for {
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(interval):
		}
		if _, err := w.Write([]byte{b}); err != nil {
			return
		}
	}
}

// TestHostileHTTPResponses calls servers whose answer never completes: a JSON
// body that never ends, an SSE event trickling one byte a second, and an
// oversize answer. The call fails within its timeout (the per-call limit,
// CallTimeout, which only progress notifications restart, so bytes that never
// form a message do not keep a call alive), the server sees the request
// abandoned, and the Session still serves the next call.
func TestHostileHTTPResponses(t *testing.T) {
	checkLeaks(t)
	const callTimeout = 1500 * time.Millisecond
	abandoned := make(chan string, 10)
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		defer func() {
			if r.Context().Err() != nil {
				abandoned <- m.Params.Name
			}
		}()
		switch m.Params.Name {
		case "endless-json":
			w.Header().Set("Content-Type", "application/json")
			trickle(w, r, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, m.ID), 'a', time.Millisecond)
		case "trickle-sse":
			w.Header().Set("Content-Type", "text/event-stream")
			trickle(w, r, "data: ", '{', time.Second)
		case "huge":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}`, m.ID, strings.Repeat("x", 1<<20))
		default:
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, textResult))
		}
	})
	opts := testHTTPOptions(t)
	opts.MaxMessageSize = 256 << 10
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, opts), &Options{CallTimeout: callTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tool := range []string{"endless-json", "trickle-sse", "huge"} {
		// The oversize answer is refused for its size, whatever the time
		// a loaded machine takes to send it.
		ctx := context.Background()
		if tool == "huge" {
			ctx = testenv.Context(t)
		}
		start := time.Now()
		_, err := s.CallTool(ctx, tool, nil)
		took := time.Since(start)
		switch tool {
		case "huge":
			var tl *MessageTooLargeError
			if !errors.As(err, &tl) || tl.Limit != 256<<10 {
				t.Errorf("%s: error = %v, want a *MessageTooLargeError with the 256 KiB limit", tool, err)
			}
		default:
			var te *TimeoutError
			if !errors.As(err, &te) && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: error = %v, want a timeout", tool, err)
			}
		}
		if took > callTimeout+loadSlack {
			t.Errorf("%s: the call took %v, past its %v timeout", tool, took, callTimeout)
		}
		if res, err := s.CallTool(testenv.Context(t), "ok", nil); err != nil || res.Text() != "ok" {
			t.Fatalf("the call after %s: %v", tool, err)
		}
	}
	for _, tool := range []string{"endless-json", "trickle-sse"} {
		select {
		case got := <-abandoned:
			if got != "endless-json" && got != "trickle-sse" {
				t.Errorf("unexpected abandoned request %s", got)
			}
		case <-time.After(testenv.WaitLimit(t)):
			t.Fatalf("the server never saw the %s request abandoned", tool)
		}
	}
}

// TestHostileSSETransportTrickle connects over the legacy HTTP+SSE transport
// to a server whose stream trickles one byte a second after the endpoint
// event, and to one that never sends the endpoint: the first call and the
// second Connect fail within their limits.
func TestHostileSSETransportTrickle(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			trickle(w, r, "event: endpoint\ndata: /msg\n\ndata: ", 'x', time.Second)
		case r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			trickle(w, r, "", ':', time.Second)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	opts := testHTTPOptions(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := Connect(ctx, SSE(srv.URL+"/sse", opts), &Options{ProtocolVersion: "2024-11-05"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Connect to a trickling stream = %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second+loadSlack {
		t.Errorf("Connect took %v", d)
	}
	opts.EndpointTimeout = 500 * time.Millisecond
	start = time.Now()
	_, err = Connect(context.Background(), SSE(srv.URL+"/silent", opts), &Options{ProtocolVersion: "2024-11-05"})
	if err == nil || !strings.Contains(err.Error(), "no endpoint event within 500ms") {
		t.Errorf("Connect without an endpoint event = %v, want the EndpointTimeout error", err)
	}
	if d := time.Since(start); d > time.Second+loadSlack {
		t.Errorf("Connect took %v", d)
	}
}

// shServer returns a stdio transport running a shell script as the server.
// The script answers the legacy initialize (request 1) and then runs body on
// the tools/call that follows (request 2).
func shServer(t *testing.T, body string) *CommandTransport {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	script := `read l; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":` + legacyInit + `}'; read l; read l; ` + body
	return &CommandTransport{Command: "sh", Args: []string{"-c", script}, ShutdownTimeout: 300 * time.Millisecond, MaxMessageSize: 64 << 10}
}

// TestHostileStdioResponses runs stdio servers that answer a call with a
// line that never ends, at full speed or one byte a second. The call fails
// at its timeout, memory stays bounded by the line limit, and Close stops
// the server (lifecycle_test.go checks that no process is left).
func TestHostileStdioResponses(t *testing.T) {
	checkLeaks(t)
	cases := map[string]string{
		"endless line": `printf '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"'; yes aaaaaaaaaaaaaaaa | tr -d '\n'`,
		"trickle":      `printf '{"jsonrpc":"2.0","id":2,'; while :; do printf x; sleep 1; done`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			before := childPIDs(t)
			s, err := Connect(context.Background(), shServer(t, body), &Options{ProtocolVersion: "2025-06-18", CallTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = s.CallTool(context.Background(), "x", nil)
			var te *TimeoutError
			if !errors.As(err, &te) {
				t.Errorf("call = %v, want a *TimeoutError", err)
			}
			if d := time.Since(start); d > time.Second+loadSlack {
				t.Errorf("the call took %v", d)
			}
			s.Close()
			if left := newChildren(t, before); len(left) > 0 {
				t.Errorf("processes left after Close: %v", left)
			}
		})
	}
}

// TestListToolsLimit lists 10,000 tools, the default limit, over ten pages,
// then one more than the limit, and a lowered limit.
func TestListToolsLimit(t *testing.T) {
	checkLeaks(t)
	pages := func(total, per int) func(c *memConn, ctx context.Context, m memMsg) error {
		return func(c *memConn, ctx context.Context, m memMsg) error {
			switch m.Method {
			case "server/discover":
				c.reply(m, modernDiscover)
			case "tools/list":
				var p struct {
					Cursor string `json:"cursor"`
				}
				json.Unmarshal(m.Params, &p)
				start := 0
				fmt.Sscan(p.Cursor, &start)
				var b strings.Builder
				b.WriteString(`{"tools":[`)
				end := min(start+per, total)
				for i := start; i < end; i++ {
					if i > start {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, `{"name":"tool_%d","inputSchema":{"type":"object"}}`, i)
				}
				b.WriteString("]")
				if end < total {
					fmt.Fprintf(&b, `,"nextCursor":"%d"`, end)
				}
				b.WriteString("}")
				c.reply(m, b.String())
			}
			return nil
		}
	}
	cases := []struct {
		total, per, max int
		want            string
	}{
		{DefaultMaxTools, 1000, 0, ""},
		{DefaultMaxTools, DefaultMaxTools, 0, ""},
		{DefaultMaxTools + 1, 1000, 0, "more than 10000 tools"},
		{DefaultMaxTools + 1, DefaultMaxTools + 1, 0, "more than 10000 tools"},
		{50, 10, 20, "more than 20 tools"},
	}
	for _, c := range cases {
		s, err := Connect(context.Background(), newMemConn(pages(c.total, c.per)), &Options{MaxTools: c.max})
		if err != nil {
			t.Fatal(err)
		}
		tools, err := s.ListTools(context.Background())
		s.Close()
		if c.want == "" {
			if err != nil || len(tools) != c.total {
				t.Errorf("%d tools in pages of %d: got %d, %v", c.total, c.per, len(tools), err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d tools in pages of %d, limit %d: error = %v, want %q", c.total, c.per, c.max, err, c.want)
		}
	}
}

// TestListToolsLimitWithinPage: a single tools/list page of 200,000 tools
// (2.6 MB), from a Session allowing 10, is refused once the 11th tool is
// read, not after decoding the whole page: it used to allocate over 300 MB
// (a 16 MiB page, 2 GB and 8 s of CPU) before the limit applied.
func TestListToolsLimitWithinPage(t *testing.T) {
	checkLeaks(t)
	page := `{"tools":[` + strings.Repeat(`{"name":"t"},`, 200_000-1) + `{"name":"t"}]}`
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.reply(m, modernDiscover)
		case "tools/list":
			c.reply(m, page)
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, &Options{MaxTools: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	_, err = s.ListTools(context.Background())
	goruntime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "tools/list: the server lists more than 10 tools (Options.MaxTools)") {
		t.Errorf("ListTools = %v, want the limit of 10 tools", err)
	}
	// The page itself is copied a few times on its way (the fake server's
	// reply among them); the tools decoded beyond the limit must not add
	// to that.
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
		t.Errorf("refusing the page allocated %d MiB, want at most 32 MiB for a page of %d KiB", n>>20, len(page)>>10)
	}
}

// TestListingsLimit lists prompts, resource templates and skills from a
// server whose pages never end, ten items a page: each listing stops at
// Options.MaxTools items, long before the bound on pages.
func TestListingsLimit(t *testing.T) {
	checkLeaks(t)
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		var p struct {
			Cursor string `json:"cursor"`
		}
		json.Unmarshal(m.Params, &p)
		start := 0
		fmt.Sscan(p.Cursor, &start)
		page := func(key, item string) {
			var b strings.Builder
			fmt.Fprintf(&b, `{"resultType":"complete",%q:[`, key)
			for i := start; i < start+10; i++ {
				if i > start {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, item, i)
			}
			fmt.Fprintf(&b, `],"nextCursor":"%d"}`, start+10)
			c.reply(m, b.String())
		}
		switch m.Method {
		case "server/discover":
			c.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+skillsCaps+`,"ttlMs":0,"cacheScope":"public"}`)
		case "prompts/list":
			page("prompts", `{"name":"p%d"}`)
		case "resources/templates/list":
			page("resourceTemplates", `{"uriTemplate":"demo://%d/{id}","name":"t"}`)
		case "resources/list":
			page("resources", `{"uri":"demo://%d","name":"r"}`)
		case "skills/list":
			page("skills", `{"uri":"skill://s%d/SKILL.md","frontmatter":{"name":"s","description":"d"},"resources":"dynamic"}`)
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, &Options{MaxTools: 25})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, c := range []struct {
		method string
		list   func() (int, error)
	}{
		{"prompts/list", func() (int, error) { l, err := s.ListPrompts(ctx); return len(l), err }},
		{"resources/templates/list", func() (int, error) { l, err := s.ListResourceTemplates(ctx); return len(l), err }},
		{"resources/list", func() (int, error) { l, err := s.ListResources(ctx); return len(l), err }},
		{"skills/list", func() (int, error) { l, err := s.ListSkills(ctx); return len(l), err }},
	} {
		n, err := c.list()
		if err == nil || !strings.HasPrefix(err.Error(), c.method+": ") || !strings.Contains(err.Error(), "more than 25") {
			t.Errorf("%s of endless pages: %d items, error %v, want one naming the method and the limit of 25", c.method, n, err)
		}
	}
}

// TestHostileServersThatStopReading calls a stdio server that reads no more
// input, with arguments larger than the pipe holds, and an HTTP+SSE server
// that never answers the POST of a call. Both calls fail at their timeout
// instead of blocking in Write.
func TestHostileServersThatStopReading(t *testing.T) {
	checkLeaks(t)
	big := map[string]any{"big": strings.Repeat("x", 1<<20)}

	s, err := Connect(context.Background(), shServer(t, "sleep 30"), &Options{ProtocolVersion: "2025-06-18", CallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.CallTool(context.Background(), "x", big)
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Errorf("stdio call = %v, want a *TimeoutError", err)
	}
	if d := time.Since(start); d > time.Second+loadSlack {
		t.Errorf("the stdio call took %v", d)
	}
	s.Close()

	events := make(chan string, 10)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: endpoint\ndata: /msg\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case ev := <-events:
					io.WriteString(w, "data: "+ev+"\n\n")
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		var m rpcIn
		json.NewDecoder(r.Body).Decode(&m)
		switch m.Method {
		case "tools/call":
			<-r.Context().Done() // never answer the POST
			return
		case "initialize":
			events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, legacyInit)
		}
		w.WriteHeader(http.StatusAccepted)
	})
	s, err = Connect(context.Background(), SSE(srv.URL+"/sse", testHTTPOptions(t)), &Options{ProtocolVersion: "2024-11-05", CallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start = time.Now()
	_, err = s.CallTool(context.Background(), "x", nil)
	if !errors.As(err, &te) {
		t.Errorf("HTTP+SSE call = %v, want a *TimeoutError", err)
	}
	if d := time.Since(start); d > time.Second+loadSlack {
		t.Errorf("the HTTP+SSE call took %v", d)
	}
}

// TestSchemaNestingLimit compiles schemas nested around MaxSchemaNesting and
// far past it: the deep ones are refused at once instead of taking minutes,
// and brackets inside strings do not count.
func TestSchemaNestingLimit(t *testing.T) {
	nest := func(levels int) string {
		s := `{"type":"string","description":"[[[{{{"}`
		for range levels {
			s = `{"type":"object","properties":{"a":` + s + `}}`
		}
		return s
	}
	// Each schema level is two JSON levels; the innermost schema one more.
	cases := []struct {
		levels int
		ok     bool
	}{{10, true}, {(MaxSchemaNesting - 1) / 2, true}, {MaxSchemaNesting / 2, false}, {3000, false}}
	for _, c := range cases {
		start := time.Now()
		err := NewSchema("t", []byte(nest(c.levels))).Compile()
		if c.ok != (err == nil) {
			t.Errorf("%d levels: %v", c.levels, err)
		}
		if err != nil && !strings.Contains(err.Error(), "nests more than 256 levels deep") {
			t.Errorf("%d levels: error %q does not name the limit", c.levels, err)
		}
		if d := time.Since(start); d > 5*time.Second+loadSlack {
			t.Errorf("%d levels took %v", c.levels, d)
		}
	}
}
