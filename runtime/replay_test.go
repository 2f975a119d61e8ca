package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// recordEverything records a session with server-everything over tr: the
// tools, an echo, a sum and a long-running operation that reports
// progress.
func recordEverything(t *testing.T, tr Transport) []byte {
	t.Helper()
	ctx := testenv.Context(t)
	var buf bytes.Buffer
	rec := Record(tr, &buf, &RecordOptions{Source: "server-everything"})
	s, err := Connect(ctx, rec, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	for _, c := range []struct{ tool, args string }{
		{"echo", `{"message":"recorded"}`},
		{"get-sum", `{"a":2,"b":3}`},
	} {
		if _, err := s.CallTool(ctx, c.tool, json.RawMessage(c.args)); err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
	}
	var progress int
	pctx := WithProgress(ctx, func(Progress) { progress++ })
	if _, err := s.CallTool(pctx, "trigger-long-running-operation", json.RawMessage(`{"duration":0.2,"steps":2}`)); err != nil {
		t.Fatalf("trigger-long-running-operation: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := rec.Err(); err != nil {
		t.Fatalf("recording: %v", err)
	}
	if progress == 0 {
		t.Fatal("the server reported no progress while recording")
	}
	return buf.Bytes()
}

// TestRecordReplayEverything records a session with server-everything (the
// legacy era) over stdio and Streamable HTTP, and replays it: the
// handshake, the tool list, the calls and their progress come back as
// recorded, with the ids and the progress token of the replaying client,
// and a request the recording does not hold fails with an error naming its
// method and the recording.
func TestRecordReplayEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	argv := testenv.Everything(t, "stdio")
	url := testenv.ServeEverything(t, "streamableHttp")
	for _, tc := range []struct {
		name  string
		tr    Transport
		files []string
	}{
		{"stdio", NewCommandTransport(argv[0], argv[1:]...), []string{"-client-request-server.discover.json", "-server-response-server.discover.json"}},
		{"streamable-http", StreamableHTTP(url, nil), []string{"-client-request-server.discover.json", "-server-http-error-server.discover.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replayEverything(t, recordEverything(t, tc.tr), tc.files)
		})
	}
}

// replayEverything checks the recording recordEverything made, holding
// files, and replays it.
func replayEverything(t *testing.T, data []byte, files []string) {
	a := txtar.Parse(data)
	if !strings.HasPrefix(string(a.Comment), recordingHeader+"\nserver: server-everything\n") {
		t.Errorf("header %q", a.Comment)
	}
	names := make([]string, len(a.Files))
	for i, f := range a.Files {
		names[i] = f.Name
	}
	for _, want := range append(files, "-client-request-initialize.json", "-server-response-initialize.json", "-client-notification-notifications.initialized.json", "-client-request-tools.list.json", "-server-response-tools.call.json", "-server-notification-notifications.progress.json") {
		if !strings.Contains(strings.Join(names, "\n"), want) {
			t.Errorf("no file ending in %s among\n%s", want, strings.Join(names, "\n"))
		}
	}

	rt, err := Replay("everything.txtar", data)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	ctx := testenv.Context(t)
	s, err := Connect(ctx, rt, nil)
	if err != nil {
		t.Fatalf("Connect to the replay: %v", err)
	}
	defer s.Close()
	if s.ProtocolVersion() != "2025-11-25" || s.ServerInfo().Name == "" {
		t.Errorf("replayed %s with server %+v", s.ProtocolVersion(), s.ServerInfo())
	}
	// Unexpected requests first, so that the replayed ids differ from the
	// recorded ones.
	_, err = s.CallTool(ctx, "echo", json.RawMessage(`{"message":"never recorded"}`))
	if err == nil || !strings.Contains(err.Error(), "tools/call echo") || !strings.Contains(err.Error(), "everything.txtar") {
		t.Errorf("unrecorded call: %v, want an error naming tools/call echo and everything.txtar", err)
	}
	_, err = s.ReadResource(ctx, "demo://resource/static/document/architecture.md")
	if err == nil || !strings.Contains(err.Error(), "resources/read") || !strings.Contains(err.Error(), "everything.txtar") {
		t.Errorf("unrecorded method: %v, want an error naming resources/read and everything.txtar", err)
	}
	tools, err := s.ListTools(ctx)
	if err != nil || len(tools) < 10 {
		t.Fatalf("ListTools = %d tools, %v", len(tools), err)
	}
	res, err := s.CallTool(ctx, "echo", map[string]any{"message": "recorded"})
	if err != nil || !strings.Contains(res.Text(), "recorded") {
		t.Errorf("echo = %q, %v", res.Text(), err)
	}
	res, err = s.CallTool(ctx, "get-sum", map[string]any{"b": 3, "a": 2})
	if err != nil || !strings.Contains(res.Text(), "5") {
		t.Errorf("get-sum = %q, %v", res.Text(), err)
	}
	var mu sync.Mutex
	var progress []Progress
	pctx := WithProgress(ctx, func(p Progress) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	})
	if _, err := s.CallTool(pctx, "trigger-long-running-operation", json.RawMessage(`{"duration":0.2,"steps":2}`)); err != nil {
		t.Fatalf("trigger-long-running-operation: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) != 2 || progress[1].Progress != 2 {
		t.Errorf("progress %+v, want the 2 recorded steps", progress)
	}
}

// TestReplayModernEra records a 2026-07-28 session with the TypeScript v2
// server, a tool whose result asks for input included, and replays it pinned
// to that version; pinned to the legacy era, the replay fails on initialize,
// which the recording does not hold.
func TestReplayModernEra(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	argv := testenv.TSV2Server(t)
	ctx := testenv.Context(t)
	accept := func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
		return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"confirm": true}}, nil
	}
	var buf bytes.Buffer
	rec := Record(NewCommandTransport(argv[0], argv[1:]...), &buf, nil)
	s, err := Connect(ctx, rec, &Options{ProtocolVersion: "2026-07-28", Elicitation: accept})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	res, err := s.CallTool(ctx, "deploy", map[string]any{"service": "web"})
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	want := res.Text()
	s.Close()

	rt, err := Replay("modern.txtar", buf.Bytes())
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	s, err = Connect(ctx, rt, &Options{ProtocolVersion: "2026-07-28", Elicitation: accept})
	if err != nil {
		t.Fatalf("Connect to the replay: %v", err)
	}
	defer s.Close()
	if s.ProtocolVersion() != "2026-07-28" {
		t.Errorf("replayed %s", s.ProtocolVersion())
	}
	res, err = s.CallTool(ctx, "deploy", map[string]any{"service": "web"})
	if err != nil || res.Text() != want || !strings.Contains(want, "deployed web") {
		t.Errorf("deploy = %q, %v; recorded %q", res.Text(), err, want)
	}

	_, err = Connect(ctx, rt, &Options{ProtocolVersion: "2025-11-25"})
	if err == nil || !strings.Contains(err.Error(), "initialize") || !strings.Contains(err.Error(), "modern.txtar") {
		t.Errorf("legacy client on a modern recording: %v, want an error naming initialize and modern.txtar", err)
	}
}

