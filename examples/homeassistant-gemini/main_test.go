package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// standIn is a Home Assistant MCP server stand-in in the legacy protocol
// era, serving the 15 tools of the checked-in snapshot at both of Home
// Assistant's endpoints: Streamable HTTP with plain JSON responses at
// /api/mcp, and the HTTP+SSE transport of 2024-11-05 at /mcp_server/sse. It
// records every tools/call and the bearer tokens it was sent.
type standIn struct {
	tools  json.RawMessage // the "tools" array of the snapshot
	events chan []byte     // messages for the open SSE stream

	mu      sync.Mutex
	calls   []toolCall
	methods []string // the path and method of every JSON-RPC message
	auth    map[string]bool
}

type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// newStandIn starts the stand-in and returns it with its base URL.
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
	s := &standIn{tools: snap.Result.Tools, events: make(chan []byte, 16), auth: map[string]bool{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.auth[r.Header.Get("Authorization")] = true
	s.mu.Unlock()
	switch {
	case r.URL.Path == "/api/mcp" && r.Method == http.MethodPost:
		status, body := s.answer(r)
		if body == nil {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	case r.URL.Path == "/mcp_server/sse" && r.Method == http.MethodGet:
		s.stream(w, r)
	case r.URL.Path == "/mcp_server/messages" && r.Method == http.MethodPost:
		status, body := s.answer(r)
		if body != nil {
			s.events <- body
		}
		if status == http.StatusOK {
			status = http.StatusAccepted
		}
		w.WriteHeader(status)
	default:
		// No server-initiated stream on /api/mcp, and no POSTs to the
		// SSE endpoint: the client finds out which transport to speak.
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// stream serves the legacy event stream: the endpoint event, then the
// answers to the messages POSTed to it.
func (s *standIn) stream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	io.WriteString(w, "event: endpoint\ndata: /mcp_server/messages?session_id=1\n\n")
	w.(http.Flusher).Flush()
	for {
		select {
		case msg := <-s.events:
			io.WriteString(w, "event: message\ndata: "+string(msg)+"\n\n")
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// answer handles one JSON-RPC message and returns the HTTP status and the
// response body; a notification has none.
func (s *standIn) answer(r *http.Request) (int, []byte) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		return http.StatusBadRequest, nil
	}
	s.mu.Lock()
	s.methods = append(s.methods, r.URL.Path+" "+req.Method)
	s.mu.Unlock()
	if req.ID == nil {
		return http.StatusAccepted, nil
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
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"speech":{},"response_type":"action_done","data":{"success":[{"name":"Kitchen speaker","type":"entity","id":"media_player.kitchen_speaker"}],"failed":[]}}`}}}
	default:
		// server/discover among others: this server predates it.
		rpcErr = map[string]any{"code": -32601, "message": "Method not found"}
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	out, _ := json.Marshal(resp)
	return http.StatusOK, out
}

func (s *standIn) recorded() ([]toolCall, []string, map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	auth := map[string]bool{}
	for k := range s.auth {
		auth[k] = true
	}
	return append([]toolCall(nil), s.calls...), append([]string(nil), s.methods...), auth
}

// fakeGemini answers generateContent requests in the REST format, the n-th
// request with replies[n], and keeps the request bodies.
type fakeGemini struct {
	replies []string
	mu      sync.Mutex
	bodies  [][]byte
}

func (f *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	n := min(len(f.bodies)-1, len(f.replies)-1)
	f.mu.Unlock()
	if !strings.HasSuffix(r.URL.Path, "/models/gemini-test:generateContent") || r.Header.Get("X-Goog-Api-Key") != "gemini-key" {
		http.Error(w, `{"error":{"code":404,"message":"unexpected request","status":"NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, f.replies[n])
}

func (f *fakeGemini) requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

const (
	setVolumeReply = `{"candidates": [{"content": {"role": "model", "parts": [
		{"functionCall": {"id": "fc-1", "name": "HassSetVolume", "args": {"name": "kitchen speaker", "volume_level": 30}}, "thoughtSignature": "c2lnbmF0dXJl"}
	]}, "finishReason": "STOP"}]}`
	doneReply     = `{"candidates": [{"content": {"role": "model", "parts": [{"text": "The kitchen speaker is now at 30%."}]}, "finishReason": "STOP"}]}`
	badLevelReply = `{"candidates": [{"content": {"role": "model", "parts": [
		{"functionCall": {"id": "fc-1", "name": "HassSetVolume", "args": {"name": "kitchen speaker", "volume_level": 300}}}
	]}, "finishReason": "STOP"}]}`
	sorryReply = `{"candidates": [{"content": {"role": "model", "parts": [{"text": "The volume must be between 0 and 100."}]}, "finishReason": "STOP"}]}`
)

// TestSetVolume runs the assistant against the stand-in server and a fake
// Gemini: the prompt becomes a HassSetVolume call with volume_level 30 on
// the server, and the model's final text is printed. Arguments outside the
// schema never reach the server.
func TestSetVolume(t *testing.T) {
	cases := []struct {
		name      string
		endpoint  string
		args      []string
		stdin     string
		replies   []string
		wantCalls []string // the arguments of each HassSetVolume call, as JSON
		wantOut   string
		wantError string // in the function response sent back to the model
	}{
		{
			name:      "prompt argument",
			endpoint:  "/api/mcp",
			args:      []string{"set the kitchen speaker volume to 30"},
			replies:   []string{setVolumeReply, doneReply},
			wantCalls: []string{`{"name":"kitchen speaker","volume_level":30}`},
			wantOut:   "The kitchen speaker is now at 30%.\n",
		},
		{
			name:      "prompt on standard input",
			endpoint:  "/api/mcp",
			stdin:     "\nset the kitchen speaker volume to 30\n",
			replies:   []string{setVolumeReply, doneReply},
			wantCalls: []string{`{"name":"kitchen speaker","volume_level":30}`},
			wantOut:   "The kitchen speaker is now at 30%.\n",
		},
		{
			name:      "arguments the schema rejects",
			endpoint:  "/api/mcp",
			args:      []string{"set the kitchen speaker volume to 300"},
			replies:   []string{badLevelReply, sorryReply},
			wantOut:   "The volume must be between 0 and 100.\n",
			wantError: "invalid arguments for HassSetVolume at /volume_level: ",
		},
		{
			name:      "legacy SSE endpoint",
			endpoint:  "/mcp_server/sse",
			args:      []string{"set the kitchen speaker volume to 30"},
			replies:   []string{setVolumeReply, doneReply},
			wantCalls: []string{`{"name":"kitchen speaker","volume_level":30}`},
			wantOut:   "The kitchen speaker is now at 30%.\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Registered first, the leak check runs after the servers have
			// closed and the clients' connections have ended.
			opt := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, opt) })
			server, base := newStandIn(t)
			fake := &fakeGemini{replies: c.replies}
			gsrv := httptest.NewServer(fake)
			t.Cleanup(gsrv.Close)
			t.Setenv("TEST_HA_TOKEN", "ha-secret")
			env := map[string]string{"GEMINI_API_KEY": "gemini-key"}

			var stdout, stderr bytes.Buffer
			args := append([]string{"--yes", "--url", base + c.endpoint, "--token-env", "TEST_HA_TOKEN", "--base-url", gsrv.URL, "--model", "gemini-test"}, c.args...)
			code := run(context.Background(), args, strings.NewReader(c.stdin), &stdout, &stderr, func(k string) string { return env[k] })
			if code != 0 {
				t.Fatalf("exit status %d, stderr:\n%s", code, stderr.String())
			}
			if stdout.String() != c.wantOut {
				t.Errorf("printed %q, want %q", stdout.String(), c.wantOut)
			}
			if strings.Contains(stderr.String(), "ha-secret") {
				t.Errorf("the token appears on standard error: %s", stderr.String())
			}

			calls, methods, auth := server.recorded()
			var got []string
			for _, call := range calls {
				if call.Name != "HassSetVolume" {
					t.Errorf("the server got a call of %s", call.Name)
				}
				got = append(got, string(call.Arguments))
			}
			if strings.Join(got, "\n") != strings.Join(c.wantCalls, "\n") {
				t.Errorf("the server got calls with %q, want %q", got, c.wantCalls)
			}
			if len(auth) != 1 || !auth["Bearer ha-secret"] {
				t.Errorf("Authorization headers = %v, want only the token from TEST_HA_TOKEN", auth)
			}
			// Streamable HTTP: the probe is refused, the handshake follows.
			// The stand-in gives no session id, so notifications/initialized
			// goes out beside the requests after it and may arrive after
			// them; Close waits for it.
			// HTTP+SSE: the POSTed probe fails, the client opens the
			// stream, and every message goes to the endpoint it announced.
			want := []string{"/api/mcp server/discover", "/api/mcp initialize", "/api/mcp tools/list"}
			const initialized = "/api/mcp notifications/initialized"
			if c.endpoint == "/mcp_server/sse" {
				want = []string{"/mcp_server/messages initialize", "/mcp_server/messages notifications/initialized", "/mcp_server/messages tools/list"}
			} else {
				rest := slices.DeleteFunc(slices.Clone(methods), func(m string) bool { return m == initialized })
				if n := len(methods) - len(rest); n != 1 {
					t.Errorf("the server got notifications/initialized %d times, want once: %v", n, methods)
				}
				methods = rest
			}
			if len(methods) < len(want) || !slices.Equal(methods[:len(want)], want) {
				t.Errorf("the session began with %v, want %v", methods, want)
			}

			reqs := fake.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d Gemini requests, want 2", len(reqs))
			}
			var first, second struct {
				Tools []struct {
					FunctionDeclarations []struct {
						Name string `json:"name"`
					} `json:"functionDeclarations"`
				} `json:"tools"`
				Contents []struct {
					Role  string `json:"role"`
					Parts []struct {
						FunctionResponse *struct {
							ID       string         `json:"id"`
							Name     string         `json:"name"`
							Response map[string]any `json:"response"`
						} `json:"functionResponse"`
					} `json:"parts"`
				} `json:"contents"`
			}
			if err := json.Unmarshal(reqs[0], &first); err != nil {
				t.Fatal(err)
			}
			if len(first.Tools) != 1 || len(first.Tools[0].FunctionDeclarations) != 15 {
				t.Errorf("the model was offered %+v, want the 15 tools of the snapshot", first.Tools)
			}
			if err := json.Unmarshal(reqs[1], &second); err != nil {
				t.Fatal(err)
			}
			if len(second.Contents) != 3 || len(second.Contents[2].Parts) != 1 || second.Contents[2].Parts[0].FunctionResponse == nil {
				t.Fatalf("the second request holds %s", reqs[1])
			}
			fr := second.Contents[2].Parts[0].FunctionResponse
			if fr.ID != "fc-1" || fr.Name != "HassSetVolume" {
				t.Errorf("function response for %s/%s, want fc-1/HassSetVolume", fr.ID, fr.Name)
			}
			if c.wantError != "" {
				if msg, _ := fr.Response["error"].(string); !strings.HasPrefix(msg, c.wantError) {
					t.Errorf("function response %v, want an error starting %q", fr.Response, c.wantError)
				}
			} else if out, _ := fr.Response["output"].(string); !strings.Contains(out, "action_done") {
				t.Errorf("function response %v, want the server's text as output", fr.Response)
			}
		})
	}
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
