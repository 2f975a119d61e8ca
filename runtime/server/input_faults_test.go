package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// A sampling request with tools goes only to a client that declared
// sampling.tools, as the specification requires since 2025-11-25; the
// runtime's Session declares sampling alone, so the handler's Sample fails
// and the client's Sampling handler is not asked.
func TestSampleWithToolsNeedsTheToolsCapability(t *testing.T) {
	tool, err := runtime.ParseTool([]byte(`{"name":"summarize","inputSchema":{"type":"object"}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New([]server.Tool{{
		Tool: tool,
		Handle: func(ctx context.Context, _ json.RawMessage) (*runtime.Result, error) {
			_, err := server.Sample(ctx, &runtime.SamplingRequest{
				Messages:  []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "Weather in Paris?"}}}},
				MaxTokens: 10,
				Tools:     json.RawMessage(`[{"name":"get_weather","inputSchema":{"type":"object"}}]`),
			})
			return nil, err
		},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range eras {
		t.Run(era.pin, func(t *testing.T) {
			var sampled atomic.Int32
			sess, err := s.Connect(context.Background(), &runtime.Options{
				ProtocolVersion: era.pin,
				Sampling: func(context.Context, *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
					sampled.Add(1)
					return &runtime.SamplingResult{Content: []runtime.Content{{Type: runtime.ContentText, Text: "sunny"}}, Model: "m1"}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			res, err := sess.CallTool(context.Background(), "summarize", nil)
			var rpc *runtime.RPCError
			if era.want >= runtime.LatestProtocolVersion {
				if want := `{"requiredCapabilities":{"sampling":{"tools":{}}}}`; !errors.As(err, &rpc) || rpc.Code != runtime.CodeMissingRequiredClientCapability || string(rpc.Data) != want {
					t.Errorf("summarize: %+v, %v; want -32021 with %s", res, err, want)
				}
			} else if want := "server: the client does not offer sampling/createMessage with tools"; !isError(res, err) || res.Text() != want {
				t.Errorf("summarize: %+v, %v; want the error %q", res, err, want)
			}
			if n := sampled.Load(); n != 0 {
				t.Errorf("the client's Sampling handler was asked %d times for a request with tools it did not declare", n)
			}
		})
	}
	// A client that declares sampling.tools is asked.
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"summarize","arguments":{},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{"tools":{}}}}}}`))
	setMediaTypes(r)
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "tools/call")
	r.Header.Set("Mcp-Name", "summarize")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if got := w.Body.String(); !strings.Contains(got, `"resultType":"input_required"`) || !strings.Contains(got, `"get_weather"`) {
		t.Errorf("a client that declares sampling.tools got %s, want the sampling request", got)
	}
}

