package runtime

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The test binary doubles as a fake stdio MCP server: with MCPGEN_FAKE_SERVER
// set to a mode, TestMain serves instead of running tests.
const fakeServerEnv = "MCPGEN_FAKE_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeServerEnv); strings.HasPrefix(mode, "flood-") {
		os.Exit(serveFlood(mode))
	} else if mode != "" {
		os.Exit(serveFake(mode))
	}
	// The ECMAScript pattern engine keeps one clock goroutine for its match
	// timeouts, which ends a second after the last timed match.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"))
}

// fakeTransport returns a transport running the fake server in mode.
func fakeTransport(t testing.TB, mode string) *CommandTransport {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &CommandTransport{
		Command:         exe,
		Args:            []string{"-test.run=^$"},
		Env:             []string{fakeServerEnv + "=" + mode},
		ShutdownTimeout: 500 * time.Millisecond,
	}
}

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

type fakeServer struct {
	mode    string
	out     *bufio.Writer
	mu      sync.Mutex
	pending map[string]chan fakeMsg // server-to-client requests awaiting replies

	cancelMu  sync.Mutex
	cancelled []string

	initialized atomic.Bool

	// events records, in order, the requests read ("recv:" and the
	// method) and the answers to server/discover written ("answer:...").
	eventsMu sync.Mutex
	events   []string
	listed   chan struct{} // closed when a tools/list has been read
	listOnce sync.Once
}

func (s *fakeServer) event(e string) {
	s.eventsMu.Lock()
	s.events = append(s.events, e)
	s.eventsMu.Unlock()
}

// serveFake runs the fake server. Modes (joined with "+"):
//
//	modern   answers server/discover (2026-07-28) and requires _meta
//	legacy   answers server/discover with -32601 and needs initialize
//	silent   never answers server/discover
//	v32022   answers server/discover with -32022 listing only 2025-06-18
//	die-init exits with status 3 as soon as it reads a message
//	pages    lists its tools two per page
//	loop     sends the same cursor forever
//	idlast   writes the id last in responses
//	extra    also lists the tool whoami
//	solo     also lists the tool solo
//	lingering keeps running after its input closes
//	stubborn  keeps running after its input closes and ignores SIGTERM
//	holdprobe holds its answer to server/discover until it has read a
//	          tools/list, or 5 s have passed
//	deaf      never reads its input, until it is stopped
//
// The tool events answers with what the server read and answered, in
// order: "recv:server/discover,recv:tools/list,answer:server/discover,...".
func serveFake(mode string) int {
	s := &fakeServer{mode: mode, out: bufio.NewWriter(os.Stdout), pending: map[string]chan fakeMsg{}, listed: make(chan struct{})}
	if s.has("stubborn") {
		signal.Ignore(syscall.SIGTERM)
	}
	if s.has("deaf") {
		select {}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	var wg sync.WaitGroup
	for in.Scan() {
		var m fakeMsg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "fake: bad line:", err)
			continue
		}
		if s.has("die-init") {
			fmt.Fprintln(os.Stderr, "fake: fatal: cannot start")
			return 3
		}
		if m.Method == "" {
			s.mu.Lock()
			ch := s.pending[string(m.ID)]
			s.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		if m.ID == nil {
			s.notification(m)
			continue
		}
		s.event("recv:" + m.Method)
		if m.Method == "tools/list" {
			s.listOnce.Do(func() { close(s.listed) })
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.request(m)
		}()
	}
	wg.Wait()
	fmt.Fprintln(os.Stderr, "fake: stdin closed")
	if s.has("lingering") || s.has("stubborn") {
		select {}
	}
	return 0
}

func (s *fakeServer) has(flag string) bool {
	for _, f := range strings.Split(s.mode, "+") {
		if f == flag {
			return true
		}
	}
	return false
}

func (s *fakeServer) writeLine(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.WriteString(line)
	s.out.WriteByte('\n')
	s.out.Flush()
}

func (s *fakeServer) reply(id json.RawMessage, result any) {
	b, _ := json.Marshal(result)
	if s.has("idlast") {
		s.writeLine(fmt.Sprintf(`{"result":%s,"jsonrpc":"2.0","id":%s}`, b, id))
		return
	}
	s.writeLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, b))
}

func (s *fakeServer) replyError(id json.RawMessage, code int, msg string, data any) {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	s.writeLine(string(b))
}

func (s *fakeServer) notify(method string, params any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	s.writeLine(string(b))
}

