package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// inputServer offers a tool, a prompt and a resource template whose
// handlers ask the client for input; runs counts the runs of the tool's.
func inputServer(t *testing.T, runs *atomic.Int32) *server.Server {
	t.Helper()
	s, err := newInputServer(runs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newInputServer(runs *atomic.Int32) (*server.Server, error) {
	name := func(ctx context.Context) (string, error) {
		e, err := server.Elicit(ctx, &runtime.ElicitRequest{
			Message:         "Your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		})
		if err != nil {
			return "", err
		}
		if e.Action != runtime.ElicitAccept {
			return e.Action, nil
		}
		return fmt.Sprint(e.Content["name"]), nil
	}
	tool, err := runtime.ParseTool([]byte(`{"name":"ask","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`))
	if err != nil {
		return nil, err
	}
	return server.New([]server.Tool{{
		Tool: tool,
		Handle: func(ctx context.Context, args json.RawMessage) (*runtime.Result, error) {
			runs.Add(1)
			who, err := name(ctx)
			if err != nil {
				return nil, err
			}
			answer, err := server.Sample(ctx, &runtime.SamplingRequest{
				Messages:  []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "The capital of France?"}}}},
				MaxTokens: 10,
			})
			if err != nil {
				return nil, err
			}
			roots, err := server.ListRoots(ctx)
			if err != nil {
				return nil, err
			}
			text := fmt.Sprintf("%s asked %s; %s said %s; roots %v", who, args, answer.Model, answer.Content[0].Text, roots)
			return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: text}}}, nil
		},
	}}, &server.Options{
		Prompts: []server.Prompt{{
			Prompt: runtime.Prompt{Name: "greet"},
			Handle: func(ctx context.Context, _ map[string]string) (*runtime.GetPromptResult, error) {
				who, err := name(ctx)
				if err != nil {
					return nil, err
				}
				return &runtime.GetPromptResult{Messages: []runtime.PromptMessage{
					{Role: "user", Content: runtime.Content{Type: runtime.ContentText, Text: "Say hello to " + who}},
				}}, nil
			},
		}},
		ResourceTemplates: []server.ResourceTemplate{{
			Template: runtime.ResourceTemplate{Name: "vault", URITemplate: "vault://{key}"},
			Handle: func(ctx context.Context, uri string, _ map[string]any) (*runtime.ReadResourceResult, error) {
				who, err := name(ctx)
				if err != nil {
					return nil, err
				}
				return &runtime.ReadResourceResult{Contents: []runtime.ResourceContents{{URI: uri, Text: "opened for " + who}}}, nil
			},
		}},
	})
}

