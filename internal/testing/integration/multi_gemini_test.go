package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generated/everything"
	"github.com/mcpgen/mcpgen/generated/sdkserver"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// callRecorder is a reverse proxy in front of an HTTP MCP server that keeps
// the tools/call requests the server receives.
type callRecorder struct {
	proxy *httputil.ReverseProxy
	mu    sync.Mutex
	calls []sentCall
}

func (c *callRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			Method string   `json:"method"`
			Params sentCall `json:"params"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method == "tools/call" {
			c.mu.Lock()
			c.calls = append(c.calls, m.Params)
			c.mu.Unlock()
		}
	}
	c.proxy.ServeHTTP(w, r)
}

func (c *callRecorder) received() []sentCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sentCall(nil), c.calls...)
}

// TestGeminiChatTwoServers runs one Gemini conversation over
// server-everything (stdio) and the go-sdk test server (Streamable HTTP),
// with one toolset combined from the two generated packages. Both servers
// have an echo tool, so the model sees everything__echo and sdk__echo, and
// the tools only one server has keep their names. The model calls a tool
// on each server in one turn, and each call reaches its own server: the
// HTTP server receives exactly the sdk__echo call, and the answer to
// everything__echo is server-everything's ("Echo: ...").
func TestGeminiChatTwoServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	checkLeaks(t)
	ctx := testenv.Context(t)

	target, err := url.Parse(testenv.ServeSDK(t, false))
	if err != nil {
		t.Fatal(err)
	}
	recorder := &callRecorder{proxy: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})}
	proxy := httptest.NewServer(recorder)
	t.Cleanup(proxy.Close)

	traffic := &trafficLog{}
	argv := testenv.Everything(t, "stdio")
	multi, err := runtime.ConnectMulti(ctx, []runtime.Server{
		{Name: "everything", Transport: runtime.NewCommandTransport(argv[0], argv[1:]...), Options: &runtime.Options{Logger: slog.New(traffic), LogTraffic: true}},
		{Name: "sdk", Transport: runtime.HTTP(proxy.URL+target.Path, nil)},
	})
	if err != nil {
		t.Fatalf("ConnectMulti: %v", err)
	}
	defer multi.Close()

	tools := runtime.ExposedTools(runtime.CombineTools(
		runtime.ServerTools{Server: "everything", Tools: everything.MCPTools()},
		runtime.ServerTools{Server: "sdk", Tools: sdkserver.MCPTools()},
	))
	toolset, err := gemini.NewToolset(multi, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"everything__echo", "sdk__echo", "get-sum", "add"} {
		if _, ok := toolset.MCPName(name); !ok {
			t.Errorf("the toolset does not declare %s", name)
		}
	}
	if _, ok := toolset.MCPName("echo"); ok {
		t.Error("the toolset declares echo, which both servers have, without a prefix")
	}

	fake := &scriptedGemini{traffic: traffic, replies: []string{
		`{"candidates": [{"content": {"role": "model", "parts": [
			{"functionCall": {"id": "e", "name": "everything__echo", "args": {"message": "to everything"}}},
			{"functionCall": {"id": "s", "name": "sdk__echo", "args": {"message": "to the sdk server"}}},
			{"functionCall": {"id": "a", "name": "add", "args": {"a": 2, "b": 3}}}
		]}, "finishReason": "STOP"}]}`,
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "Both servers answered."}]}, "finishReason": "STOP"}]}`,
	}}
	gsrv := httptest.NewServer(fake)
	t.Cleanup(gsrv.Close)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "test-key", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: gsrv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	chat := &gemini.Chat{Client: client, Model: "gemini-test", Toolset: toolset}
	answer, err := chat.Send(ctx, "echo on both servers, and add 2 and 3")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "Both servers answered." {
		t.Errorf("answer = %q", answer)
	}

	got := recorder.received()
	if len(got) != 2 || got[0].Name == got[1].Name {
		t.Fatalf("the HTTP server received %v, want echo and add", got)
	}
	for _, c := range got {
		switch c.Name {
		case "echo":
			if string(c.Arguments) != `{"message":"to the sdk server"}` {
				t.Errorf("the HTTP server's echo got %s", c.Arguments)
			}
		case "add":
		default:
			t.Errorf("the HTTP server received a call of %s", c.Name)
		}
	}
	sent := traffic.sent()
	if len(sent) != 1 || sent[0].Name != "echo" || string(sent[0].Arguments) != `{"message":"to everything"}` {
		t.Errorf("server-everything was sent %v, want only its echo", sent)
	}
	fake.mu.Lock()
	bodies := fake.bodies
	fake.mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("%d model requests, want 2", len(bodies))
	}
	want := map[string]string{"e": "Echo: to everything", "s": "to the sdk server"}
	responses := functionResponses(t, bodies[1])
	if len(responses) != 3 {
		t.Fatalf("%d function responses, want 3", len(responses))
	}
	for _, r := range responses {
		if w, ok := want[r.ID]; ok && r.Response["output"] != w {
			t.Errorf("response %s = %v, want output %q", r.ID, r.Response, w)
		}
	}
}
