// Package mcptest is a small MCP server for tests: it serves a fixed list of
// tools over Streamable HTTP (plain JSON responses, protocol 2025-06-18 and
// older) and records every tools/call it receives, so that a test can check
// what reached the server.
package mcptest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Call is one tools/call the server received.
type Call struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Server is the test server. Its zero value is not usable: use Start.
type Server struct {
	// URL is the endpoint, for runtime.HTTP.
	URL string
	// OnCall, when set, runs for every tools/call before it is answered.
	OnCall func(Call)

	tools json.RawMessage
	mu    sync.Mutex
	calls []Call
}

// Start serves tools (a JSON array of tool objects) until the test ends.
func Start(t testing.TB, tools string) *Server {
	t.Helper()
	if !json.Valid([]byte(tools)) {
		t.Fatalf("mcptest: the tools are not JSON: %s", tools)
	}
	s := &Server{tools: json.RawMessage(tools)}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/mcp"
	return s
}

// Calls returns the tools/call requests received so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// ServeHTTP answers one POSTed JSON-RPC message.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/mcp" {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result, rpcErr any
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(req.Params, &p)
		if p.ProtocolVersion > "2025-06-18" {
			p.ProtocolVersion = "2025-06-18"
		}
		result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "mcptest", "version": "1.0.0"},
		}
	case "tools/list":
		result = map[string]any{"tools": s.tools}
	case "tools/call":
		var c Call
		if err := json.Unmarshal(req.Params, &c); err != nil {
			rpcErr = map[string]any{"code": -32602, "message": err.Error()}
			break
		}
		s.mu.Lock()
		s.calls = append(s.calls, c)
		s.mu.Unlock()
		if s.OnCall != nil {
			s.OnCall(c)
		}
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "done " + c.Name}}}
	default:
		rpcErr = map[string]any{"code": -32601, "message": "Method not found"}
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	out, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}
