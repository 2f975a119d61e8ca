package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// serveMCP answers the JSON-RPC requests of an MCP client over the
// streamable HTTP transport with one echo tool; unknown methods get
// "method not found".
func serveMCP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, "bad JSON-RPC message", http.StatusBadRequest)
		return
	}
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result string
	switch m.Method {
	case "initialize":
		result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"protected","version":"1.0.0"}}`, m.Params.ProtocolVersion)
	case "tools/list":
		result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`
	case "tools/call":
		result = `{"content":[{"type":"text","text":"ok"}]}`
	case "ping":
		result = `{}`
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, m.ID)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
}

// connect connects to the MCP server at u through o, and closes the
// session when the test ends.
func connect(t *testing.T, u string, o *OAuth, opts *runtime.Options) *runtime.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := runtime.Connect(ctx, runtime.StreamableHTTP(u, &runtime.HTTPOptions{Authorizer: o}), opts)
	if err != nil {
		t.Fatalf("connecting to %s: %v", u, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// callEcho calls the server's echo tool, failing the test unless it
// answers "ok".
func callEcho(t *testing.T, s *runtime.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := s.CallTool(ctx, "echo", nil)
	if err != nil {
		t.Fatalf("calling echo: %v", err)
	}
	if r.IsError || len(r.Content) != 1 {
		t.Fatalf("echo answered %+v", r)
	}
}
