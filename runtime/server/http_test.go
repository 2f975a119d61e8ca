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
	s.ServeHTTP(w, httptest.NewRequest("POST", "/", strings.NewReader(body)))
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
