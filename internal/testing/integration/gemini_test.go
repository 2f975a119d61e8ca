package integration

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generated/everything"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// trafficLog is a slog.Handler that keeps the tool calls the Session sends,
// from the records LogTraffic writes.
type trafficLog struct {
	mu    sync.Mutex
	calls []sentCall
}

// sentCall is one tools/call request as the Session sent it.
type sentCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (l *trafficLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *trafficLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *trafficLog) WithGroup(string) slog.Handler            { return l }

func (l *trafficLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "mcp send" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "message" {
			return true
		}
		var m struct {
			Method string   `json:"method"`
			Params sentCall `json:"params"`
		}
		if json.Unmarshal([]byte(a.Value.String()), &m) == nil && m.Method == "tools/call" {
			l.mu.Lock()
			l.calls = append(l.calls, m.Params)
			l.mu.Unlock()
		}
		return false
	})
	return nil
}

func (l *trafficLog) sent() []sentCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]sentCall(nil), l.calls...)
}

// scriptedGemini is a Gemini API stand-in speaking the REST format of
// generateContent: it answers the n-th request with replies[n], and keeps
// each request body together with the tool calls the Session had sent to
// the MCP server by the time the request arrived.
type scriptedGemini struct {
	replies []string
	traffic *trafficLog

	mu     sync.Mutex
	bodies [][]byte
	sentAt []int // len(traffic.sent()) when each request arrived
}

func (g *scriptedGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	g.bodies = append(g.bodies, body)
	g.sentAt = append(g.sentAt, len(g.traffic.sent()))
	n := min(len(g.bodies)-1, len(g.replies)-1)
	g.mu.Unlock()
	if r.URL.Path != "/v1beta/models/gemini-test:generateContent" {
		http.Error(w, `{"error":{"code":404,"message":"unexpected path","status":"NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, g.replies[n])
}

// functionResponses returns the function responses of the last content of a
// request body, with their ids, names and responses.
func functionResponses(t *testing.T, body []byte) []*genai.FunctionResponse {
	t.Helper()
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				FunctionResponse *genai.FunctionResponse `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body %s: %v", body, err)
	}
	if len(req.Contents) == 0 {
		t.Fatalf("request without contents: %s", body)
	}
	last := req.Contents[len(req.Contents)-1]
	var out []*genai.FunctionResponse
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse)
		}
	}
	return out
}

// TestGeminiChatEverything runs a Gemini chat whose model is a scripted
// stand-in and whose tools are those of the real server-everything over
// stdio, declared from the generated package. The model asks for echo and
// get-sum in one turn: both run on the server and the next request carries
// both responses with the calls' names and ids. It then asks for get-sum
// with arguments the schema rejects: the response is an error and no
// tools/call goes to the server, as the Session's traffic log shows.
// Finally the model's text is returned.
func TestGeminiChatEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	checkLeaks(t)
	ctx := testenv.Context(t)

	traffic := &trafficLog{}
	fake := &scriptedGemini{traffic: traffic, replies: []string{
		`{"candidates": [{"content": {"role": "model", "parts": [
			{"functionCall": {"id": "call-echo", "name": "echo", "args": {"message": "hello"}}, "thoughtSignature": "c2lnbmF0dXJl"},
			{"functionCall": {"id": "call-sum", "name": "get-sum", "args": {"a": 2, "b": 3}}}
		]}, "finishReason": "STOP"}]}`,
		`{"candidates": [{"content": {"role": "model", "parts": [
			{"functionCall": {"id": "call-bad", "name": "get-sum", "args": {"a": "two", "b": 3}}}
		]}, "finishReason": "STOP"}]}`,
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "hello, and 2 + 3 = 5."}]}, "finishReason": "STOP"}]}`,
	}}
	gsrv := httptest.NewServer(fake)
	t.Cleanup(gsrv.Close)

	argv := testenv.Everything(t, "stdio")
	session, err := runtime.Connect(ctx, runtime.NewCommandTransport(argv[0], argv[1:]...), &runtime.Options{
		Logger:       slog.New(traffic),
		LogTraffic:   true,
		SnapshotHash: everything.SnapshotHash,
		FailOnDrift:  true,
	})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer session.Close()
	toolset, err := gemini.NewToolset(session, everything.MCPTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      "test-key",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: gsrv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	chat := &gemini.Chat{Client: client, Model: "gemini-test", Toolset: toolset}

	answer, err := chat.Send(ctx, "Echo hello, then add 2 and 3.")
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	if answer != "hello, and 2 + 3 = 5." {
		t.Errorf("answer = %q", answer)
	}

	fake.mu.Lock()
	bodies, sentAt := fake.bodies, fake.sentAt
	fake.mu.Unlock()
	if len(bodies) != 3 {
		t.Fatalf("%d model requests, want 3", len(bodies))
	}
	sent := traffic.sent()

	// Turn 1: both calls ran on the server, and both responses went back.
	if sentAt[1] != 2 {
		t.Errorf("%d tools/call requests before the second model request, want 2", sentAt[1])
	}
	names := map[string]string{}
	for _, c := range sent[:min(2, len(sent))] {
		names[c.Name] = string(c.Arguments)
	}
	if names["echo"] != `{"message":"hello"}` || names["get-sum"] != `{"a":2,"b":3}` {
		t.Errorf("the first turn sent %+v", sent)
	}
	got := functionResponses(t, bodies[1])
	if len(got) != 2 {
		t.Fatalf("the second request carries %d function responses, want 2", len(got))
	}
	want := []struct{ id, name, output string }{
		{"call-echo", "echo", "Echo: hello"},
		{"call-sum", "get-sum", "5"},
	}
	for i, w := range want {
		out, _ := got[i].Response["output"].(string)
		if got[i].ID != w.id || got[i].Name != w.name || !strings.Contains(out, w.output) {
			t.Errorf("function response %d = %s %s %v, want %s %s with output containing %q", i, got[i].ID, got[i].Name, got[i].Response, w.id, w.name, w.output)
		}
	}

	// Turn 2: the invalid arguments got an error and never reached the
	// server.
	if sentAt[2] != sentAt[1] || len(sent) != 2 {
		t.Errorf("the turn with invalid arguments sent %d tools/call requests (%+v), want none", sentAt[2]-sentAt[1], sent)
	}
	got = functionResponses(t, bodies[2])
	if len(got) != 1 {
		t.Fatalf("the third request carries %d function responses, want 1", len(got))
	}
	msg, _ := got[0].Response["error"].(string)
	if got[0].ID != "call-bad" || got[0].Name != "get-sum" || !strings.HasPrefix(msg, "invalid arguments for get-sum at /a: ") {
		t.Errorf("function response = %s %s %v, want call-bad get-sum with an error at /a", got[0].ID, got[0].Name, got[0].Response)
	}
	if _, ok := got[0].Response["output"]; ok {
		t.Errorf("the invalid call has an output: %v", got[0].Response)
	}
}