// answering are Options whose handlers answer every request for input.
func answering() *runtime.Options {
	return &runtime.Options{
		Elicitation: func(_ context.Context, req *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
			if req.Message != "Your name?" || req.Server.Name != "mcpgen-server" {
				return nil, fmt.Errorf("unexpected request %+v", req)
			}
			return &runtime.ElicitResult{Action: runtime.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		Sampling: func(_ context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
			if req.MaxTokens != 10 || len(req.Messages) != 1 || req.Messages[0].Text() != "The capital of France?" {
				return nil, fmt.Errorf("unexpected request %+v", req)
			}
			return &runtime.SamplingResult{Content: []runtime.Content{{Type: runtime.ContentText, Text: "Paris"}}, Model: "m1"}, nil
		},
		Roots: func(context.Context) ([]runtime.Root, error) {
			return []runtime.Root{{URI: "file:///work", Name: "work"}}, nil
		},
	}
}

func TestHandlersAskTheClientInBothEras(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	s := inputServer(t, &runs)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	for name, tr := range map[string]runtime.Transport{"memory": s.Transport(), "http": runtime.HTTP(hs.URL, nil)} {
		for _, era := range eras {
			t.Run(name+"/"+era.pin, func(t *testing.T) {
				opts := answering()
				opts.ProtocolVersion = era.pin
				sess, err := runtime.Connect(ctx, tr, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer sess.Close()
				runs.Store(0)
				res, err := sess.CallTool(ctx, "ask", map[string]any{"q": "x"})
				want := `Ada asked {"q":"x"}; m1 said Paris; roots [{file:///work work}]`
				if err != nil || res.Text() != want {
					t.Fatalf("ask: %+v, %v; want %q", res, err, want)
				}
				// The legacy era asks within the one run; the 2026-07-28
				// era runs the handler again for each answer.
				wantRuns := int32(1)
				if era.want == "2026-07-28" {
					wantRuns = 4
				}
				if got := runs.Load(); got != wantRuns {
					t.Errorf("the tool's handler ran %d times, want %d", got, wantRuns)
				}
				pr, err := sess.GetPrompt(ctx, "greet", nil)
				if err != nil || pr.Text() != "Say hello to Ada" {
					t.Fatalf("greet: %+v, %v", pr, err)
				}
				rr, err := sess.ReadResource(ctx, "vault://k")
				if err != nil || rr.Text() != "opened for Ada" {
					t.Fatalf("vault: %+v, %v", rr, err)
				}
			})
		}
	}
}

func TestAskingAClientThatOffersNothing(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	s := inputServer(t, &runs)
	for _, era := range eras {
		t.Run(era.pin, func(t *testing.T) {
			sess, err := s.Connect(ctx, &runtime.Options{ProtocolVersion: era.pin})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			res, err := sess.CallTool(ctx, "ask", nil)
			var rpc *runtime.RPCError
			if era.want >= runtime.LatestProtocolVersion {
				// TestMissingCapabilityIsAnsweredAsSuch checks the rest.
				if !errors.As(err, &rpc) || rpc.Code != runtime.CodeMissingRequiredClientCapability {
					t.Fatalf("ask: %+v, %v", res, err)
				}
			} else if !isError(res, err) || res.Text() != "server: the client does not offer elicitation/create in form mode" {
				t.Fatalf("ask: %+v, %v", res, err)
			}
		})
	}
	// Outside a handler there is no client to ask.
	if _, err := server.ListRoots(ctx); err == nil || !strings.Contains(err.Error(), "outside a handler") {
		t.Errorf("ListRoots outside a handler: %v", err)
	}
}

func TestRequestStateCannotBeForged(t *testing.T) {
	var runs atomic.Int32
	s := inputServer(t, &runs)
	// The client declares elicitation only.
	caps := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	body := func(args, extra string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":` + args + `,` + caps + extra + `}}`
	}
	send := func(b string) map[string]json.RawMessage {
		t.Helper()
		r := setMediaTypes(httptest.NewRequest("POST", "/", strings.NewReader(b)))
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", "ask")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
			t.Fatalf("response %q: %v", w.Body, err)
		}
		return m
	}
	first := send(body(`{"q":"a"}`, ""))
	var res struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err := json.Unmarshal(first["result"], &res); err != nil || res.ResultType != "input_required" || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("first round: %s", first["result"])
	}
	var key string
	for k := range res.InputRequests {
		key = k
	}
	answer := `,"inputResponses":{"` + key + `":{"action":"accept","content":{"name":"Eve"}}}`
	// The second round asks for a sample, which the capabilities do not
	// offer: the handler's error makes the answer -32021.
	state := func(s string) string { return `,"requestState":"` + s + `"` }
	next := send(body(`{"q":"a"}`, answer+state(res.RequestState)))
	if !strings.Contains(string(next["error"]), `"requiredCapabilities":{"sampling":{}}`) {
		t.Fatalf("second round: %s", next)
	}
	for name, extra := range map[string]string{
		"tampered":        answer + state("x"+res.RequestState),
		"not signed":      answer + state(strings.Split(res.RequestState, ".")[0]),
		"other arguments": "",
	} {
		b := body(`{"q":"a"}`, extra)
		if name == "other arguments" {
			b = body(`{"q":"b"}`, answer+state(res.RequestState))
		}
		m := send(b)
		var e runtime.RPCError
		if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != runtime.CodeInvalidParams || !strings.Contains(e.Message, "requestState is not one this server issued") {
			t.Errorf("%s: %s", name, m)
		}
	}
}

func TestConnectionEndsWhileAHandlerAsks(t *testing.T) {
	var runs atomic.Int32
	c := serveStdio(t, inputServer(t, &runs))
	if _, method := c.callUntilAsked("ask"); method != "elicitation/create" {
		t.Fatalf("the server sent %s, want an elicitation/create request", method)
	}
	// A response to no request the server sent is dropped; then the
	// client goes away without answering. Serve returns, and the call's
	// answer says why it failed.
	c.write(`{"jsonrpc":"2.0","id":"other","result":{"action":"accept"}}`)
	c.in.Close()
	if line := c.next(); !strings.Contains(line, `"id":2`) || !strings.Contains(line, "the connection ended before the client answered elicitation/create") {
		t.Errorf("the call was answered with %s", line)
	}
	c.wait()
}

// stdioClient is a legacy client of a Server's Serve, written and read line
// by line through pipes.
type stdioClient struct {
	t      *testing.T
	in     *io.PipeWriter
	outR   *io.PipeReader
	out    *bufio.Scanner
	served chan error
}

// serveStdio runs s.Serve on pipes and initializes a 2025-11-25 session
// that declares elicitation.
func serveStdio(t *testing.T, s *server.Server) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioClient{t: t, in: inW, outR: outR, out: bufio.NewScanner(outR), served: make(chan error, 1)}
	go func() { c.served <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	c.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`)
	if l := c.next(); !strings.Contains(l, `"id":1,"result"`) {
		t.Fatalf("initialize: %s", l)
	}
	c.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *stdioClient) write(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *stdioClient) next() string {
	c.t.Helper()
	if !c.out.Scan() {
		c.t.Fatalf("no line: %v", c.out.Err())
	}
	return c.out.Text()
}

// callUntilAsked calls tool, with id 2, and returns the request the server
// sends the client for it.
func (c *stdioClient) callUntilAsked(tool string) (id json.RawMessage, method string) {
	c.t.Helper()
	c.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if l := c.next(); json.Unmarshal([]byte(l), &req) != nil || len(req.ID) == 0 {
		c.t.Fatalf("the server sent %s, want its request", l)
	}
	return req.ID, req.Method
}

// wait ends the input, reads the rest of the output, and checks that Serve
// returned nil.
func (c *stdioClient) wait() {
	c.t.Helper()
	c.in.Close()
	go io.Copy(io.Discard, c.outR)
	if err := <-c.served; err != nil {
		c.t.Errorf("Serve: %v", err)
	}
}

// TestTypeScriptClientsAnswerHandlers runs the TypeScript SDK's clients
// against the server over stdio and over Streamable HTTP: the v1 line in
// the legacy era, where the server sends its elicitation, sampling and
// roots requests, and the v2 line pinned to 2026-07-28, where they come as
// input_required results. Either way the requests reach a client mcpgen
// did not write, and its answers reach the handlers.
func TestTypeScriptClientsAnswerHandlers(t *testing.T) {
	var runs atomic.Int32
	hs := httptest.NewServer(inputServer(t, &runs))
	t.Cleanup(hs.Close)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, client := range []struct {
		name    string
		argv    func(testing.TB, ...string) []string
		version string
	}{
		{"v1", testenv.TSV1Client, ""},
		{"v2", testenv.TSV2Client, "2026-07-28"},
	} {
		for name, args := range map[string][]string{
			"stdio": {"stdio", exe, "-test.run=^$"},
			"http":  {"http", hs.URL},
		} {
			t.Run(client.name+"/"+name, func(t *testing.T) {
				argv := client.argv(t, args...)
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env = append(os.Environ(), stdioEnv+"=input")
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("the client failed: %v\n%s", err, stderr.String())
				}
				var got struct {
					Version                string
					Tool, Prompt, Resource string
					IsError                bool
					Asked                  []string
				}
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("the client printed %q: %v", out, err)
				}
				want := `Ada asked {"q":"x"}; m1 said Paris; roots [{file:///work work}]`
				if got.Tool != want || got.IsError || got.Prompt != "Say hello to Ada" || got.Resource != "opened for Ada" || got.Version != client.version {
					t.Errorf("the client got %+v, want the tool to say %q", got, want)
				}
				asked := strings.Join(got.Asked, ", ")
				if wantAsked := "elicitation/create: Your name?, sampling/createMessage: The capital of France?, roots/list, elicitation/create: Your name?, elicitation/create: Your name?"; asked != wantAsked {
					t.Errorf("the server asked %s, want %s", asked, wantAsked)
				}
			})
		}
	}
}