// ask sends a request to the client and waits for its answer.
func (s *fakeServer) ask(id, method string) fakeMsg {
	ch := make(chan fakeMsg, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	s.writeLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method))
	select {
	case m := <-ch:
		return m
	case <-time.After(5 * time.Second):
		return fakeMsg{}
	}
}

func (s *fakeServer) notification(m fakeMsg) {
	if m.Method == "notifications/cancelled" {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(m.Params, &p)
		s.cancelMu.Lock()
		s.cancelled = append(s.cancelled, string(p.RequestID))
		s.cancelMu.Unlock()
	}
}

var fakeTools = []map[string]any{
	{"name": "echo", "description": "Echoes.", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}}},
	{"name": "slow", "inputSchema": map[string]any{"type": "object"}},
	{"name": "big", "inputSchema": map[string]any{"type": "object"}},
	{"name": "fail", "inputSchema": map[string]any{"type": "object"}},
	{"name": "die", "inputSchema": map[string]any{"type": "object"}},
}

func (s *fakeServer) request(m fakeMsg) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Cursor    *string         `json:"cursor"`
		Meta      struct {
			Version       string          `json:"io.modelcontextprotocol/protocolVersion"`
			Caps          json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(m.Params, &p)
	modern := s.has("modern") && !s.initialized.Load()
	switch m.Method {
	case "server/discover":
		if s.has("holdprobe") {
			select {
			case <-s.listed:
			case <-time.After(5 * time.Second):
			}
			s.event("answer:server/discover") // written next
		}
		switch {
		case modern:
			s.reply(m.ID, map[string]any{"resultType": "complete", "supportedVersions": []string{"2026-07-28"},
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}}, "instructions": "be nice",
				"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "fake", "version": "1.0"}},
				"ttlMs": 0, "cacheScope": "public"})
		case s.has("silent"):
		case s.has("emptyresult"):
			s.reply(m.ID, map[string]any{})
		case s.has("v32022"):
			s.replyError(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2025-06-18"}, "requested": p.Meta.Version})
		default:
			s.replyError(m.ID, -32601, "Method not found", nil)
		}
		return
	case "initialize":
		s.initialized.Store(true)
		v := p.ProtocolVersion
		if s.has("v32022") {
			v = "2025-06-18"
		}
		s.reply(m.ID, map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{"listChanged": true}},
			"serverInfo": map[string]any{"name": "fake-legacy", "version": "0.9"}, "instructions": "old"})
		return
	}
	if modern && (p.Meta.Version != "2026-07-28" || p.Meta.Caps == nil) {
		s.replyError(m.ID, -32602, "missing _meta", nil)
		return
	}
	switch m.Method {
	case "tools/list":
		s.listTools(m.ID, p.Cursor, modern)
	case "subscriptions/listen":
		s.notify("notifications/subscriptions/acknowledged", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
	case "tools/call":
		s.call(m, p.Name, p.Arguments, p.Meta.ProgressToken)
	default:
		s.replyError(m.ID, -32601, "Method not found", nil)
	}
}

func (s *fakeServer) listTools(id json.RawMessage, cursor *string, modern bool) {
	if s.has("loop") {
		s.reply(id, map[string]any{"tools": fakeTools[:1], "nextCursor": "again"})
		return
	}
	if !s.has("pages") {
		tools := fakeTools
		if s.has("extra") {
			tools = append(slices.Clone(tools), map[string]any{"name": "whoami", "inputSchema": map[string]any{"type": "object"}})
		}
		if s.has("solo") {
			tools = append(slices.Clone(tools), map[string]any{"name": "solo", "inputSchema": map[string]any{"type": "object"}})
		}
		s.reply(id, map[string]any{"tools": tools})
		return
	}
	start := 0
	if cursor != nil {
		fmt.Sscan(strings.TrimPrefix(*cursor, "p"), &start)
	}
	end := min(start+2, len(fakeTools))
	res := map[string]any{"tools": fakeTools[start:end]}
	if end < len(fakeTools) {
		res["nextCursor"] = fmt.Sprintf("p%d", end)
	}
	if modern {
		res["resultType"] = "complete"
	}
	s.reply(id, res)
}