// TestReplayMalformed: a malformed recording is an error naming the file
// and, for a bad message, its section; nothing panics.
func TestReplayMalformed(t *testing.T) {
	const head = recordingHeader + "\n"
	const init = "-- 0001-client-request-initialize.json --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}\n"
	for _, tc := range []struct {
		name, data, want string
	}{
		{"not a recording", "-- a.json --\n{}\n", "not a recording"},
		{"empty", head, "holds no messages"},
		{"bad name", head + "-- hello.json --\n{}\n", `section "hello.json"`},
		{"bad direction", head + "-- 0001-proxy-request-x.json --\n{}\n", `section "0001-proxy-request-x.json"`},
		{"bad kind", head + "-- 0001-client-thing-x.json --\n{}\n", `section "0001-client-thing-x.json"`},
		{"not JSON", head + "-- 0001-client-request-x.json --\n{\"jsonrpc\":\n", `section "0001-client-request-x.json": the message is not valid JSON`},
		{"kind mismatch", head + "-- 0001-client-request-x.json --\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n", `section "0001-client-request-x.json": the message is not a request`},
		{"order", head + init + "-- 0001-server-response-initialize.json --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", `section "0001-server-response-initialize.json": message 1 comes after message 1`},
		{"orphan http error", head + "-- 0001-server-http-error-x.json --\n{\"id\":3,\"httpMethod\":\"POST\",\"status\":404}\n", `section "0001-server-http-error-x.json"`},
		{"deep nesting", head + "-- 0001-client-request-x.json --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":" + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}\n", `section "0001-client-request-x.json": the message is not valid JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Replay("bad.txtar", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), "replay bad.txtar") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Replay = %v, want an error naming bad.txtar and %q", err, tc.want)
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "big.txtar")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(maxRecordingSize + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
		_, err = NewReplayTransport(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("NewReplayTransport = %v, want an error naming %s and its size", err, path)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "none.txtar")
		_, err := NewReplayTransport(path)
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), path) {
			t.Errorf("NewReplayTransport = %v, want an error naming %s", err, path)
		}
	})
}

// TestRecordRedactsSecrets: the secrets given to a Recorder, and those it
// learns later, are replaced in every message and in the header, as they
// are and JSON-escaped.
func TestRecordRedactsSecrets(t *testing.T) {
	const token = "tok-0123456789abcdef"
	const late = "late-secret-987654321"
	var buf bytes.Buffer
	mem := newMemConn(func(c *memConn, _ context.Context, m memMsg) error {
		switch m.Method {
		case "initialize":
			c.reply(m, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"echo `+token+`","version":"1"}}`)
		case "tools/list":
			c.reply(m, `{"tools":[{"name":"t","description":"you sent \u0074ok-0123456789abcdef and `+late+`","inputSchema":{"type":"object"}}]}`)
		}
		return nil
	})
	rec := Record(mem, &buf, &RecordOptions{Source: "https://example.com/mcp?key=" + token, Secrets: []string{token}})
	ctx := context.Background()
	s, err := Connect(ctx, rec, &Options{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec.AddSecrets(late)
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, secret := range []string{token, late, `\u0074ok-0123456789abcdef`} {
		if strings.Contains(out, secret) {
			t.Errorf("the recording holds %q:\n%s", secret, out)
		}
	}
	if strings.Count(out, "[REDACTED]") != 4 {
		t.Errorf("the recording has %d marks, want 4 (header, serverInfo, description twice):\n%s", strings.Count(out, "[REDACTED]"), out)
	}
	if _, err := Replay("redacted", buf.Bytes()); err != nil {
		t.Errorf("the redacted recording does not replay: %v", err)
	}
}

// TestReplayServerRequestsAndHTTPErrors records a legacy session whose
// version probe the server refuses with an HTTP status, and in which the
// server asks the client for input (elicitation) during a call, and replays
// it: the probe fails at once with the recorded status, the client's
// handler answers the replayed request, and the call gets its result.
func TestReplayServerRequestsAndHTTPErrors(t *testing.T) {
	var call memMsg
	mem := newMemConn(func(c *memConn, _ context.Context, m memMsg) error {
		switch {
		case m.Method == "server/discover":
			return &HTTPError{Method: "POST", URL: "http://x/mcp", StatusCode: 400, Body: []byte("Bad Request")}
		case m.Method == "initialize":
			c.reply(m, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"asks","version":"1"}}`)
		case m.Method == "tools/call":
			call = m
			c.in <- []byte(`{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`)
		case m.Method == "" && string(m.ID) == `"srv-1"`:
			var r struct {
				Result struct {
					Content struct {
						Name string `json:"name"`
					} `json:"content"`
				} `json:"result"`
			}
			json.Unmarshal([]byte(m.Raw), &r)
			c.reply(call, `{"content":[{"type":"text","text":"hello `+r.Result.Content.Name+`"}]}`)
		}
		return nil
	})
	var asked []string
	opts := func(name string) *Options {
		return &Options{Elicitation: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
			asked = append(asked, r.Message)
			return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": name}}, nil
		}}
	}
	var buf bytes.Buffer
	rec := Record(mem, &buf, nil)
	ctx := context.Background()
	s, err := Connect(ctx, rec, opts("Ada"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(ctx, "greet", nil)
	if err != nil || res.Text() != "hello Ada" {
		t.Fatalf("recorded greet = %q, %v", res.Text(), err)
	}
	s.Close()
	for _, want := range []string{"-- 0002-server-http-error-server.discover.json --", "-server-request-elicitation.create.json --", "-client-response-elicitation.create.json --"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the recording has no %s:\n%s", want, buf.String())
		}
	}

	rt, err := Replay("asks.txtar", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	asked = nil
	s, err = Connect(ctx, rt, opts("Bob"))
	if err != nil {
		t.Fatalf("Connect to the replay: %v", err)
	}
	defer s.Close()
	if s.ProtocolVersion() != "2025-11-25" {
		t.Errorf("replayed version %s", s.ProtocolVersion())
	}
	res, err = s.CallTool(ctx, "greet", nil)
	if err != nil || res.Text() != "hello Ada" {
		t.Errorf("replayed greet = %q, %v; want the recorded answer", res.Text(), err)
	}
	if len(asked) != 1 || asked[0] != "Your name?" {
		t.Errorf("the replay asked %q, want the recorded question once", asked)
	}
}

// TestSendRequest sends a request the Session has no method for, and
// refuses params that are not an object or that hold _meta.
func TestSendRequest(t *testing.T) {
	mem := newMemConn(legacyMem(func(c *memConn, _ context.Context, m memMsg) error {
		if m.Method == "resources/list" {
			c.reply(m, `{"resources":[],"echo":`+string(m.Params)+`}`)
		} else {
			c.replyError(m, CodeMethodNotFound, "null")
		}
		return nil
	}))
	ctx := context.Background()
	s, err := Connect(ctx, mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.SendRequest(ctx, "resources/list", json.RawMessage(` {"cursor":"c2"} `))
	if err != nil || string(res) != `{"resources":[],"echo":{"cursor":"c2"}}` {
		t.Errorf("SendRequest = %s, %v", res, err)
	}
	if res, err := s.SendRequest(ctx, "resources/list", nil); err != nil || !strings.Contains(string(res), `"echo":null`) && !strings.Contains(string(res), `"echo":{}`) {
		t.Errorf("SendRequest without params = %s, %v", res, err)
	}
	for _, bad := range []string{`[1]`, `{"a":`, `{"_meta":{}}`} {
		if _, err := s.SendRequest(ctx, "resources/list", json.RawMessage(bad)); err == nil || !strings.Contains(err.Error(), "resources/list: params") {
			t.Errorf("SendRequest(%s) = %v, want an error about the params", bad, err)
		}
	}
	if _, err := s.SendRequest(ctx, "prompts/list", nil); !strings.Contains(fmt.Sprint(err), "prompts/list") {
		t.Errorf("SendRequest(prompts/list) = %v, want an error naming the method", err)
	}
}

// FuzzReplay: no recording makes Replay panic, and the runtime's own txtar
// reader splits every input as golang.org/x/tools/txtar does.
func FuzzReplay(f *testing.F) {
	f.Add([]byte(recordingHeader + "\n-- 0001-client-request-x.json --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\n-- 0002-server-response-x.json --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"))
	f.Add([]byte("-- a --\n-- b --\nx\n--  --\n-- c --"))
	f.Add([]byte("text\n-- -- --\n-- x\n--x --\n"))
	if data, err := os.ReadFile("../generated/everything/testdata/everything.txtar"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		comment, files := parseTxtar(data, len(data))
		a := txtar.Parse(data)
		// txtar adds a final newline to a comment or file that lacks one.
		nl := []byte("\n")
		if !bytes.Equal(bytes.TrimSuffix(comment, nl), bytes.TrimSuffix(a.Comment, nl)) || len(files) != len(a.Files) {
			t.Fatalf("parseTxtar: comment %q and %d files; txtar: %q and %d", comment, len(files), a.Comment, len(a.Files))
		}
		for i := range files {
			if files[i].name != a.Files[i].Name || !bytes.Equal(bytes.TrimSuffix(a.Files[i].Data, nl), bytes.TrimSuffix(files[i].data, nl)) {
				t.Fatalf("file %d: %q %q; txtar: %q %q", i, files[i].name, files[i].data, a.Files[i].Name, a.Files[i].Data)
			}
		}
		rt, err := Replay("fuzz.txtar", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "replay fuzz.txtar") {
				t.Fatalf("error %q does not name the recording", err)
			}
			return
		}
		c, err := rt.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c.Write(context.Background(), &OutMessage{Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"x"}`), Method: "x", ID: "1"})
		c.Close()
	})
}

