package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// stdioEnv makes the test binary serve testServer over stdio instead of
// running tests.
const stdioEnv = "MCPGEN_SERVER_STDIO"

func TestMain(m *testing.M) {
	if v := os.Getenv(stdioEnv); v != "" {
		s, err := testServer(nil)
		if v == "input" {
			s, err = newInputServer(new(atomic.Int32))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := s.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"))
}

// testServer offers four tools: echo (a required string, an output
// schema), fail (returns an error), boom (panics), wait (waits for its
// context) and bad_output (a result its output schema refuses).
func testServer(opts *server.Options) (*server.Server, error) {
	tool := func(js string) runtime.Tool {
		t, err := runtime.ParseTool([]byte(js))
		if err != nil {
			panic(err)
		}
		return t
	}
	structured := `"outputSchema":{"type":"object","properties":{"said":{"type":"string"}},"required":["said"]}`
	return server.New([]server.Tool{
		{Tool: tool(`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"]},` + structured + `}`),
			Handle: func(_ context.Context, args json.RawMessage) (*runtime.Result, error) {
				var a struct{ Text string }
				if err := json.Unmarshal(args, &a); err != nil {
					return nil, err
				}
				out, _ := json.Marshal(map[string]string{"said": a.Text})
				return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: a.Text}}, StructuredContent: out}, nil
			}},
		{Tool: tool(`{"name":"fail","inputSchema":{"type":"object"}}`),
			Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
				return nil, errors.New("the disk is full")
			}},
		{Tool: tool(`{"name":"boom","inputSchema":{"type":"object"}}`),
			Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
				panic("kaboom")
			}},
		{Tool: tool(`{"name":"gone","inputSchema":{"type":"object"}}`),
			Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
				return nil, server.UnknownToolError("gone")
			}},
		{Tool: tool(`{"name":"wait","inputSchema":{"type":"object"}}`),
			Handle: func(ctx context.Context, _ json.RawMessage) (*runtime.Result, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}},
		{Tool: tool(`{"name":"bad_output","inputSchema":{"type":"object"},` + structured + `}`),
			Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
				return &runtime.Result{StructuredContent: json.RawMessage(`{"said":7}`)}, nil
			}},
	}, opts)
}

// eras are the pins the tests run under: the two eras, and no pin.
var eras = []struct{ pin, want string }{
	{"2025-11-25", "2025-11-25"},
	{"2026-07-28", "2026-07-28"},
	{"", "2026-07-28"},
}

// transports reach testServer in memory, over stdio and over Streamable
// HTTP.
func transports(t *testing.T) map[string]runtime.Transport {
	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]runtime.Transport{
		"memory": s.Transport(),
		"stdio":  &runtime.CommandTransport{Command: exe, Args: []string{"-test.run=^$"}, Env: []string{stdioEnv + "=1"}},
		"http":   runtime.HTTP(hs.URL, nil),
	}
}

func TestServerAnswersLikeARealServerInBothEras(t *testing.T) {
	ctx := context.Background()
	for name, tr := range transports(t) {
		for _, era := range eras {
			t.Run(name+"/"+era.pin, func(t *testing.T) {
				sess, err := runtime.Connect(ctx, tr, &runtime.Options{ProtocolVersion: era.pin})
				if err != nil {
					t.Fatal(err)
				}
				defer sess.Close()
				if got := sess.ProtocolVersion(); got != era.want {
					t.Fatalf("protocol version %s, want %s", got, era.want)
				}
				if got := sess.ServerInfo().Name; got != "mcpgen-server" {
					t.Errorf("server name %q", got)
				}
				tools, err := sess.ListTools(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(tools) != 6 || tools[0].Name != "echo" || len(tools[0].OutputSchema) == 0 {
					t.Fatalf("tools/list gave %+v", tools)
				}

				res, err := sess.CallTool(ctx, "echo", map[string]any{"text": "hi"})
				if err != nil || res.IsError || res.Text() != "hi" || string(res.StructuredContent) != `{"said":"hi"}` {
					t.Fatalf("echo: %+v, %v", res, err)
				}

				// Arguments the input schema refuses: an isError result
				// naming the pointer, in both eras.
				res, err = sess.CallTool(ctx, "echo", map[string]any{"text": ""})
				if !isError(res, err) || !strings.Contains(res.Text(), "/text") {
					t.Fatalf("echo with an empty text: %+v, %v", res, err)
				}
				res, err = sess.CallTool(ctx, "echo", map[string]any{})
				if !isError(res, err) || !strings.Contains(res.Text(), "text") {
					t.Fatalf("echo without text: %+v, %v", res, err)
				}

				res, err = sess.CallTool(ctx, "fail", nil)
				if !isError(res, err) || res.Text() != "the disk is full" {
					t.Fatalf("fail: %+v, %v", res, err)
				}
				res, err = sess.CallTool(ctx, "boom", nil)
				if !isError(res, err) || !strings.Contains(res.Text(), "tool boom panicked: kaboom") {
					t.Fatalf("boom: %+v, %v", res, err)
				}

				for _, tool := range []string{"nope", "gone"} {
					_, err = sess.CallTool(ctx, tool, nil)
					var rpc *runtime.RPCError
					if !errors.As(err, &rpc) || rpc.Code != runtime.CodeInvalidParams || rpc.Message != "Unknown tool: "+tool {
						t.Fatalf("%s: %v", tool, err)
					}
				}

				_, err = sess.CallTool(ctx, "bad_output", nil)
				var rpc *runtime.RPCError
				if !errors.As(err, &rpc) || rpc.Code != runtime.CodeInternalError || !strings.Contains(rpc.Message, "bad_output") || !strings.Contains(rpc.Message, "/said") {
					t.Fatalf("bad_output: %v", err)
				}

				cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
				_, err = sess.CallTool(cctx, "wait", nil)
				cancel()
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("wait: %v", err)
				}
			})
		}
	}
}

