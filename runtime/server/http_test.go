package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The HTTP side refuses what a Streamable HTTP server refuses, with the
// status and the JSON-RPC error the specification gives.
func TestServeHTTPRefusals(t *testing.T) {
	s, err := testServer(&server.Options{MaxMessageSize: 2000})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	modern := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},` + meta + `}}`
	for _, tc := range []struct {
		name, method, body string
		header             map[string]string
		status             int
		want               string
	}{
		{"GET", "GET", "", nil, 405, "only POST"},
		{"origin", "POST", modern, map[string]string{"Origin": "http://evil.example"}, 403, "not allowed"},
		{"too large", "POST", strings.Repeat(" ", 3000), nil, 413, "exceeds the 2000-byte limit"},
		{"notification", "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, 202, ""},
		{"parse error", "POST", `{`, nil, 400, `"code":-32700`},
		{"no headers", "POST", modern, nil, 400, `"code":-32020,"message":"header MCP-Protocol-Version is \"\", and the request says \"2026-07-28\""`},
		{"wrong method header", "POST", modern, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, 400, `"code":-32020`},
		{"wrong name header", "POST", modern, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?ZmFpbA==?="}, 400, `header Mcp-Name is \"fail\"`},
		{"headers agree", "POST", modern, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?ZWNobw==?="}, 200, `"structuredContent":{"said":"a"}`},
		{"unknown modern method", "POST", `{"jsonrpc":"2.0","id":2,"method":"nope","params":{` + meta + `}}`, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "nope"}, 404, `"code":-32601`},
		{"legacy version header", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, 400, `unsupported MCP-Protocol-Version`},
		{"legacy unknown tool", "POST", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, 200, `"message":"Unknown tool: x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, hs.URL, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			setMediaTypes(req)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
				t.Errorf("got %d %s, want %d with %s", resp.StatusCode, body, tc.status, tc.want)
			}
		})
	}
}

// The Mcp-Param-* headers of a 2026-07-28 tools/call must mirror the
// arguments the tool's schema annotates with x-mcp-header, as the runtime
// sends them.
func TestServeHTTPParamHeaders(t *testing.T) {
	tool, err := runtime.ParseTool([]byte(`{"name":"route","inputSchema":{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"opts":{"type":"object","properties":{"shard":{"type":"integer","x-mcp-header":"Shard"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New([]server.Tool{{Tool: tool, Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "routed"}}}, nil
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := context.Background()
	sess, err := runtime.Connect(ctx, runtime.HTTP(hs.URL, nil), &runtime.Options{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, args := range []map[string]any{
		{"region": "eu-west", "opts": map[string]any{"shard": 7}},
		{"region": "zürich"},
		{},
	} {
		if res, err := sess.CallTool(ctx, "route", args); err != nil || res.Text() != "routed" {
			t.Errorf("%v: %+v, %v", args, res, err)
		}
	}

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu-west"},` + meta + `}}`
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"missing", nil, 400},
		{"wrong", map[string]string{"Mcp-Param-Region": "us-east"}, 400},
		{"extra", map[string]string{"Mcp-Param-Region": "eu-west", "Mcp-Param-Shard": "1"}, 400},
		{"right", map[string]string{"Mcp-Param-Region": "eu-west"}, 200},
	} {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(body))
		setMediaTypes(req)
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "route")
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.status == 400 && !strings.Contains(string(got), `"code":-32020`)) {
			t.Errorf("%s: %d %s", tc.name, resp.StatusCode, got)
		}
	}
}

// Matching a URI against a template takes memory, and time, in proportion
// to the URI: a hostile client's URI of a few thousand segments must not
// cost a quadratic amount of either.
func TestReadLongURIStaysLinear(t *testing.T) {
	s, err := server.New(nil, &server.Options{ResourceTemplates: []server.ResourceTemplate{{
		Template: runtime.ResourceTemplate{Name: "tags", URITemplate: "tags://all{/tag*}{?q}"},
		Handle: func(_ context.Context, uri string, vars map[string]any) (*runtime.ReadResourceResult, error) {
			return &runtime.ReadResourceResult{Contents: []runtime.ResourceContents{{URI: "tags://all", Text: fmt.Sprint(len(vars["tag"].([]string)))}}}, nil
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"tags://all` + strings.Repeat("/a", n) + `"}}`
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, setMediaTypes(httptest.NewRequest("POST", "/", strings.NewReader(body))))
	goruntime.ReadMemStats(&after)
	if !strings.Contains(w.Body.String(), `"text":"4000"`) {
		t.Fatalf("got %d %s", w.Code, w.Body)
	}
	// Reading, decoding and answering the request take a few copies of
	// it; 256 bytes a byte of the URI leaves room for those alone.
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(256*len(body)); got > limit {
		t.Errorf("reading a URI of %d bytes allocated %d bytes, more than %d", len(body), got, limit)
	}
}

// The Mcp-Name header of a 2026-07-28 prompts/get and resources/read must
// mirror the prompt's name and the resource's URI, as that of a tools/call
// mirrors the tool's name: a real server refuses one that is missing or
// names another, and a Session over HTTP sends the right one.
func TestServeHTTPNameHeaderOfPromptsAndResources(t *testing.T) {
	hs := httptest.NewServer(listingServer(t))
	defer hs.Close()
	ctx := context.Background()
	sess, err := runtime.Connect(ctx, runtime.HTTP(hs.URL, nil), &runtime.Options{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if res, err := sess.GetPrompt(ctx, "greet", map[string]string{"who": "Ada"}); err != nil || !strings.Contains(res.Text(), "Ada") {
		t.Errorf("prompts/get over HTTP: %+v, %v", res, err)
	}
	if res, err := sess.ReadResource(ctx, "test://files/a%20b"); err != nil || !strings.HasPrefix(res.Text(), "a b") {
		t.Errorf("resources/read over HTTP: %+v, %v", res, err)
	}

	prompt := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"greet","arguments":{"who":"Ada"},` + meta + `}}`
	read := `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://files/caf%C3%A9",` + meta + `}}`
	for _, tc := range []struct {
		name, method, body, header string
		status                     int
	}{
		{"prompt without", "prompts/get", prompt, "", 400},
		{"prompt of another", "prompts/get", prompt, "other", 400},
		{"prompt", "prompts/get", prompt, "greet", 200},
		{"resource without", "resources/read", read, "", 400},
		{"resource of another", "resources/read", read, "test://files/x", 400},
		{"resource", "resources/read", read, "test://files/caf%C3%A9", 200},
	} {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(tc.body))
		setMediaTypes(req)
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", tc.method)
		if tc.header != "" {
			req.Header.Set("Mcp-Name", tc.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.status == 400 && !strings.Contains(string(got), `"code":-32020,"message":"header Mcp-Name is`)) {
			t.Errorf("%s: got %d %s, want %d", tc.name, resp.StatusCode, got, tc.status)
		}
	}
}

// A request whose MCP-Protocol-Version header names the 2026-07-28 era but
// whose body lacks that era's _meta is refused as a real server refuses
// it, naming the missing _meta (-32602, 400), not as a version the server
// does not speak.
func TestServeHTTPModernHeaderWithoutMeta(t *testing.T) {
	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	setMediaTypes(req)
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"tools/list: _meta has no io.modelcontextprotocol/protocolVersion"}}`
	if resp.StatusCode != http.StatusBadRequest || string(got) != want {
		t.Errorf("got %d %s\nwant 400 %s", resp.StatusCode, got, want)
	}
}

// In the 2026-07-28 era, an internal error (a prompt handler that failed, a
// tool's result that its output schema refuses) is the JSON-RPC answer of a
// POST answered 200, as the go-sdk and TypeScript servers send it, not a
// 500 that HTTP clients take for a failing server and retry.
func TestServeHTTPInternalErrorIsTheAnswer(t *testing.T) {
	s, err := testServer(&server.Options{Prompts: []server.Prompt{{
		Prompt: runtime.Prompt{Name: "broken"},
		Handle: func(context.Context, map[string]string) (*runtime.GetPromptResult, error) {
			return nil, fmt.Errorf("the template is missing")
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	for _, tc := range []struct{ method, name, body, want string }{
		{"tools/call", "bad_output", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bad_output",` + meta + `}}`, `"code":-32603,"message":"the structured result of tool bad_output`},
		{"prompts/get", "broken", `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"broken",` + meta + `}}`, `"code":-32603,"message":"prompt broken: the template is missing"`},
	} {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(tc.body))
		setMediaTypes(req)
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", tc.method)
		req.Header.Set("Mcp-Name", tc.name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), tc.want) {
			t.Errorf("%s: got %d %s, want 200 with %s", tc.method, resp.StatusCode, got, tc.want)
		}
	}
}
