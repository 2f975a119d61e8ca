package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/livetest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// The tests of this file run the Live tool loop with the real genai client
// against a stand-in for the Live API (livetest.Serve, which speaks the
// BidiGenerateContent JSON over a WebSocket on 127.0.0.1) and real MCP
// servers: server-everything and the go-sdk server over stdio, and the
// TypeScript SDK's example server over Streamable HTTP.

// liveRun is one Live session under test.
type liveRun struct {
	live *Live
	conn *livetest.Conn
	msgs chan *genai.LiveServerMessage // what Run handed to the caller
	done chan error                    // Run's result
}

// startLive opens a session with the real genai client against srv, with
// ts's tools, and runs a Live over it.
func startLive(t *testing.T, srv *livetest.Server, ts *Toolset, opts *LiveOptions) *liveRun {
	t.Helper()
	tools, err := ts.LiveTools(opts)
	if err != nil {
		t.Fatalf("LiveTools: %v", err)
	}
	type opened struct {
		s   *genai.Session
		err error
	}
	ch := make(chan opened, 1)
	client := srv.Client(t)
	go func() {
		s, err := client.Live.Connect(context.Background(), "gemini-live-test", &genai.LiveConnectConfig{Tools: tools})
		ch <- opened{s, err}
	}()
	conn := srv.Accept(t)
	o := <-ch
	if o.err != nil {
		t.Fatalf("Live.Connect: %v", o.err)
	}
	live, err := NewLive(o.s, ts, opts)
	if err != nil {
		t.Fatalf("NewLive: %v", err)
	}
	r := &liveRun{live: live, conn: conn, msgs: make(chan *genai.LiveServerMessage, 256), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		r.done <- live.Run(ctx, func(m *genai.LiveServerMessage) error {
			r.msgs <- m
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

// wait returns Run's error once it ended.
func (r *liveRun) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		r.done <- err
		return err
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not return")
	}
	return nil
}

// message returns the next message Run handed to the caller.
func (r *liveRun) message(t *testing.T) *genai.LiveServerMessage {
	t.Helper()
	select {
	case m := <-r.msgs:
		return m
	case <-time.After(60 * time.Second):
		t.Fatal("Run handed no message to the caller")
	}
	return nil
}

// text returns the next model text Run handed to the caller, skipping the
// setupComplete message.
func (r *liveRun) text(t *testing.T) string {
	t.Helper()
	for {
		m := r.message(t)
		if m.SetupComplete != nil {
			continue
		}
		if m.ServerContent == nil || m.ServerContent.ModelTurn == nil {
			t.Fatalf("the caller got %+v, want model text", m)
		}
		return m.ServerContent.ModelTurn.Parts[0].Text
	}
}

// wireResponse is one function response as the client sent it.
type wireResponse struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Response     map[string]any `json:"response"`
	Scheduling   string         `json:"scheduling"`
	WillContinue *bool          `json:"willContinue"`
}

// response reads the client's next toolResponse message, which holds one
// function response.
func (r *liveRun) response(t *testing.T) wireResponse {
	t.Helper()
	return decodeResponse(t, r.conn.NextOf(t, "toolResponse"))
}

func decodeResponse(t *testing.T, raw json.RawMessage) wireResponse {
	t.Helper()
	var m struct {
		ToolResponse struct {
			FunctionResponses []wireResponse `json:"functionResponses"`
		} `json:"toolResponse"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || len(m.ToolResponse.FunctionResponses) != 1 {
		t.Fatalf("the client sent %s, want a toolResponse with one function response (%v)", raw, err)
	}
	return m.ToolResponse.FunctionResponses[0]
}

func (w wireResponse) text() string {
	if e, ok := w.Response["error"]; ok {
		return fmt.Sprint("error: ", e)
	}
	return fmt.Sprint(w.Response["output"])
}

// connectStdio starts the MCP server argv over stdio; stderr, when not nil,
// gets the lines the server writes to its standard error.
func connectStdio(t *testing.T, opts *runtime.Options, stderr *slog.Logger, argv ...string) (*runtime.Session, []runtime.Tool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tr := runtime.NewCommandTransport(argv[0], argv[1:]...)
	tr.Logger = stderr
	s, err := runtime.Connect(ctx, tr, opts)
	if err != nil {
		t.Fatalf("connecting to %v: %v", argv, err)
	}
	t.Cleanup(func() { s.Close() })
	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	return s, tools
}

// countingCaller counts the calls that reach the session, by tool.
type countingCaller struct {
	runtime.Caller
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingCaller) CallTool(ctx context.Context, name string, args any) (*runtime.Result, error) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[name]++
	c.mu.Unlock()
	return c.Caller.CallTool(ctx, name, args)
}

func (c *countingCaller) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[name]
}

// TestLiveConcurrentCalls: one toolCall with three function calls to
// server-everything runs them concurrently (the two quick ones answer
// before the long one, listed first), and each response carries its call's
// ID and name.
func TestLiveConcurrentCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	session, tools := connectStdio(t, nil, nil, testenv.Everything(t, "stdio")...)
	ts, err := NewToolset(session, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := startLive(t, livetest.Serve(t), ts, nil)
	r.conn.Send(t, `{"toolCall":{"functionCalls":[
		{"id":"c-long","name":"trigger-long-running-operation","args":{"duration":3,"steps":1}},
		{"id":"c-echo","name":"echo","args":{"message":"hello live"}},
		{"id":"c-sum","name":"get-sum","args":{"a":2,"b":3}}]}}`)
	var order []string
	got := map[string]wireResponse{}
	for range 3 {
		w := r.response(t)
		order = append(order, w.ID)
		got[w.ID] = w
	}
	if order[2] != "c-long" {
		t.Errorf("responses came in the order %v, want the long call last", order)
	}
	want := map[string][2]string{
		"c-long": {"trigger-long-running-operation", "Long running operation completed"},
		"c-echo": {"echo", "Echo: hello live"},
		"c-sum":  {"get-sum", "The sum of 2 and 3 is 5"},
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok || g.Name != w[0] || !strings.Contains(g.text(), w[1]) {
			t.Errorf("response %s = %+v, want %s with %q", id, g, w[0], w[1])
		}
	}
}

// stderrLines is a slog handler that passes on what the runtime logs: the
// stderr lines of a stdio server, or the messages of a session with
// LogTraffic, each with its attributes' values.
type stderrLines struct{ ch chan string }

func (h *stderrLines) Enabled(context.Context, slog.Level) bool { return true }
func (h *stderrLines) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		line += " " + a.Value.String()
		return true
	})
	select {
	case h.ch <- line:
	default:
	}
	return nil
}
func (h *stderrLines) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *stderrLines) WithGroup(string) slog.Handler      { return h }

// waitLine waits for a logged line containing want.
func (h *stderrLines) waitLine(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case l := <-h.ch:
			if strings.Contains(l, want) {
				return
			}
		case <-deadline:
			t.Fatalf("the server never logged %q", want)
		}
	}
}

// TestLiveCancellation: a toolCallCancellation of one of two long calls
// cancels it on the MCP server (the go-sdk server's slow tool logs that its
// context ended, which only notifications/cancelled does), no response is
// ever sent for it, and the other call still answers.
func TestLiveCancellation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	lines := &stderrLines{ch: make(chan string, 64)}
	session, tools := connectStdio(t, nil, slog.New(lines), testenv.SDKServer(t))
	ts, err := NewToolset(session, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := startLive(t, livetest.Serve(t), ts, nil)
	r.conn.Send(t, `{"toolCall":{"functionCalls":[
		{"id":"c-forever","name":"slow","args":{"ms":600000}},
		{"id":"c-short","name":"slow","args":{"ms":1500}}]}}`)
	// Cancelled before it reached the server, the call would not be
	// sent at all: wait until the server runs it.
	lines.waitLine(t, "slow: started (600000 ms)")
	r.conn.Send(t, `{"toolCallCancellation":{"ids":["c-forever"]}}`)
	lines.waitLine(t, "slow: cancelled (600000 ms)")
	w := r.response(t)
	if w.ID != "c-short" || w.text() != "slept" {
		t.Errorf("response %+v, want c-short's", w)
	}
	// Ending the session shows what else the client sent: nothing.
	r.conn.Close()
	err = r.wait(t)
	for _, m := range r.conn.Drain() {
		t.Errorf("the client sent %s after the other call's response", m)
	}
	var le *LiveError
	if !errors.As(err, &le) || len(le.Cancelled) != 0 {
		t.Errorf("Run = %v, want a LiveError with no call in flight", err)
	}
}

// TestLiveGoAway: goAway and the session resumption handle reach the
// caller; when the server then closes the connection, Run ends with
// ErrGoAway, the call still running is cancelled on the server and
// reported, and no goroutine is left behind.
func TestLiveGoAway(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	// Registered first, the check runs after every other cleanup.
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	lines := &stderrLines{ch: make(chan string, 64)}
	session, tools := connectStdio(t, nil, slog.New(lines), testenv.SDKServer(t))
	ts, err := NewToolset(session, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := startLive(t, livetest.Serve(t), ts, nil)
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-slow","name":"slow","args":{"ms":600000}}]}}`)
	lines.waitLine(t, "slow: started (600000 ms)")
	r.conn.Send(t, `{"sessionResumptionUpdate":{"newHandle":"handle-1","resumable":true}}`)
	r.conn.Send(t, `{"goAway":{"timeLeft":"5s"}}`)
	var sawUpdate, sawGoAway bool
	for !sawGoAway {
		m := r.message(t)
		if u := m.SessionResumptionUpdate; u != nil && u.NewHandle == "handle-1" && u.Resumable {
			sawUpdate = true
		}
		if g := m.GoAway; g != nil {
			sawGoAway = true
			if g.TimeLeft != 5*time.Second {
				t.Errorf("goAway.timeLeft = %v, want 5s", g.TimeLeft)
			}
		}
	}
	if !sawUpdate {
		t.Error("the session resumption update did not reach the caller before goAway")
	}
	r.conn.Close()
	err = r.wait(t)
	if !errors.Is(err, ErrGoAway) {
		t.Errorf("Run = %v, want ErrGoAway", err)
	}
	var le *LiveError
	if !errors.As(err, &le) || len(le.Cancelled) != 1 || le.Cancelled[0].ID != "c-slow" {
		t.Errorf("Run = %v, want c-slow reported as cancelled", err)
	}
	lines.waitLine(t, "slow: cancelled (600000 ms)")
	if h := r.live.ResumptionHandle(); h != "handle-1" {
		t.Errorf("ResumptionHandle = %q, want handle-1", h)
	}
	for _, m := range r.conn.Drain() {
		t.Errorf("the client sent %s", m)
	}
}

// TestLiveNonBlockingTask: the task tool delay of the TypeScript SDK's
// example server (taskSupport "required") is declared NON_BLOCKING; while
// it runs, the model's text keeps reaching the caller, and its response
// comes with the scheduling chosen for it.
func TestLiveNonBlockingTask(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	session, err := runtime.Connect(ctx, runtime.HTTP(url, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	tools, err := session.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := NewToolset(session, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &LiveOptions{Scheduling: map[string]genai.FunctionResponseScheduling{"delay": genai.FunctionResponseSchedulingInterrupt}}
	r := startLive(t, livetest.Serve(t), ts, opts)

	var setup struct {
		Setup struct {
			Tools []struct {
				FunctionDeclarations []struct {
					Name     string `json:"name"`
					Behavior string `json:"behavior"`
				} `json:"functionDeclarations"`
			} `json:"tools"`
		} `json:"setup"`
	}
	if err := json.Unmarshal(r.conn.Setup, &setup); err != nil || len(setup.Setup.Tools) != 1 {
		t.Fatalf("setup %s (%v)", r.conn.Setup, err)
	}
	behavior := map[string]string{}
	for _, d := range setup.Setup.Tools[0].FunctionDeclarations {
		behavior[d.Name] = d.Behavior
	}
	if behavior["delay"] != "NON_BLOCKING" || behavior["greet"] != "" {
		t.Errorf("declared behaviors %v, want delay NON_BLOCKING and greet unset", behavior)
	}

	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-delay","name":"delay","args":{"duration":3000}}]}}`)
	r.conn.Send(t, `{"serverContent":{"modelTurn":{"parts":[{"text":"I started it; anything else?"}]},"turnComplete":true}}`)
	if got := r.text(t); got != "I started it; anything else?" {
		t.Errorf("the caller got %q", got)
	}
	select {
	case m := <-r.conn.Pending():
		t.Fatalf("the client answered before the task's end: %s", m)
	default:
	}
	w := r.response(t)
	if w.ID != "c-delay" || w.Name != "delay" || w.Scheduling != "INTERRUPT" || w.text() != "Completed 3000ms delay" {
		t.Errorf("response %+v, want c-delay's result with scheduling INTERRUPT", w)
	}
}

// TestLiveProgress: with Progress set, the progress notifications of a
// NON_BLOCKING call go to the model as WillContinue responses that do not
// interrupt it, and the result ends the stream with the default WHEN_IDLE.
func TestLiveProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	session, tools := connectStdio(t, nil, nil, testenv.SDKServer(t))
	ts, err := NewToolset(session, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := startLive(t, livetest.Serve(t), ts, &LiveOptions{NonBlocking: []string{"progress"}, Progress: true})
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-p","name":"progress","args":{"steps":3}}]}}`)
	for i := 1; i <= 3; i++ {
		w := r.response(t)
		out, _ := w.Response["output"].(map[string]any)
		if w.ID != "c-p" || w.WillContinue == nil || !*w.WillContinue || w.Scheduling != "SILENT" ||
			out["progress"] != float64(i) || out["total"] != float64(3) || out["message"] != fmt.Sprintf("step %d of 3", i) {
			t.Errorf("progress response %d = %+v", i, w)
		}
	}
	w := r.response(t)
	if w.ID != "c-p" || w.WillContinue == nil || *w.WillContinue || w.Scheduling != "WHEN_IDLE" || w.text() != "done after 3 steps" {
		t.Errorf("final response %+v", w)
	}
}

// TestLiveValidationAndConfirmation: arguments that break the schema get an
// error response and never reach the server; a confirmation question that
// takes its time holds up neither another call nor the model's text, and
// once declined, the call never reaches the server.
func TestLiveValidationAndConfirmation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	session, tools := connectStdio(t, nil, nil, testenv.Everything(t, "stdio")...)
	caller := &countingCaller{Caller: session}
	ts, err := NewToolset(caller, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	asked, answer := make(chan runtime.ProposedCall, 1), make(chan bool)
	err = ts.SetConfirmation(&runtime.Confirmation{Policy: runtime.ConfirmListed, Tools: []string{"echo"},
		Ask: func(ctx context.Context, call runtime.ProposedCall) (bool, error) {
			asked <- call
			select {
			case ok := <-answer:
				return ok, nil
			case <-ctx.Done():
				return false, ctx.Err()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	r := startLive(t, livetest.Serve(t), ts, nil)
	r.conn.Send(t, `{"toolCall":{"functionCalls":[
		{"id":"c-ask","name":"echo","args":{"message":"rm -rf"}},
		{"id":"c-bad","name":"get-sum","args":{"a":"two","b":3}}]}}`)
	var call runtime.ProposedCall
	select {
	case call = <-asked:
	case <-time.After(60 * time.Second):
		t.Fatal("the user was never asked")
	}
	if call.Tool.Name != "echo" || string(call.Arguments) != `{"message":"rm -rf"}` {
		t.Errorf("asked about %s %s", call.Tool.Name, call.Arguments)
	}
	// While the question waits: the invalid call is answered, a valid
	// one runs, and the model's text flows.
	w := r.response(t)
	if w.ID != "c-bad" || !strings.HasPrefix(w.text(), "error: invalid arguments for get-sum at /a: ") {
		t.Errorf("response %+v, want c-bad's schema error", w)
	}
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-sum","name":"get-sum","args":{"a":1,"b":2}}]}}`)
	if w := r.response(t); w.ID != "c-sum" || !strings.Contains(w.text(), "is 3") {
		t.Errorf("response %+v, want c-sum's result", w)
	}
	r.conn.Send(t, `{"serverContent":{"modelTurn":{"parts":[{"text":"Waiting for you to confirm."}]}}}`)
	if got := r.text(t); got != "Waiting for you to confirm." {
		t.Errorf("the caller got %q", got)
	}
	answer <- false
	if w := r.response(t); w.ID != "c-ask" || w.text() != "error: the user declined the call to echo; it was not run" {
		t.Errorf("response %+v, want c-ask declined", w)
	}
	if n, m := caller.count("echo"), caller.count("get-sum"); n != 0 || m != 1 {
		t.Errorf("the server got %d echo and %d get-sum calls, want 0 and 1", n, m)
	}
}

// TestLiveToolsChanged: when the server's tool list changes, one
// contextUpdate carries the new declarations, and the new tool runs.
func TestLiveToolsChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	var current atomic.Pointer[Live]
	var session *runtime.Session
	updates := make(chan error, 8)
	opts := &runtime.Options{OnToolsChanged: func() {
		l := current.Load()
		if l == nil {
			return
		}
		tools, err := session.ListTools(context.Background())
		if err == nil {
			var ts *Toolset
			if ts, err = NewToolset(session, tools, nil); err == nil {
				_, err = l.Update(ts)
			}
		}
		updates <- err
	}}
	session, tools := connectStdio(t, opts, nil, testenv.SDKServer(t), "-grow")
	ts, err := NewToolset(session, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := startLive(t, livetest.Serve(t), ts, nil)
	current.Store(r.live)
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-grow","name":"grow","args":{}}]}}`)
	if w := r.response(t); w.ID != "c-grow" || w.text() != "added extra" {
		t.Errorf("response %+v", w)
	}
	var update struct {
		ContextUpdate struct {
			Tools struct {
				Tools []struct {
					FunctionDeclarations []struct {
						Name        string `json:"name"`
						Description string `json:"description"`
						Parameters  struct {
							Properties map[string]any `json:"properties"`
						} `json:"parameters"`
					} `json:"functionDeclarations"`
				} `json:"tools"`
			} `json:"tools"`
		} `json:"contextUpdate"`
	}
	raw := r.conn.NextOf(t, "contextUpdate")
	if err := json.Unmarshal(raw, &update); err != nil || len(update.ContextUpdate.Tools.Tools) != 1 {
		t.Fatalf("context update %s (%v)", raw, err)
	}
	var names []string
	found := false
	for _, d := range update.ContextUpdate.Tools.Tools[0].FunctionDeclarations {
		names = append(names, d.Name)
		if d.Name == "extra" && d.Description == "Repeats a word twice." && d.Parameters.Properties["word"] != nil {
			found = true
		}
	}
	if len(names) != len(tools)+1 || !found {
		t.Errorf("the context update declares %v, want the %d tools and extra", names, len(tools))
	}
	if err := <-updates; err != nil {
		t.Fatalf("Update: %v", err)
	}
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-extra","name":"extra","args":{"word":"hop"}}]}}`)
	if w := r.response(t); w.ID != "c-extra" || w.text() != "hop hop" {
		t.Errorf("response %+v, want extra's result", w)
	}
	r.conn.Close()
	r.wait(t)
	for _, m := range r.conn.Drain() {
		t.Errorf("the client sent %s after the new tool's response", m)
	}
}

// TestLiveCancelTask: a toolCallCancellation of a NON_BLOCKING call that
// runs as a task on the TypeScript SDK's example server cancels the task
// there (tasks/cancel, which the server answers with the status
// cancelled), and no response is sent for it.
func TestLiveCancelTask(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	lines := &stderrLines{ch: make(chan string, 1024)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	session, err := runtime.Connect(ctx, runtime.HTTP(url, nil), &runtime.Options{Logger: slog.New(lines), LogTraffic: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	tools, err := session.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := NewToolset(session, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := startLive(t, livetest.Serve(t), ts, nil)
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-task","name":"delay","args":{"duration":600000}}]}}`)
	// Cancelled before it reached the server, the call would not be
	// made: wait until the runtime polls the task.
	lines.waitLine(t, `"method":"tasks/get"`)
	r.conn.Send(t, `{"toolCallCancellation":{"ids":["c-task"]}}`)
	lines.waitLine(t, `"method":"tasks/cancel"`)
	lines.waitLine(t, `"status":"cancelled"`)
	r.conn.Close()
	r.wait(t)
	for _, m := range r.conn.Drain() {
		t.Errorf("the client sent %s for the cancelled task", m)
	}
}