// TestReplayConcurrentCalls replays calls recorded one after the other to
// many goroutines at once, in another order: each gets the answer to its
// own arguments.
func TestReplayConcurrentCalls(t *testing.T) {
	mem := newMemConn(legacyMem(func(c *memConn, _ context.Context, m memMsg) error {
		var p struct {
			Arguments struct {
				N int `json:"n"`
			} `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		c.reply(m, fmt.Sprintf(`{"content":[{"type":"text","text":"n=%d"}]}`, p.Arguments.N))
		return nil
	}))
	var buf bytes.Buffer
	ctx := context.Background()
	s, err := Connect(ctx, Record(mem, &buf, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := range n {
		if _, err := s.CallTool(ctx, "count", map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	rt, err := Replay("count.txtar", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	s, err = Connect(ctx, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for i := n - 1; i >= 0; i-- {
		wg.Go(func() {
			res, err := s.CallTool(ctx, "count", map[string]int{"n": i})
			if want := fmt.Sprintf("n=%d", i); err != nil || res.Text() != want {
				t.Errorf("count %d = %q, %v; want %q", i, res.Text(), err, want)
			}
		})
	}
	wg.Wait()
}

// TestReplayManyNotifications: a request followed by more notifications
// than a connection holds unread is replayed whole and in order, the Write
// waiting while the reader catches up.
func TestReplayManyNotifications(t *testing.T) {
	var b strings.Builder
	b.WriteString(recordingHeader + "\n-- 0001-client-request-run.json --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"run\"}\n")
	const n = maxReplayQueue + 500
	for i := range n {
		fmt.Fprintf(&b, "-- %04d-server-notification-notifications.message.json --\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":%d}}\n", i+2, i)
	}
	fmt.Fprintf(&b, "-- %04d-server-response-run.json --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", n+2)
	rt, err := Replay("many.txtar", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Context(t)
	c, err := rt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		done <- c.Write(ctx, &OutMessage{Data: []byte(`{"jsonrpc":"2.0","id":7,"method":"run"}`), Method: "run", ID: "7"})
	}()
	for i := range n {
		msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`"params":{"data":%d}`, i); !strings.Contains(string(msg), want) {
			t.Fatalf("message %d = %s, want %s", i, msg, want)
		}
	}
	msg, err := c.Read(ctx)
	if err != nil || string(msg) != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Errorf("response = %s, %v", msg, err)
	}
	if err := <-done; err != nil {
		t.Errorf("Write = %v", err)
	}
}

// TestRecordInvalidMessages: what the server sends that is no JSON-RPC
// message, a file marker and a hostile method name included, is recorded
// as a JSON string without breaking the archive, and replayed as it came.
func TestRecordInvalidMessages(t *testing.T) {
	const garbage = "not json\n-- 0099-client-request-x.json --\n{"
	mem := newMemConn(legacyMem(func(c *memConn, _ context.Context, m memMsg) error {
		c.in <- []byte(garbage)
		c.in <- []byte(`{"jsonrpc":"2.0","method":"x/../../\n-- y --","params":{}}`)
		c.reply(m, `{"tools":[]}`)
		return nil
	}))
	var buf bytes.Buffer
	ctx := context.Background()
	s, err := Connect(ctx, Record(mem, &buf, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	a := txtar.Parse(buf.Bytes())
	var names []string
	for _, f := range a.Files {
		names = append(names, f.Name)
	}
	got := strings.Join(names, " ")
	if !strings.Contains(got, "-server-invalid-none.json 0008-server-notification-x......._--_y_--.json 0009-server-response-tools.list.json") {
		t.Errorf("files %s", got)
	}
	rt, err := Replay("invalid.txtar", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, m := range []string{`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`} {
		if err := c.Write(ctx, &OutMessage{Data: []byte(m), Method: "x", ID: "1"}); err != nil {
			t.Fatalf("Write(%s) = %v", m, err)
		}
	}
	var read []string
	for range 4 {
		msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		read = append(read, string(msg))
	}
	if read[2] != garbage {
		t.Errorf("replayed %q, want the invalid message as it came", read)
	}
}

// scrubbingConn is a memConn that knows a credential, as an HTTP
// transport knows its bearer token, and declares ScrubSecrets for it.
type scrubbingConn struct {
	*memConn
	secret string
}

func (c *scrubbingConn) Connect(context.Context) (Conn, error) { return c, nil }

func (c *scrubbingConn) ConnCapabilities() ConnCapabilities {
	return ConnCapabilities{ScrubSecrets: func(s string) string { return strings.ReplaceAll(s, c.secret, "[REDACTED]") }}
}

// TestRecordRedactsConnectionSecretsEverywhere: the credentials the
// wrapped transport's connection knows, and no RecordOptions.Secrets name,
// stay out of the whole recording: out of the header's source, and out of
// the file names, where a server's notification or request puts its method
// (a server that echoes the token as a method name).
func TestRecordRedactsConnectionSecretsEverywhere(t *testing.T) {
	const token = "tok0123456789abcdef"
	conn := &scrubbingConn{secret: token, memConn: newMemConn(legacyMem(func(c *memConn, _ context.Context, m memMsg) error {
		if m.Method == "tools/list" {
			c.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/` + token + `","params":{}}`)
			c.reply(m, `{"tools":[]}`)
		}
		return nil
	}))}
	var buf bytes.Buffer
	rec := Record(conn, &buf, &RecordOptions{Source: "https://example.com/mcp?key=" + token})
	ctx := context.Background()
	s, err := Connect(ctx, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, token) {
		t.Errorf("the recording holds the connection's credential:\n%s", out)
	}
	if _, err := Replay("redacted", buf.Bytes()); err != nil {
		t.Errorf("the redacted recording does not replay: %v", err)
	}
}

