package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// setMediaTypes gives req the Content-Type and Accept headers the
// specification requires of a POST, and returns it.
func setMediaTypes(req *http.Request) *http.Request {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return req
}

// post sends body to url as a client of Streamable HTTP sends it, with the
// Content-Type and Accept headers the specification requires, and header
// besides; it returns the status and the body of the response.
func post(t *testing.T, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	setMediaTypes(req)
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(got)
}

// A POST whose Content-Type is not application/json is refused with 415,
// and one whose Accept does not list both application/json and
// text/event-stream with 406, in both eras and for notifications too, as
// the go-sdk and TypeScript servers refuse them; a Session over HTTP sends
// both.
func TestServeHTTPNeedsContentTypeAndAccept(t *testing.T) {
	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	legacy := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	modern := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`
	notification := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	legacyHeaders := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
	modernHeaders := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	with := func(h map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for hk, hv := range h {
			out[hk] = hv
		}
		return out
	}
	for _, era := range []struct {
		name, body string
		header     map[string]string
		ok         int
	}{
		{"legacy", legacy, legacyHeaders, 200},
		{"modern", modern, modernHeaders, 200},
		{"notification", notification, nil, 202},
	} {
		for _, tc := range []struct {
			name, header, value string
			status              int
		}{
			{"no content type", "Content-Type", "", 415},
			{"text content type", "Content-Type", "text/plain", 415},
			{"json with a charset", "Content-Type", "application/json; charset=utf-8", era.ok},
			{"no accept", "Accept", "", 406},
			{"accept json alone", "Accept", "application/json", 406},
			{"accept event streams alone", "Accept", "text/event-stream", 406},
			{"accept both apart", "Accept", "text/event-stream;q=0.9, APPLICATION/JSON", era.ok},
			{"proper headers", "X-Nothing", "", era.ok},
		} {
			if status, got := post(t, hs.URL, era.body, with(era.header, tc.header, tc.value)); status != tc.status {
				t.Errorf("%s, %s: got %d %s, want %d", era.name, tc.name, status, got, tc.status)
			}
		}
	}
	for _, pin := range []string{"2025-03-26", "2025-11-25", "2026-07-28"} {
		sess, err := runtime.Connect(context.Background(), runtime.HTTP(hs.URL, nil), &runtime.Options{ProtocolVersion: pin})
		if err != nil {
			t.Fatalf("%s: %v", pin, err)
		}
		if res, err := sess.CallTool(context.Background(), "echo", map[string]any{"text": "hi"}); err != nil || res.Text() != "hi" {
			t.Errorf("%s: %+v, %v", pin, res, err)
		}
		sess.Close()
	}
}

// An initialize whose MCP-Protocol-Version header names the 2026-07-28 era
// has headers that disagree with its body, the legacy handshake: a real
// server refuses it with -32020 (400), rather than running the handshake.
func TestServeHTTPInitializeWithModernHeader(t *testing.T) {
	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	status, got := post(t, hs.URL, init, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "initialize"})
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"header MCP-Protocol-Version is \"2026-07-28\", and the request is the initialize handshake of the legacy era"}}`
	if status != http.StatusBadRequest || got != want {
		t.Errorf("got %d %s\nwant 400 %s", status, got, want)
	}
	// Without the header, or with a legacy one, the handshake is answered.
	for _, v := range []string{"", "2025-11-25"} {
		if status, got := post(t, hs.URL, init, map[string]string{"Mcp-Protocol-Version": v}); status != 200 || !strings.Contains(got, `"result":{"protocolVersion":"2025-11-25"`) {
			t.Errorf("header %q: got %d %s", v, status, got)
		}
	}
}