// A goroutine of a handler that asks once the call has been answered asks
// nothing: over stdio, as over HTTP, no elicitation/create reaches the
// client for a call that is over, and Elicit fails with the call's
// context.
func TestAskAfterTheCallEndedSendsNothing(t *testing.T) {
	asked := make(chan error, 1)
	tool, err := runtime.ParseTool([]byte(`{"name":"late","inputSchema":{"type":"object"}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New([]server.Tool{{
		Tool: tool,
		Handle: func(ctx context.Context, _ json.RawMessage) (*runtime.Result, error) {
			go func() {
				<-ctx.Done()
				_, err := server.Elicit(ctx, &runtime.ElicitRequest{Message: "Still there?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)})
				asked <- err
			}()
			return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done"}}}, nil
		},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := serveStdio(t, s)
	c.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"late","arguments":{}}}`)
	if l := c.next(); !strings.Contains(l, `"id":2,"result"`) {
		t.Fatalf("the call: %s", l)
	}
	if err := <-asked; !errors.Is(err, context.Canceled) {
		t.Errorf("Elicit after the call ended: %v, want context.Canceled", err)
	}
	c.in.Close()
	for c.out.Scan() {
		t.Errorf("after the call was answered, the server sent %s", c.out.Text())
	}
	c.wait()
}

// elicitServer offers one tool, confirm, whose handler asks the client one
// question and says the answer's action.
func elicitServer(t *testing.T, opts *server.Options) *server.Server {
	t.Helper()
	tool, err := runtime.ParseTool([]byte(`{"name":"confirm","inputSchema":{"type":"object"}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New([]server.Tool{{
		Tool: tool,
		Handle: func(ctx context.Context, _ json.RawMessage) (*runtime.Result, error) {
			e, err := server.Elicit(ctx, &runtime.ElicitRequest{Message: "Sure?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)})
			if err != nil {
				return nil, err
			}
			return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: e.Action}}}, nil
		},
	}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// callText returns the text of the tools/call result that the message line
// carries.
func callText(line string) string {
	var m struct {
		Result runtime.Result `json:"result"`
	}
	if json.Unmarshal([]byte(line), &m) != nil {
		return ""
	}
	return m.Result.Text()
}

// A client whose answer to the server's request is refused (a member of
// the wrong type, a wrong jsonrpc, over Options.MaxMessageSize) fails the
// handler's request with an error that says so, over stdio and over HTTP:
// the handler waited for an answer that had come, until the client went
// away.
func TestRefusedAnswerFailsTheAsk(t *testing.T) {
	opts := &server.Options{MaxMessageSize: 1000}
	answers := map[string]struct{ answer, want string }{
		"error code a string": {`{"jsonrpc":"2.0","id":ID,"error":{"code":"-32603","message":"no"}}`, "invalid request: json: cannot unmarshal string into Go struct field RPCError.error.code of type int"},
		"jsonrpc 1.0":         {`{"jsonrpc":"1.0","id":ID,"result":{"action":"accept"}}`, `the message is not JSON-RPC 2.0 (want "jsonrpc":"2.0")`},
		"over the size limit": {`{"jsonrpc":"2.0","id":ID,"result":{"action":"accept","content":{"pad":"` + strings.Repeat("x", 2000) + `"}}}`, "the message exceeds the 1000-byte limit"},
	}
	const wantErr = "server: the client's answer to elicitation/create was refused: "
	for name, tc := range answers {
		answer := tc.answer
		t.Run("stdio/"+name, func(t *testing.T) {
			c := serveStdio(t, elicitServer(t, opts))
			id, _ := c.callUntilAsked("confirm")
			c.write(strings.Replace(answer, "ID", string(id), 1))
			// A ping behind the answer; then the client goes away.
			c.write(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
			var call string
			for call == "" {
				switch l := c.next(); {
				case strings.Contains(l, `"id":2`):
					call = l
				case strings.Contains(l, `"id":3`):
					c.in.Close()
				}
			}
			if callText(call) != wantErr+tc.want {
				t.Errorf("the call was answered %s, want an error saying %q", call, wantErr+tc.want)
			}
			c.wait()
		})
		t.Run("http/"+name, func(t *testing.T) {
			hs := httptest.NewServer(elicitServer(t, opts))
			defer hs.Close()
			post := func(ctx context.Context, body string) (*http.Response, error) {
				r, err := http.NewRequestWithContext(ctx, "POST", hs.URL, strings.NewReader(body))
				if err != nil {
					return nil, err
				}
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				r.Header.Set("MCP-Protocol-Version", "2025-11-25")
				return http.DefaultClient.Do(r)
			}
			ctx, cancel := context.WithTimeout(context.Background(), testenv.WaitLimit(t))
			defer cancel()
			res, err := post(ctx, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{}}}`)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			events := bufio.NewScanner(res.Body)
			next := func() string {
				t.Helper()
				for events.Scan() {
					if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
						return data
					}
				}
				t.Fatalf("the event stream ended: %v", events.Err())
				return ""
			}
			var req struct{ ID json.RawMessage }
			if l := next(); json.Unmarshal([]byte(l), &req) != nil || len(req.ID) == 0 {
				t.Fatalf("the server sent %s, want its request", l)
			}
			ans, err := post(ctx, strings.Replace(answer, "ID", string(req.ID), 1))
			if err != nil {
				t.Fatal(err)
			}
			ans.Body.Close()
			if call := next(); !strings.Contains(call, `"id":2`) || callText(call) != wantErr+tc.want {
				t.Errorf("the call was answered %s, want an error saying %q", call, wantErr+tc.want)
			}
		})
	}
}