// progressRecording is a recording of n requests, each with a progress
// token of its own, a progress notification naming the first request's token for each,
// and their responses, in the order given by respond(i), the i-th answered.
func progressRecording(n int, respond func(i int) int) []byte {
	var b strings.Builder
	b.WriteString(recordingHeader + "\n")
	seq := 1
	section := func(name, format string, args ...any) {
		fmt.Fprintf(&b, "-- %06d-%s.json --\n"+format+"\n", append([]any{seq, name}, args...)...)
		seq++
	}
	for i := range n {
		section("client-request-run", `{"jsonrpc":"2.0","id":%d,"method":"run","params":{"_meta":{"progressToken":%d}}}`, i, i)
	}
	for range n {
		section("server-notification-notifications.progress", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":0,"progress":1}}`)
	}
	for i := range n {
		section("server-response-run", `{"jsonrpc":"2.0","id":%d,"result":{}}`, respond(i))
	}
	return []byte(b.String())
}

// A progress notification belongs to the last request still awaiting its
// response that carries its token, and server messages without a request of
// their own to the last request awaiting its response.
func TestReplayIndexesPendingRequests(t *testing.T) {
	rec := []byte(recordingHeader + `
-- 0001-client-request-run.json --
{"jsonrpc":"2.0","id":1,"method":"run","params":{"i":1,"_meta":{"progressToken":"a"}}}
-- 0002-client-request-run.json --
{"jsonrpc":"2.0","id":2,"method":"run","params":{"i":2,"_meta":{"progressToken":"a"}}}
-- 0003-client-request-run.json --
{"jsonrpc":"2.0","id":3,"method":"run","params":{"i":3}}
-- 0004-server-notification-notifications.progress.json --
{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":1}}
-- 0005-server-notification-notifications.message.json --
{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"m1"}}
-- 0006-server-response-run.json --
{"jsonrpc":"2.0","id":3,"result":{}}
-- 0007-server-response-run.json --
{"jsonrpc":"2.0","id":2,"result":{}}
-- 0008-server-notification-notifications.progress.json --
{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":2}}
-- 0009-server-notification-notifications.message.json --
{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"m2"}}
-- 0010-server-response-run.json --
{"jsonrpc":"2.0","id":1,"result":{}}
`)
	rt, err := Replay("pending.txtar", rec)
	if err != nil {
		t.Fatal(err)
	}
	// Each request's replies, one line each: the requests differ in their
	// params, so each is an exchange of its own.
	var got []string
	for _, exs := range rt.requests {
		for _, ex := range exs {
			var said []string
			for _, r := range ex.replies {
				said = append(said, string(r.data))
			}
			got = append(got, strings.Join(said, " "))
		}
	}
	slices.Sort(got)
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"m1"}} {"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":1}} {"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":2}} {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"m2"}} {"jsonrpc":"2.0","id":1,"result":{}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("replies by request:\ngot  %q\nwant %q", got, want)
	}
}