func (s *fakeServer) call(m fakeMsg, name string, rawArgs json.RawMessage, token json.RawMessage) {
	var args struct {
		Message string `json:"message"`
		N       int    `json:"n"`
		MS      int    `json:"ms"`
	}
	json.Unmarshal(rawArgs, &args)
	text := func(t string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": t}}}
	}
	switch name {
	case "echo":
		s.reply(m.ID, text(args.Message))
	case "events":
		s.eventsMu.Lock()
		list := strings.Join(s.events, ",")
		s.eventsMu.Unlock()
		s.reply(m.ID, text(list))
	case "whoami", "solo":
		s.reply(m.ID, text(name+" "+s.mode))
	case "args":
		s.reply(m.ID, text(string(rawArgs)))
	case "slow":
		time.Sleep(time.Duration(args.MS) * time.Millisecond)
		s.reply(m.ID, text("done"))
	case "cancelled":
		s.cancelMu.Lock()
		list := strings.Join(s.cancelled, ",")
		s.cancelMu.Unlock()
		s.reply(m.ID, text(list))
	case "big":
		s.reply(m.ID, text(strings.Repeat("x", args.N)))
	case "fail":
		s.reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "no such city"}}, "isError": true})
	case "rpcerr":
		s.replyError(m.ID, -32602, "Unknown tool: rpcerr", map[string]any{"tool": "rpcerr"})
	case "die":
		fmt.Fprintln(os.Stderr, "fake: panic: out of cheese")
		os.Exit(7)
	case "partial":
		s.mu.Lock()
		fmt.Fprintf(s.out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"te`, m.ID)
		s.out.Flush()
		s.mu.Unlock()
		fmt.Fprintln(os.Stderr, "fake: crashed mid-write")
		os.Exit(9)
	case "garbage":
		s.writeLine("this is not JSON")
		s.writeLine(`{"jsonrpc":"2.0","id":`)
		s.writeLine(`[1,2`)
		s.writeLine(``)
		s.reply(m.ID, text("survived"))
	case "badresult":
		s.writeLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"x"}],"isError":"yes"}}`, m.ID))
	case "unknownid":
		s.writeLine(`{"jsonrpc":"2.0","id":987654,"result":{"content":[]}}`)
		s.writeLine(`{"jsonrpc":"2.0","id":"weird","result":{"content":[]}}`)
		s.reply(m.ID, text("after unknown"))
	case "ticks":
		for i := 1; i <= args.N; i++ {
			time.Sleep(time.Duration(args.MS) * time.Millisecond)
			if token != nil {
				s.notify("notifications/progress", map[string]any{"progressToken": token, "progress": i})
			}
		}
		s.reply(m.ID, text("ticked"))
	case "progress":
		for i := 1; i <= 3; i++ {
			s.notify("notifications/progress", map[string]any{"progressToken": token, "progress": i, "total": 3, "message": fmt.Sprint("step ", i)})
		}
		s.reply(m.ID, text("progressed"))
	case "ping":
		r := s.ask(`"srv-1"`, "ping")
		r2 := s.ask(`"srv-2"`, "sampling/createMessage")
		s.reply(m.ID, text(fmt.Sprintf("ping=%s sampling=%s", r.Result, r2.Error)))
	case "batch":
		b, _ := json.Marshal(text("batched"))
		s.writeLine(fmt.Sprintf(`[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}},{"jsonrpc":"2.0","id":%s,"result":%s}]`, m.ID, b))
	case "changed":
		s.notify("notifications/tools/list_changed", map[string]any{})
		s.reply(m.ID, text("changed"))
	case "later":
		// Once the client is idle: a ping it must answer, then, if it did,
		// a list-changed notification.
		s.reply(m.ID, text("later"))
		time.Sleep(time.Duration(args.MS) * time.Millisecond)
		if r := s.ask(`"srv-later"`, "ping"); r.Result != nil {
			s.notify("notifications/tools/list_changed", map[string]any{})
		}
	case "exitlater":
		s.reply(m.ID, text("exiting"))
		time.Sleep(time.Duration(args.MS) * time.Millisecond)
		fmt.Fprintln(os.Stderr, "fake: exiting while idle")
		os.Exit(5)
	case "content":
		s.reply(m.ID, map[string]any{
			"content": []any{
				map[string]any{"type": "text", "text": "héllo \"q\"\n", "annotations": map[string]any{"audience": []string{"user"}}},
				map[string]any{"type": "image", "data": "iVBORw0=", "mimeType": "image/png"},
				map[string]any{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
				map[string]any{"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "title": "A", "description": "d", "mimeType": "text/plain", "size": 12},
				map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///b.txt", "mimeType": "text/plain", "text": "bee"}},
				map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///c.bin", "blob": "AAE="}},
				map[string]any{"type": "hologram", "depth": 3},
			},
			"structuredContent": map[string]any{"temperature": 22.5},
		})
	default:
		s.replyError(m.ID, -32602, "Unknown tool: "+name, nil)
	}
}