// An answer to sampling/createMessage without its role or content, or to
// roots/list without its roots, is an error naming the member, as a
// malformed elicitation answer is: Sample and ListRoots handed the handler
// an empty answer as if the client had given one.
func TestIncompleteAnswersAreErrors(t *testing.T) {
	tool, err := runtime.ParseTool([]byte(`{"name":"ask","inputSchema":{"type":"object","properties":{"what":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New([]server.Tool{{
		Tool: tool,
		Handle: func(ctx context.Context, args json.RawMessage) (*runtime.Result, error) {
			var text string
			if strings.Contains(string(args), "roots") {
				roots, err := server.ListRoots(ctx)
				if err != nil {
					return nil, err
				}
				text = fmt.Sprintf("%d roots", len(roots))
			} else {
				res, err := server.Sample(ctx, &runtime.SamplingRequest{MaxTokens: 10, Messages: []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "hi"}}}}})
				if err != nil {
					return nil, err
				}
				text = fmt.Sprintf("role %q, %d content blocks", res.Role, len(res.Content))
			}
			return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: text}}}, nil
		},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ what, key, answer, want string }{
		{"sample", "sampling/createMessage#1", `{}`, "server: the client's answer to sampling/createMessage is malformed: no role"},
		{"sample", "sampling/createMessage#1", `null`, "server: the client's answer to sampling/createMessage is malformed: no role"},
		{"sample", "sampling/createMessage#1", `{"role":"assistant","model":"m"}`, "server: the client's answer to sampling/createMessage is malformed: no content"},
		{"sample", "sampling/createMessage#1", `{"role":"robot","content":{"type":"text","text":"x"}}`, `server: the client's answer to sampling/createMessage is malformed: role "robot" is neither user nor assistant`},
		{"sample", "sampling/createMessage#1", `{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}`, `role "assistant", 1 content blocks`},
		{"roots", "roots/list#1", `{}`, "server: the client's answer to roots/list is malformed: no roots"},
		{"roots", "roots/list#1", `{"roots":[]}`, "0 roots"},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"what":"` + tc.what + `"},"inputResponses":{"` + tc.key + `":` + tc.answer + `},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"roots":{}}}}}`
		r := setMediaTypes(httptest.NewRequest("POST", "/", strings.NewReader(body)))
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", "ask")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if got := callText(w.Body.String()); got != tc.want {
			t.Errorf("%s answered %s: the tool said %q, want %q", tc.what, tc.answer, got, tc.want)
		}
	}
}

// A client that answers the server's request and then closes its end of
// stdio gets its answer used: when the end of the input came before the
// handler took the answer, the answer was dropped at random for "the
// connection ended before the client answered".
func TestAnswerBeforeTheEndOfInputIsTaken(t *testing.T) {
	s := elicitServer(t, nil)
	for i := range 200 {
		c := serveStdio(t, s)
		id, _ := c.callUntilAsked("confirm")
		c.write(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":{}}}`)
		c.in.Close()
		call := c.next()
		c.wait()
		if got := callText(call); got != "accept" {
			t.Fatalf("run %d: the call was answered %s, want accept", i, call)
		}
	}
}