// TestReplaySameRequestConcurrently: two identical requests in flight at
// once, recorded once, each get a response with their own id, even when the
// second is written before the first's response is queued.
func TestReplaySameRequestConcurrently(t *testing.T) {
	rt, err := Replay("same.txtar", []byte(recordingHeader+`
-- 0001-client-request-run.json --
{"jsonrpc":"2.0","id":1,"method":"run","params":{"_meta":{"progressToken":"p"}}}
-- 0002-server-notification-notifications.progress.json --
{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}
-- 0003-server-response-run.json --
{"jsonrpc":"2.0","id":1,"result":{}}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Context(t)
	conn, err := rt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := conn.(*replayConn)
	ex := rt.requests["run"][0]
	// Holding wmu keeps each Write between taking its exchange and
	// queueing its replies, so that both are in flight at once.
	c.wmu.Lock()
	errs := make(chan error, 2)
	for _, id := range []string{"10", "20"} {
		go func() {
			errs <- c.Write(ctx, &OutMessage{Data: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"run","params":{"_meta":{"progressToken":"t` + id + `"}}}`), Method: "run", ID: id})
		}()
		for {
			c.mu.Lock()
			got := string(c.sent[ex].id)
			c.mu.Unlock()
			if got == id {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			default:
				goruntime.Gosched()
			}
		}
	}
	c.wmu.Unlock()
	var got []string
	for range 4 {
		msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(msg))
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(got)
	want := []string{
		`{"jsonrpc":"2.0","id":10,"result":{}}`,
		`{"jsonrpc":"2.0","id":20,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"t10"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"t20"}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("replies:\ngot  %q\nwant %q", got, want)
	}
}

// TestRecordKeepsSessionInfo: a Recorder around Streamable HTTP hides
// nothing Middleware learns of the connection (the transport, the server's
// address and port, the session id), so that a program recording its own
// sessions keeps its spans' attributes.
func TestRecordKeepsSessionInfo(t *testing.T) {
	srv := newStreamableServer(t, false, false)
	var buf bytes.Buffer
	var info *SessionInfo
	mw := func(next Handler) Handler {
		return func(ctx context.Context, req *Request) (*Response, error) {
			if req.Method == "tools/list" {
				info = req.Session
			}
			return next(ctx, req)
		}
	}
	ctx := testenv.Context(t)
	s, err := Connect(ctx, Record(HTTP(srv.URL, testHTTPOptions(t)), &buf, nil), &Options{Middleware: []Middleware{mw}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if info == nil {
		t.Fatal("the middleware saw no tools/list")
	}
	if info.Transport != "tcp" || info.ServerAddress != "127.0.0.1" || info.ServerPort == 0 || info.SessionID() != srv.sessionID() {
		t.Errorf("recorded session info: transport %q, server %q:%d, session id %q; want tcp, 127.0.0.1, the port, %q", info.Transport, info.ServerAddress, info.ServerPort, info.SessionID(), srv.sessionID())
	}
}

// TestRecordAddSecretsRepeated: a credential added again on each request,
// as mcpgen record adds the Authorization header an Authorizer sets, does
// not grow the Recorder, whatever the session's length.
func TestRecordAddSecretsRepeated(t *testing.T) {
	rec := Record(nil, io.Discard, &RecordOptions{Secrets: []string{"given-secret-1"}})
	for range 20_000 {
		rec.AddSecrets("Bearer access-token-1", "access-token-1")
	}
	rec.AddSecrets("access-token-2")
	if n := len(rec.secrets); n != 4 {
		t.Errorf("the Recorder holds %d secrets after the same two were added 20,000 times, want 4", n)
	}
	if got := rec.red.String("access-token-1 access-token-2 given-secret-1"); got != "[REDACTED] [REDACTED] [REDACTED]" {
		t.Errorf("redacted: %q", got)
	}
}

// TestRecordBoundsRequestsInFlight: a server that sends requests the
// Session never answers, their ids too long to answer, does not make the
// Recorder keep those ids: its memory stays bounded whatever the server
// sends.
func TestRecordBoundsRequestsInFlight(t *testing.T) {
	const n, idSize = 32, 1 << 20
	mem := newMemConn(legacyMem(func(c *memConn, _ context.Context, m memMsg) error {
		if m.Method == "tools/list" {
			for i := range n {
				c.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d%s","method":"ping"}`, i, strings.Repeat("x", idSize)))
			}
			c.reply(m, `{"tools":[]}`)
		}
		return nil
	}))
	rec := Record(mem, io.Discard, nil)
	ctx := testenv.Context(t)
	s, err := Connect(ctx, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	held := 0
	for k, v := range rec.methods {
		held += len(k) + len(v)
	}
	rec.mu.Unlock()
	if held > 64<<10 {
		t.Errorf("the Recorder holds %d bytes of request ids after %d unanswerable requests of %d bytes each", held, n, idSize)
	}
}