// isError reports whether a call returned a result whose isError flag is
// set, which a Session reports as a *runtime.ToolError too.
func isError(res *runtime.Result, err error) bool {
	var te *runtime.ToolError
	return errors.As(err, &te) && res != nil && res.IsError && te.Result == res
}

// Before 2025-11-25, arguments the input schema refuses are a protocol
// error, not a result.
func TestInvalidArgumentsBefore20251125AreInvalidParams(t *testing.T) {
	s, err := testServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Connect(context.Background(), &runtime.Options{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	_, err = sess.CallTool(context.Background(), "echo", map[string]any{"text": 3})
	var rpc *runtime.RPCError
	if !errors.As(err, &rpc) || rpc.Code != runtime.CodeInvalidParams || !strings.Contains(rpc.Message, "/text") {
		t.Fatalf("got %v", err)
	}
}

// A server without the 2026-07-28 version is a legacy server: an unpinned
// Session falls back to the handshake. A modern-only one refuses a Session
// pinned to 2025-11-25.
func TestServerProtocolVersions(t *testing.T) {
	ctx := context.Background()
	legacy, err := testServer(&server.Options{ProtocolVersions: []string{"2025-11-25", "2025-06-18"}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(legacy)
	defer hs.Close()
	for name, tr := range map[string]runtime.Transport{"memory": legacy.Transport(), "http": runtime.HTTP(hs.URL, nil)} {
		sess, err := runtime.Connect(ctx, tr, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := sess.ProtocolVersion(); got != "2025-11-25" {
			t.Errorf("%s: legacy server: version %s", name, got)
		}
		if res, err := sess.CallTool(ctx, "fail", nil); !isError(res, err) {
			t.Errorf("%s: %v", name, err)
		}
		sess.Close()
	}

	modern, err := testServer(&server.Options{ProtocolVersions: []string{"2026-07-28"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = modern.Connect(ctx, &runtime.Options{ProtocolVersion: "2025-11-25"})
	if err == nil || !strings.Contains(err.Error(), "initialize") {
		t.Fatalf("a modern-only server took the handshake: %v", err)
	}

	if _, err := testServer(&server.Options{ProtocolVersions: []string{"1999-01-01"}}); err == nil || !strings.Contains(err.Error(), `"1999-01-01"`) {
		t.Fatalf("unknown version: %v", err)
	}
}

func TestNewRefusesBadTables(t *testing.T) {
	ok := func(context.Context, json.RawMessage) (*runtime.Result, error) { return nil, nil }
	for _, tc := range []struct {
		tools []server.Tool
		want  string
	}{
		{[]server.Tool{{Tool: runtime.Tool{InputSchema: json.RawMessage(`{}`)}, Handle: ok}}, "tool 0 has no name"},
		{[]server.Tool{{Tool: runtime.Tool{Name: "a", InputSchema: json.RawMessage(`{}`)}}}, "tool a has no handler"},
		{[]server.Tool{{Tool: runtime.Tool{Name: "a", InputSchema: json.RawMessage(`{}`)}, Handle: ok}, {Tool: runtime.Tool{Name: "a", InputSchema: json.RawMessage(`{}`)}, Handle: ok}}, "tool a is listed twice"},
		{[]server.Tool{{Tool: runtime.Tool{Name: "a", InputSchema: json.RawMessage(`{"$ref":"http://x/y"}`)}, Handle: ok}}, "input schema of tool a"},
	} {
		if _, err := server.New(tc.tools, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}