// An elicitation that lacks what its mode needs (a URL in url mode, a
// requested schema in form mode) fails at once, naming it: the request
// went out, and a Session declined a url one without asking its
// Elicitation handler, so the handler read "decline" as the user's answer.
func TestElicitNeedsWhatItsModeNeeds(t *testing.T) {
	tool, err := runtime.ParseTool([]byte(`{"name":"ask","inputSchema":{"type":"object","properties":{"mode":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New([]server.Tool{{
		Tool: tool,
		Handle: func(ctx context.Context, args json.RawMessage) (*runtime.Result, error) {
			var a struct{ Mode string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			e, err := server.Elicit(ctx, &runtime.ElicitRequest{Mode: a.Mode, Message: "Sign in", ElicitationID: "e1"})
			if err != nil {
				return nil, err
			}
			return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: e.Action}}}, nil
		},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range eras {
		t.Run(era.pin, func(t *testing.T) {
			var asked atomic.Int32
			sess, err := s.Connect(context.Background(), &runtime.Options{
				ProtocolVersion: era.pin,
				Elicitation: func(context.Context, *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
					asked.Add(1)
					return &runtime.ElicitResult{Action: runtime.ElicitAccept}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			for mode, want := range map[string]string{
				runtime.ElicitURL:  "server: an elicitation in url mode needs a URL",
				runtime.ElicitForm: "server: an elicitation in form mode needs a RequestedSchema",
			} {
				res, err := sess.CallTool(context.Background(), "ask", map[string]any{"mode": mode})
				if !isError(res, err) || res.Text() != want {
					t.Errorf("%s mode: %+v, %v; want the error %q", mode, res, err, want)
				}
			}
			if n := asked.Load(); n != 0 {
				t.Errorf("the Elicitation handler was asked %d times", n)
			}
		})
	}
}

// A client that never answers the server's request, and never cancels the
// call, holds the handler no longer than Options.AskTimeout: the request is
// cancelled and the call answered with an error saying so, over stdio and
// over HTTP. Only the handler's context bounded the wait: over stdio, the
// connection's, so that the handler, and its place among the 16 requests
// a connection runs at once, stayed for as long as the client was there.
func TestUnansweredAskTimesOut(t *testing.T) {
	opts := &server.Options{AskTimeout: 200 * time.Millisecond}
	const want = "server: the client did not answer elicitation/create within 200ms (Options.AskTimeout)"
	t.Run("stdio", func(t *testing.T) {
		c := serveStdio(t, elicitServer(t, opts))
		id, _ := c.callUntilAsked("confirm")
		call := make(chan string, 1)
		go func() {
			// The client reads on, and answers nothing.
			for c.out.Scan() {
				if l := c.out.Text(); strings.Contains(l, `"id":2`) {
					call <- l
					return
				} else if !strings.Contains(l, "notifications/cancelled") || !strings.Contains(l, string(id)) {
					t.Errorf("the server sent %s", l)
				}
			}
			close(call)
		}()
		select {
		case l := <-call:
			if got := callText(l); got != want {
				t.Errorf("the call was answered %s, want an error saying %q", l, want)
			}
		case <-time.After(testenv.WaitLimit(t)):
			t.Errorf("the call was not answered within %v", testenv.WaitLimit(t))
		}
		c.wait()
	})
	t.Run("http", func(t *testing.T) {
		hs := httptest.NewServer(elicitServer(t, opts))
		defer hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), testenv.WaitLimit(t))
		defer cancel()
		r, err := http.NewRequestWithContext(ctx, "POST", hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{}}}`))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", "2025-11-25")
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var call string
		events := bufio.NewScanner(res.Body)
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok && strings.Contains(data, `"id":2`) {
				call = data
			}
		}
		if got := callText(call); got != want {
			t.Errorf("the call was answered %q (%v), want an error saying %q", call, events.Err(), want)
		}
	})
}

// In the 2026-07-28 era, a request whose handler needs a capability the
// client did not declare, and fails for want of it, is answered with
// MissingRequiredClientCapability (-32021, 400 over HTTP), naming the
// capability, as the specification requires of a real server; the legacy
// era's handler error is unchanged.
func TestMissingCapabilityIsAnsweredAsSuch(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	s := inputServer(t, &runs)
	sess, err := s.Connect(ctx, &runtime.Options{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	want := `{"requiredCapabilities":{"elicitation":{}}}`
	check := func(what string, err error) {
		t.Helper()
		var rpc *runtime.RPCError
		if !errors.As(err, &rpc) || rpc.Code != runtime.CodeMissingRequiredClientCapability || string(rpc.Data) != want {
			t.Errorf("%s: %v (data %s), want -32021 with %s", what, err, dataOf(rpc), want)
		}
	}
	_, err = sess.CallTool(ctx, "ask", nil)
	check("tools/call", err)
	_, err = sess.GetPrompt(ctx, "greet", nil)
	check("prompts/get", err)
	_, err = sess.ReadResource(ctx, "vault://k")
	check("resources/read", err)

	hs := httptest.NewServer(s)
	defer hs.Close()
	req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask",`+meta+`}}`))
	setMediaTypes(req)
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "ask")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), `"code":-32021`) {
		t.Errorf("over HTTP: got %d %s, want 400 with -32021", resp.StatusCode, got)
	}

	legacy, err := s.Connect(ctx, &runtime.Options{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	if res, err := legacy.CallTool(ctx, "ask", nil); !isError(res, err) || res.Text() != "server: the client does not offer elicitation/create in form mode" {
		t.Errorf("legacy tools/call: %+v, %v", res, err)
	}
}

// dataOf returns the data of e, or nothing when e is nil.
func dataOf(e *runtime.RPCError) json.RawMessage {
	if e == nil {
		return nil
	}
	return e.Data
}