// 2025-03-26 requires servers to accept JSON-RPC batches: over HTTP, a POST
// of that version (no MCP-Protocol-Version header says it) may carry an
// array, answered with the array of the responses to its requests; on a
// stdio connection initialized with that version, a line may. Later
// versions removed batches, and they stay refused there.
func TestBatchesOf20250326(t *testing.T) {
	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},` +
		`{"jsonrpc":"2.0","method":"notifications/initialized"},` +
		`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"nope"},` +
		`7]`
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"b","result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"said":"hi"}}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: nope"}}`,
		`"id":null,"error":{"code":-32600`,
	}
	check := func(name, got string) {
		t.Helper()
		var items []json.RawMessage
		if err := json.Unmarshal([]byte(got), &items); err != nil || len(items) != len(want) {
			t.Fatalf("%s: got %s, want an array of %d responses", name, got, len(want))
		}
		for _, w := range want {
			found := false
			for _, it := range items {
				found = found || strings.Contains(string(it), w)
			}
			if !found {
				t.Errorf("%s: got %s, want an item with %s", name, got, w)
			}
		}
	}
	for _, v := range []string{"", "2025-03-26"} {
		status, got := post(t, hs.URL, batch, map[string]string{"Mcp-Protocol-Version": v})
		if status != 200 {
			t.Errorf("HTTP, header %q: got %d %s", v, status, got)
			continue
		}
		check("HTTP, header "+v, got)
	}
	notifications := `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`
	if status, got := post(t, hs.URL, notifications, nil); status != http.StatusAccepted || got != "" {
		t.Errorf("HTTP, notifications alone: got %d %s, want 202", status, got)
	}
	for _, tc := range []struct {
		body, version string
		status        int
		want          string
	}{
		{batch, "2025-11-25", 400, `"code":-32600,"message":"batches are not supported in 2025-11-25"`},
		{`[]`, "", 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the batch is empty"}}`},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`, "", 200, `[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"initialize must not be part of a batch"}}]`},
	} {
		if status, got := post(t, hs.URL, tc.body, map[string]string{"Mcp-Protocol-Version": tc.version}); status != tc.status || !strings.Contains(got, tc.want) {
			t.Errorf("HTTP, %.40s under %q: got %d %s, want %d with %s", tc.body, tc.version, status, got, tc.status, tc.want)
		}
	}

	c := serveRaw(t, nil)
	if got := c.ask(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`); !strings.Contains(got, `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("initialize: %s", got)
	}
	check("stdio", c.ask(batch))
	if got := c.ask(`[]`); got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the batch is empty"}}` {
		t.Errorf("stdio, an empty batch: %s", got)
	}
	c2 := serveRaw(t, nil)
	c2.ask(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	if got := c2.ask(batch); !strings.Contains(got, `"code":-32600,"message":"batches are not supported in 2025-11-25"`) {
		t.Errorf("stdio under 2025-11-25: %s", got)
	}
}

// When the client ends its input, Serve cancels the calls in flight, as the
// go-sdk does, rather than wait for handlers that wait for their context:
// they end, their answers are written, and Serve returns.
func TestServeCancelsCallsAtEndOfInput(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	tool, err := runtime.ParseTool([]byte(`{"name":"hold","inputSchema":{"type":"object"}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New([]server.Tool{{Tool: tool, Handle: func(ctx context.Context, _ json.RawMessage) (*runtime.Result, error) {
		close(started)
		select {
		case <-ctx.Done():
		case <-release:
			return nil, errors.New("released")
		}
		return nil, errors.New("the call ended: " + ctx.Err().Error())
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	out := bufio.NewScanner(outR)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`+"\n")
	if !out.Scan() {
		t.Fatal("no answer to initialize")
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold"}}`+"\n")
	<-started
	inW.Close()
	lines := make(chan string, 1)
	go func() {
		var all []string
		for out.Scan() {
			all = append(all, out.Text())
		}
		lines <- strings.Join(all, "\n")
	}()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(time.Minute):
		// Let the handler go, so that the test ends.
		close(release)
		<-served
		t.Fatal("Serve still waits for the call a minute after the end of its input")
	}
	if got := <-lines; !strings.Contains(got, `"id":2,"result":{"content":[{"type":"text","text":"the call ended: context canceled"}],"isError":true}`) {
		t.Errorf("the call's answer: %s", got)
	}
}

// The requests the HTTP transport refuses before reading a message (a GET
// or DELETE, a foreign Origin, a wrong Content-Type or Accept) are answered
// with a JSON-RPC error whose id is null, as application/json, as the
// TypeScript server answers them (code -32000); a client that reads the
// body of an HTTP error finds a message, not plain text.
func TestServeHTTPRefusalsAreJSONRPC(t *testing.T) {
	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		name, method string
		header       map[string]string
		status       int
	}{
		{"get", "GET", nil, 405},
		{"delete", "DELETE", nil, 405},
		{"foreign origin", "POST", map[string]string{"Origin": "http://evil.example"}, 403},
		{"no content type", "POST", map[string]string{"Content-Type": ""}, 415},
		{"accept json alone", "POST", map[string]string{"Accept": "application/json"}, 406},
	} {
		req, err := http.NewRequest(tc.method, hs.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		setMediaTypes(req)
		for k, v := range tc.header {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" ||
			json.Unmarshal(got, &m) != nil || m.JSONRPC != "2.0" || string(m.ID) != "null" || m.Error == nil || m.Error.Code != -32000 || m.Error.Message == "" {
			t.Errorf("%s: got %d (%s) %s, want %d with a JSON-RPC error -32000 and a null id", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), got, tc.status)
		}
		if tc.status == 405 && resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s: Allow is %q, want POST", tc.name, resp.Header.Get("Allow"))
		}
	}
}
