package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// standIn is a Home Assistant MCP server stand-in in the legacy protocol
// era: Streamable HTTP with plain JSON responses at /api/mcp, serving the
// 15 tools of the checked-in snapshot. It records every tools/call.
type standIn struct {
	tools json.RawMessage // the "tools" array of the snapshot

	mu    sync.Mutex
	calls []toolCall
}

type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// newStandIn starts the stand-in and returns it with its endpoint URL.
func newStandIn(t *testing.T) (*standIn, string) {
	t.Helper()
	data, err := os.ReadFile("../../testdata/homeassistant-tools-list.json")
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatalf("reading the snapshot: %v", err)
	}
	s := &standIn{tools: snap.Result.Tools}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/api/mcp"
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/mcp" || r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer ha-secret" {
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
		http.Error(w, "bad JSON", http.StatusBadRequest)
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
		result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
			"serverInfo":      map[string]any{"name": "home-assistant", "version": "1.26.0"},
		}
	case "tools/list":
		result = map[string]any{"tools": s.tools}
	case "tools/call":
		var c toolCall
		if err := json.Unmarshal(req.Params, &c); err != nil {
			rpcErr = map[string]any{"code": -32602, "message": err.Error()}
			break
		}
		s.mu.Lock()
		s.calls = append(s.calls, c)
		s.mu.Unlock()
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"speech":{},"response_type":"action_done","data":{"success":[{"name":"Heater","type":"entity","id":"climate.bathroom"}],"failed":[]}}`}}}
	default:
		rpcErr = map[string]any{"code": -32601, "message": "Method not found"}
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func (s *standIn) recorded() []toolCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]toolCall(nil), s.calls...)
}

// TestUsage checks the mistakes that stop the assistant before it connects.
func TestUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no url", nil, map[string]string{"GEMINI_API_KEY": "k"}, "--url (or $HA_URL) is required"},
		{"no key", []string{"--url", "http://127.0.0.1:1/api/mcp"}, nil, "GEMINI_API_KEY is not set"},
		{"bad flag", []string{"--nope"}, nil, "flag provided but not defined: -nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return c.env[k] })
			if code != 2 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit status %d, stderr %q; want 2 and %q", code, stderr.String(), c.want)
			}
		})
	}
}
