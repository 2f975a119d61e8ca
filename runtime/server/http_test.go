package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
