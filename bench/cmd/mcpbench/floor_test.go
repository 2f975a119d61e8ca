package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	mcprt "github.com/mcpgen/mcpgen/runtime"
)

// wireRequest is one request a client sent: its method, the MCP headers
// that name it, and its params as decoded JSON (key order aside).
type wireRequest struct {
	Method  string
	Headers map[string]string
	Params  any
}

// recordingServer answers as a minimal MCP server of both eras would, over
// JSON responses, and records each request it gets by method.
type recordingServer struct {
	mu   sync.Mutex
	seen map[string]wireRequest
}

func (s *recordingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params any             `json:"params"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	headers := map[string]string{}
	for _, h := range []string{"Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version"} {
		headers[h] = r.Header.Get(h)
	}
	s.mu.Lock()
	s.seen[msg.Method] = wireRequest{msg.Method, headers, msg.Params}
	s.mu.Unlock()
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result string
	switch msg.Method {
	case "initialize":
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"rec","version":"1"}}`
	case "server/discover":
		result = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"rec","version":"1"}}`
	case "tools/list":
		result = `{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}`
	case "tools/call":
		result = `{"content":[{"type":"text","text":"ok"}]}`
	default:
		result = `{}`
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":`+result+`}`)
}

// sessionRequests connects one client to a fresh recording server with
// dial, lists the tools and calls one, and returns what the server saw.
func sessionRequests(t *testing.T, dial func(ctx context.Context, tg target) (benchClient, error)) map[string]wireRequest {
	t.Helper()
	rec := &recordingServer{seen: map[string]wireRequest{}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := dial(ctx, target{transport: transportHTTP, url: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := c.listTools(ctx); err != nil || n != 1 {
		t.Fatalf("listing: %d tools, %v", n, err)
	}
	if _, err := c.call(ctx, "echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatalf("calling: %v", err)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.seen
}

// TestFloorSendsTheRuntimesRequests checks the floor's promise: it puts
// the same requests on the wire as the runtime, in each era, so that what
// the bench compares is what each client spends, not what it asks the
// server to read. The floor once left out the clientInfo and the client's
// capabilities that the runtime sends in every 2026-07-28 request.
func TestFloorSendsTheRuntimesRequests(t *testing.T) {
	eras := []struct {
		version        string
		floor, runtime func(ctx context.Context, tg target) (benchClient, error)
		methods        []string
	}{
		{modernVersion,
			func(ctx context.Context, tg target) (benchClient, error) { return connect(ctx, clientFloor, tg) },
			func(ctx context.Context, tg target) (benchClient, error) {
				return connectRuntimePinned(ctx, tg, modernVersion)
			},
			[]string{"tools/list", "tools/call"}},
		{mcprt.LatestLegacyProtocolVersion,
			func(ctx context.Context, tg target) (benchClient, error) { return connectLegacy(ctx, clientFloor, tg) },
			func(ctx context.Context, tg target) (benchClient, error) {
				return connectLegacy(ctx, clientRuntime, tg)
			},
			[]string{"initialize", "notifications/initialized", "tools/list", "tools/call"}},
	}
	for _, era := range eras {
		t.Run(era.version, func(t *testing.T) {
			floor := sessionRequests(t, era.floor)
			runtime := sessionRequests(t, era.runtime)
			for _, m := range era.methods {
				f, ok := floor[m]
				r, rok := runtime[m]
				if !ok || !rok {
					t.Errorf("%s: sent by the floor %v, by the runtime %v", m, ok, rok)
					continue
				}
				if !reflect.DeepEqual(f.Params, r.Params) {
					fb, _ := json.Marshal(f.Params)
					rb, _ := json.Marshal(r.Params)
					t.Errorf("%s params:\nfloor   %s\nruntime %s", m, fb, rb)
				}
				for h, v := range r.Headers {
					if f.Headers[h] != v {
						t.Errorf("%s: header %s: floor %q, runtime %q", m, h, f.Headers[h], v)
					}
				}
			}
		})
	}
}
