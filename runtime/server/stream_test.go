package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// rawConn speaks to Serve line by line.
type rawConn struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func serveRaw(t *testing.T, opts *server.Options) *rawConn {
	t.Helper()
	s, err := testServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rawConn{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	c.out.Buffer(nil, 1<<20)
	go func() {
		c.done <- s.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		if err := <-c.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return c
}

// ask writes line and returns the next line the server writes.
func (c *rawConn) ask(line string) string {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
	if !c.out.Scan() {
		c.t.Fatalf("no answer to %.80s: %v", line, c.out.Err())
	}
	return c.out.Text()
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestServeAnswersBadInputWithErrors(t *testing.T) {
	c := serveRaw(t, &server.Options{MaxMessageSize: 1000})
	for _, tc := range []struct{ send, want string }{
		{`not json`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `"code":-32600,"message":"batches are not supported"`},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `"code":-32600`},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `"message":"the request id is null"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the request id is not a string or a number"}}`},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, `"id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, `"id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, `"id":null,"error":{"code":-32600,"message":"invalid request: `},
		{`7`, `"id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, `"id":1,"error":{"code":-32602,"message":"ping: params are not an object"}`},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, `"message":"tools/list: the connection is not initialized (send initialize first)"`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, `"code":-32602,"message":"tools/list: _meta has no io.modelcontextprotocol/clientCapabilities"`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}}`, `"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1900-01-01"}}`},
		{`{"jsonrpc":"2.0","id":6,"method":"server/discover"}`, `"code":-32602,"message":"server/discover: _meta has no io.modelcontextprotocol/protocolVersion"`},
		{`{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{` + meta + `}}`, `"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpgen-server","version":"dev"}}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":[1],` + meta + `}}`, `"code":-32602,"message":"tools/call: the arguments of tool echo are not an object"`},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"x",` + meta + `}}`, `"message":"tools/list: invalid cursor \"x\""`},
		{`{"jsonrpc":"2.0","id":10,"method":"resources/list","params":{` + meta + `}}`, `"code":-32601,"message":"Method not found: resources/list"`},
		{`{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, `"id":null,"error":{"code":-32600,"message":"the message exceeds the 1000-byte limit"}`},
		{`{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, `"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"mcpgen-server","version":"dev"}}`},
		{`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`, `"result":{"content":[{"type":"text","text":"a"}],"structuredContent":{"said":"a"}}`},
	} {
		got := c.ask(tc.send)
		if !strings.Contains(got, tc.want) {
			t.Errorf("sent %.60s\ngot  %s\nwant %s", tc.send, got, tc.want)
		}
	}
}

// A call that notifications/cancelled names ends, and gets no response.
func TestServeCancelledCallIsNotAnswered(t *testing.T) {
	c := serveRaw(t, nil)
	c.ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	if _, err := io.WriteString(c.in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if got := c.ask(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Fatalf("after the cancellation: %s", got)
	}
}

// A client that sends calls faster than the server answers them makes the
// connection hold their messages: beyond maxQueuedBytes (64 MiB) of them, a
// call is refused at once rather than held.
func TestServeBoundsTheBytesItHolds(t *testing.T) {
	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, inR, outW) }()
	wrote := make(chan error, 1)
	go func() {
		pad := strings.Repeat("x", 4<<20)
		_, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`+"\n")
		for i := 2; i < 22 && err == nil; i++ {
			_, err = fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait","arguments":{"pad":%q}}}`+"\n", i, pad)
		}
		wrote <- err
	}()
	answers, read := make(chan string), make(chan struct{})
	defer func() {
		cancel()
		inW.Close()
		outR.Close()
		<-served
		<-wrote
		<-read
	}()
	go func() {
		defer close(read)
		out := bufio.NewScanner(outR)
		out.Buffer(nil, 1<<20)
		for out.Scan() {
			select {
			case answers <- out.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	next := func() string {
		select {
		case a := <-answers:
			return a
		case <-time.After(time.Minute):
			t.Fatal("no answer within a minute: the server holds every call")
			return ""
		}
	}
	if a := next(); !strings.Contains(a, `"id":1,"result"`) {
		t.Fatalf("initialize: %s", a)
	}
	// Each call is a little over 4 MiB: the 16th would take the held bytes
	// past 64 MiB.
	if a, want := next(), `{"jsonrpc":"2.0","id":17,"error":{"code":-32603,"message":"the server holds 15 requests of `; !strings.HasPrefix(a, want) {
		t.Fatalf("the 16th call: got %.200s, want %s...", a, want)
	}
}

// FuzzServe feeds arbitrary lines to a connection: the server must answer
// each request line with one JSON-RPC message, and never panic.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},` + meta + `}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"boom"` + `,` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[]}}`,
	} {
		f.Add(seed)
	}
	s, err := testServer(&server.Options{MaxMessageSize: 4096})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(line, "\n", " ")
		var out strings.Builder
		if err := s.Serve(context.Background(), strings.NewReader(line+"\n"), &out); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Fatalf("invalid JSON answer %q to %q", l, line)
			}
		}
	})
}

// stuckWriter is the output of a client that stopped reading the server's
// answers: its Write blocks until release is closed, and says on writing
// when one has started.
type stuckWriter struct{ writing, release chan struct{} }

func (w *stuckWriter) Write([]byte) (int, error) {
	select {
	case w.writing <- struct{}{}:
	default:
	}
	<-w.release
	return 0, io.ErrClosedPipe
}

// Serve returns when its context ends even though the client stopped
// reading its answers: the write that blocks goes on in the background, as
// a blocked read does.
func TestServeReturnsWhenClientStopsReading(t *testing.T) {
	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &stuckWriter{writing: make(chan struct{}, 1), release: make(chan struct{})}
	defer close(w.release)
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, inR, w) }()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	<-w.writing
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve = %v, want context.Canceled", err)
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("Serve did not return after its context ended, while a write of an answer blocked")
	}
}

// The 2026-07-28 era removed ping and the initialize handshake: a request
// for either that carries that era's _meta is answered as a real server
// answers a method it does not have, with -32601 (404 over HTTP); without
// the _meta, both are the legacy era's as before.
func TestModernEraHasNoPingOrInitialize(t *testing.T) {
	modernPing := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta + `}}`
	modernInit := `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"},` + meta + `}}`
	c := serveRaw(t, nil)
	for _, tc := range []struct{ send, want string }{
		{modernPing, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: ping"}}`},
		{modernInit, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: initialize"}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`, `"result":{"protocolVersion":"2025-11-25"`},
	} {
		if got := c.ask(tc.send); !strings.Contains(got, tc.want) {
			t.Errorf("sent %.60s\ngot  %s\nwant %s", tc.send, got, tc.want)
		}
	}

	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	for _, tc := range []struct{ method, body string }{{"ping", modernPing}, {"initialize", modernInit}} {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(tc.body))
		setMediaTypes(req)
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", tc.method)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(got), `"code":-32601`) {
			t.Errorf("%s over HTTP: got %d %s, want 404 with -32601", tc.method, resp.StatusCode, got)
		}
	}
}