// TestReplayTooManyMessagesBounded: a recording of more messages than
// Replay takes is refused without first holding every one of its sections:
// what Replay allocates is bounded by the number of messages it takes, not
// by the recording's size (16 MiB of empty sections here).
func TestReplayTooManyMessagesBounded(t *testing.T) {
	const marker = "-- a --\n"
	data := []byte(recordingHeader + "\n" + strings.Repeat(marker, (16<<20)/len(marker)))
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	_, err := Replay("many.txtar", data)
	goruntime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "more than 100000 messages") {
		t.Fatalf("Replay = %v, want an error for too many messages", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("Replay allocated %d MiB to refuse a recording of %d MiB", alloc>>20, len(data)>>20)
	}
}

// TestReplayStrayResponse: a response the server sent to no request of the
// session, here one sent twice, is recorded as it came; the replay leaves
// it out, as the Session ignored it, and serves the rest of the recording.
func TestReplayStrayResponse(t *testing.T) {
	mem := newMemConn(legacyMem(func(c *memConn, _ context.Context, m memMsg) error {
		if m.Method == "tools/call" {
			c.reply(m, textResult)
			c.reply(m, `{"content":[{"type":"text","text":"again"}]}`)
		}
		return nil
	}))
	var buf bytes.Buffer
	ctx := testenv.Context(t)
	s, err := Connect(ctx, Record(mem, &buf, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"a", "b"} {
		if res, err := s.CallTool(ctx, tool, nil); err != nil || res.Text() != "ok" {
			t.Fatalf("recorded %s = %v, %v", tool, res, err)
		}
	}
	s.Close()
	if n := strings.Count(buf.String(), "-server-response-"); n < 5 {
		t.Fatalf("the recording holds %d responses, want the second answers too:\n%s", n, buf.String())
	}
	rt, err := Replay("stray.txtar", buf.Bytes())
	if err != nil {
		t.Fatalf("Replay = %v", err)
	}
	s, err = Connect(ctx, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tool := range []string{"a", "b"} {
		if res, err := s.CallTool(ctx, tool, nil); err != nil || res.Text() != "ok" {
			t.Errorf("replayed %s = %v, %v", tool, res, err)
		}
	}
}

// TestReplayCallRecordedWithoutAnswer: a call that got no answer when
// recorded, because it timed out or the connection ended, fails at once on
// replay, saying so, instead of waiting out its timeout again; the calls
// recorded with their answers are replayed as before.
func TestReplayCallRecordedWithoutAnswer(t *testing.T) {
	mem := newMemConn(legacyMem(func(c *memConn, _ context.Context, m memMsg) error {
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(m.Params, &p)
		switch {
		case m.Method != "tools/call":
		case p.Name == "slow":
			// Never answered: the call times out.
		case p.Name == "drop":
			c.Close()
		default:
			c.reply(m, textResult)
		}
		return nil
	}))
	var buf bytes.Buffer
	// No deadline: Options.CallTimeout bounds the calls.
	ctx := context.Background()
	s, err := Connect(ctx, Record(mem, &buf, nil), &Options{CallTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var te *TimeoutError
	if _, err := s.CallTool(ctx, "slow", nil); !errors.As(err, &te) {
		t.Fatalf("recorded slow = %v, want a timeout", err)
	}
	if _, err := s.CallTool(ctx, "fast", nil); err != nil {
		t.Fatalf("recorded fast = %v", err)
	}
	if _, err := s.CallTool(ctx, "drop", nil); err == nil {
		t.Fatal("recorded drop succeeded")
	}
	s.Close()

	rt, err := Replay("unanswered.txtar", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The timeout only bounds the replay's failure: a replay that waited
	// for an answer would fail with a TimeoutError.
	s, err = Connect(ctx, rt, &Options{CallTimeout: loadSlack})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct{ tool, want string }{
		{"slow", `replay unanswered.txtar: the recorded tools/call request got no answer: the client cancelled it ("timeout")`},
		{"drop", `replay unanswered.txtar: the recorded tools/call request got no answer: the recording ends before its answer`},
	} {
		_, err := s.CallTool(ctx, tc.tool, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &te) {
			t.Errorf("replayed %s = %v, want an error containing %q", tc.tool, err, tc.want)
		}
	}
	if res, err := s.CallTool(ctx, "fast", nil); err != nil || res.Text() != "ok" {
		t.Errorf("replayed fast = %v, %v", res, err)
	}
}

// TestReplaySameRequestWithServerRequestConcurrently: two identical calls
// in flight at once, recorded once with a request the server made during
// it, each get the server's request under an id of its own and the
// response under their own id.
func TestReplaySameRequestWithServerRequestConcurrently(t *testing.T) {
	var call memMsg
	mem := newMemConn(legacyMem(func(c *memConn, _ context.Context, m memMsg) error {
		switch {
		case m.Method == "tools/call":
			call = m
			c.in <- []byte(`{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`)
		case m.Method == "" && string(m.ID) == `"srv-1"`:
			c.reply(call, `{"content":[{"type":"text","text":"hello"}]}`)
		}
		return nil
	}))
	var mu sync.Mutex
	var ids []string
	both := make(chan struct{})
	opts := &Options{Elicitation: func(ctx context.Context, r *ElicitRequest) (*ElicitResult, error) {
		mu.Lock()
		ids = append(ids, "asked")
		if len(ids) == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
	}}
	var buf bytes.Buffer
	ctx := context.Background()
	rec, err := Connect(ctx, Record(mem, &buf, nil), &Options{Elicitation: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
		return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := rec.CallTool(ctx, "greet", nil); err != nil || res.Text() != "hello" {
		t.Fatalf("recorded greet = %v, %v", res, err)
	}
	rec.Close()

	rt, err := Replay("asks.txtar", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The timeout only bounds a replay that crossed the calls.
	opts.CallTimeout = loadSlack
	s, err := Connect(ctx, rt, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if res, err := s.CallTool(ctx, "greet", nil); err != nil || res.Text() != "hello" {
				t.Errorf("replayed greet = %v, %v", res, err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 2 {
		t.Errorf("the elicitation was asked %d times, want once per call", len(ids))
	}
}

// TestReplayCallCancelledWhenRecorded: a call whose context ended while it
// awaited its answer (cancelled, or past its deadline) fails at once on
// replay, saying the recording's call was cancelled and why, and the
// error matches the context's error as the recorded call's did. It used to
// wait on replay until the replaying call's own context or timeout ended.
func TestReplayCallCancelledWhenRecorded(t *testing.T) {
	arrived := make(chan struct{}, 1)
	mem := newMemConn(legacyMem(func(c *memConn, _ context.Context, m memMsg) error {
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(m.Params, &p)
		switch {
		case m.Method != "tools/call":
		case p.Name == "abort":
			arrived <- struct{}{} // never answered: the caller cancels it
		case p.Name == "late":
			// Never answered: the caller's deadline passes.
		default:
			c.reply(m, textResult)
		}
		return nil
	}))
	var buf bytes.Buffer
	s, err := Connect(context.Background(), Record(mem, &buf, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	if _, err := s.CallTool(cctx, "abort", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("recorded abort = %v, want context.Canceled", err)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer dcancel()
	if _, err := s.CallTool(dctx, "late", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("recorded late = %v, want context.DeadlineExceeded", err)
	}
	if _, err := s.CallTool(context.Background(), "fast", nil); err != nil {
		t.Fatalf("recorded fast = %v", err)
	}
	s.Close()

	rt, err := Replay("cancelled.txtar", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The timeout only bounds the replay's failure: a replay that waited
	// for an answer would fail with a TimeoutError.
	s, err = Connect(context.Background(), rt, &Options{CallTimeout: loadSlack})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var te *TimeoutError
	for _, tc := range []struct {
		tool, want string
		is         error
	}{
		{"abort", `replay cancelled.txtar: the recorded tools/call request got no answer: the client cancelled it ("context canceled")`, context.Canceled},
		{"late", `replay cancelled.txtar: the recorded tools/call request got no answer: the client cancelled it ("context deadline exceeded")`, context.DeadlineExceeded},
	} {
		_, err := s.CallTool(context.Background(), tc.tool, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &te) || !errors.Is(err, tc.is) {
			t.Errorf("replayed %s = %v, want an error containing %q that matches %v", tc.tool, err, tc.want, tc.is)
		}
	}
	if res, err := s.CallTool(context.Background(), "fast", nil); err != nil || res.Text() != "ok" {
		t.Errorf("replayed fast = %v, %v", res, err)
	}
}
