package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
)

// These tests run the Live loop over an in-memory session (memLiveConn, in
// live_bench_test.go) for what the wire tests do not reach.

type callerFunc func(ctx context.Context, name string, args any) (*runtime.Result, error)

func (f callerFunc) CallTool(ctx context.Context, name string, args any) (*runtime.Result, error) {
	return f(ctx, name, args)
}

var loopTools = []runtime.Tool{
	{Name: "switch_on", InputSchema: []byte(`{"type":"object","properties":{"device":{"type":"string"}},"required":["device"]}`)},
	{Name: "long_job", InputSchema: []byte(`{"type":"object"}`), Raw: []byte(`{"name":"long_job","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}`)},
}

// runMem runs a Live over an in-memory session; handle may be nil.
func runMem(t *testing.T, conn *memLiveConn, caller runtime.Caller, opts *LiveOptions, handle func(*genai.LiveServerMessage) error) (*Live, chan error) {
	t.Helper()
	ts, err := NewToolset(caller, loopTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	live, err := newLive(conn, ts, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- live.Run(context.Background(), handle) }()
	t.Cleanup(func() {
		conn.Close()
		<-done
	})
	return live, done
}

func toolCall(calls ...*genai.FunctionCall) *genai.LiveServerMessage {
	return &genai.LiveServerMessage{ToolCall: &genai.LiveServerToolCall{FunctionCalls: calls}}
}

func (c *memLiveConn) next(t *testing.T) *genai.FunctionResponse {
	t.Helper()
	select {
	case r := <-c.out:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no function response")
	}
	return nil
}

// TestLiveToolErrors: an error of the caller and a result with isError
// become function responses the model reads; the loop goes on.
func TestLiveToolErrors(t *testing.T) {
	conn := newMemLiveConn()
	runMem(t, conn, callerFunc(func(_ context.Context, name string, args any) (*runtime.Result, error) {
		if strings.Contains(string(args.(json.RawMessage)), "broken") {
			return nil, errors.New("the device does not answer")
		}
		return &runtime.Result{IsError: true, Content: []runtime.Content{{Type: runtime.ContentText, Text: "no such device"}}}, nil
	}), nil, nil)
	conn.in <- toolCall(&genai.FunctionCall{ID: "a", Name: "switch_on", Args: map[string]any{"device": "broken"}})
	if r := conn.next(t); r.ID != "a" || r.Response["error"] != "calling switch_on failed: the device does not answer" {
		t.Errorf("response %+v", r)
	}
	conn.in <- toolCall(&genai.FunctionCall{ID: "b", Name: "switch_on", Args: map[string]any{"device": "ghost"}})
	if r := conn.next(t); r.ID != "b" || r.Response["error"] != "no such device" {
		t.Errorf("response %+v", r)
	}
}

// TestLiveSendFailureEndsRun: a response that cannot be sent ends Run with
// that cause.
func TestLiveSendFailureEndsRun(t *testing.T) {
	conn := &failingSendConn{memLiveConn: newMemLiveConn()}
	t.Cleanup(func() { conn.Close() })
	ts, _ := NewToolset(callerFunc(func(context.Context, string, any) (*runtime.Result, error) { return &runtime.Result{}, nil }), loopTools, nil)
	live, err := newLive(conn, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- live.Run(context.Background(), nil) }()
	conn.in <- toolCall(&genai.FunctionCall{ID: "a", Name: "switch_on", Args: map[string]any{"device": "lamp"}})
	select {
	case err := <-ended:
		if !errors.Is(err, errSocketGone) || !strings.Contains(err.Error(), "sending the response to switch_on (a)") {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not end")
	}
}

var errSocketGone = errors.New("the socket is gone")

type failingSendConn struct{ *memLiveConn }

func (c *failingSendConn) SendToolResponse(genai.LiveToolResponseInput) error { return errSocketGone }

// TestLiveLimits: calls beyond MaxCalls in flight, and the toolCalls of a
// turn past MaxSteps, are answered with an error and not run; the turn's
// end resets the count.
func TestLiveLimits(t *testing.T) {
	conn := newMemLiveConn()
	release := make(chan struct{})
	var calls atomic.Int32
	runMem(t, conn, callerFunc(func(ctx context.Context, _ string, _ any) (*runtime.Result, error) {
		calls.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "on"}}}, nil
	}), &LiveOptions{MaxCalls: 1, MaxSteps: 2}, nil)
	on := func(id string) *genai.FunctionCall {
		return &genai.FunctionCall{ID: id, Name: "switch_on", Args: map[string]any{"device": "lamp"}}
	}
	conn.in <- toolCall(on("a"), on("b"))
	if r := conn.next(t); r.ID != "b" || r.Response["error"] != "the call to switch_on was not run: 1 calls are running already; try again when one has answered" {
		t.Errorf("response %+v", r)
	}
	close(release)
	if r := conn.next(t); r.ID != "a" || r.Response["output"] != "on" {
		t.Errorf("response %+v", r)
	}
	conn.in <- toolCall(on("c"))
	if r := conn.next(t); r.ID != "c" || r.Response["output"] != "on" {
		t.Errorf("response %+v", r)
	}
	conn.in <- toolCall(on("d"))
	if r := conn.next(t); r.ID != "d" || r.Response["error"] != "the call to switch_on was not run: the model turn reached its limit of 2 tool call messages first" {
		t.Errorf("response %+v", r)
	}
	conn.in <- &genai.LiveServerMessage{ServerContent: &genai.LiveServerContent{TurnComplete: true}}
	conn.in <- toolCall(on("e"))
	if r := conn.next(t); r.ID != "e" || r.Response["output"] != "on" {
		t.Errorf("response %+v", r)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d calls ran, want 3 (a, c, e)", n)
	}
}

// TestLiveMessagesToCaller: a message that holds a toolCall and other
// content reaches the caller without the toolCall; one that holds only
// tool traffic does not reach it.
func TestLiveMessagesToCaller(t *testing.T) {
	conn := newMemLiveConn()
	got := make(chan *genai.LiveServerMessage, 8)
	runMem(t, conn, callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
		return &runtime.Result{}, nil
	}), nil, func(m *genai.LiveServerMessage) error {
		got <- m
		return nil
	})
	usage := &genai.UsageMetadata{TotalTokenCount: 7}
	msg := toolCall(&genai.FunctionCall{ID: "a", Name: "switch_on", Args: map[string]any{"device": "lamp"}})
	msg.UsageMetadata = usage
	conn.in <- msg
	conn.next(t)
	conn.in <- &genai.LiveServerMessage{ToolCallCancellation: &genai.LiveServerToolCallCancellation{IDs: []string{"zzz"}}}
	conn.in <- &genai.LiveServerMessage{ServerContent: &genai.LiveServerContent{TurnComplete: true}}
	m := <-got
	if m.ToolCall != nil || m.UsageMetadata != usage {
		t.Errorf("the caller got %+v, want the usage alone", m)
	}
	if m := <-got; m.ServerContent == nil {
		t.Errorf("the caller got %+v, want the server content", m)
	}
}

// TestLiveHandlerErrorEndsRun: an error of the handler ends Run with it,
// and the call still running is cancelled and reported.
func TestLiveHandlerErrorEndsRun(t *testing.T) {
	conn := newMemLiveConn()
	stop := errors.New("the user hung up")
	started, cancelled := make(chan struct{}), make(chan struct{})
	_, done := runMem(t, conn, callerFunc(func(ctx context.Context, _ string, _ any) (*runtime.Result, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}), nil, func(m *genai.LiveServerMessage) error { return stop })
	conn.in <- toolCall(&genai.FunctionCall{ID: "a", Name: "long_job"})
	<-started
	conn.in <- &genai.LiveServerMessage{ServerContent: &genai.LiveServerContent{TurnComplete: true}}
	err := <-done
	done <- err
	var le *LiveError
	if !errors.Is(err, stop) || !errors.As(err, &le) || len(le.Cancelled) != 1 || le.Cancelled[0].ID != "a" {
		t.Errorf("Run = %v", err)
	}
	<-cancelled
	select {
	case r := <-conn.out:
		t.Errorf("a response was sent for the cancelled call: %+v", r)
	default:
	}
}

// TestLiveOptions: options that name no tool of the toolset, or a
// scheduling Gemini does not know, are refused; tools whose taskSupport is
// required are NON_BLOCKING unless Blocking names them.
func TestLiveOptions(t *testing.T) {
	ts, err := NewToolset(callerFunc(nil), loopTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts *LiveOptions
		want string
	}{
		{&LiveOptions{NonBlocking: []string{"nope"}}, `gemini live: NonBlocking names "nope", which is not a tool of the toolset`},
		{&LiveOptions{Blocking: []string{"nope"}}, `gemini live: Blocking names "nope", which is not a tool of the toolset`},
		{&LiveOptions{NonBlocking: []string{"long_job"}, Blocking: []string{"long_job"}}, `gemini live: "long_job" is both in NonBlocking and in Blocking`},
		{&LiveOptions{Scheduling: map[string]genai.FunctionResponseScheduling{"long_job": "LATER"}}, `gemini live: the scheduling of "long_job" is "LATER"; want SILENT, WHEN_IDLE or INTERRUPT`},
	} {
		if _, err := ts.LiveTools(c.opts); err == nil || err.Error() != c.want {
			t.Errorf("LiveTools(%+v) = %v, want %q", c.opts, err, c.want)
		}
	}
	behaviors := func(opts *LiveOptions) string {
		tools, err := ts.LiveTools(opts)
		if err != nil {
			t.Fatal(err)
		}
		var b []string
		for _, d := range tools[0].FunctionDeclarations {
			b = append(b, d.Name+"="+string(d.Behavior))
		}
		return strings.Join(b, " ")
	}
	if got := behaviors(nil); got != "switch_on= long_job=NON_BLOCKING" {
		t.Errorf("default behaviors %s", got)
	}
	if got := behaviors(&LiveOptions{NonBlocking: []string{"switch_on"}, Blocking: []string{"long_job"}}); got != "switch_on=NON_BLOCKING long_job=" {
		t.Errorf("behaviors %s", got)
	}
	if ts.Declarations()[1].Behavior != "" {
		t.Error("LiveTools changed the toolset's own declarations")
	}
}

// TestLiveUpdate: Update sends one context update when the declarations
// change, with them, and none when they do not; calls then run through the
// new toolset.
func TestLiveUpdate(t *testing.T) {
	conn := newMemLiveConn()
	echo := func(text string) runtime.Caller {
		return callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
			return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: text}}}, nil
		})
	}
	live, _ := runMem(t, conn, echo("old"), nil, nil)
	same, err := NewToolset(echo("same"), loopTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sent, err := live.Update(same); sent || err != nil {
		t.Errorf("Update with the same tools = %v, %v; want nothing sent", sent, err)
	}
	grown, err := NewToolset(echo("new"), append(slices.Clone(loopTools), runtime.Tool{Name: "extra", Description: "An extra tool."}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sent, err := live.Update(grown); !sent || err != nil {
		t.Errorf("Update with a new tool = %v, %v; want it sent", sent, err)
	}
	if sent, err := live.Update(grown); sent || err != nil {
		t.Errorf("Update again = %v, %v; want nothing sent", sent, err)
	}
	if len(conn.updates) != 1 || conn.updates[0].Tools == nil || len(conn.updates[0].Tools.Tools) != 1 {
		t.Fatalf("context updates %+v, want one with the tools", conn.updates)
	}
	var names []string
	for _, d := range conn.updates[0].Tools.Tools[0].FunctionDeclarations {
		names = append(names, d.Name+"="+string(d.Behavior))
	}
	if got := strings.Join(names, " "); got != "switch_on= long_job=NON_BLOCKING extra=" {
		t.Errorf("the update declares %s", got)
	}
	conn.in <- toolCall(&genai.FunctionCall{ID: "x", Name: "extra"})
	if r := conn.next(t); r.ID != "x" || r.Response["output"] != "new" {
		t.Errorf("response %+v, want the new toolset's", r)
	}
}

// panickingReceiveConn panics in Receive, as the genai SDK's conversion of
// a Vertex AI message does on a null where it expects an object.
type panickingReceiveConn struct{ *memLiveConn }

func (c *panickingReceiveConn) Receive() (*genai.LiveServerMessage, error) {
	var m map[string]any
	_ = m["serverContent"].(map[string]any)
	return nil, nil
}

// TestLiveReceivePanicEndsRun: a panic while the SDK reads a message ends
// Run with an error that says so, instead of crashing the program.
func TestLiveReceivePanicEndsRun(t *testing.T) {
	conn := &panickingReceiveConn{newMemLiveConn()}
	t.Cleanup(func() { conn.Close() })
	ts, _ := NewToolset(callerFunc(func(context.Context, string, any) (*runtime.Result, error) { return &runtime.Result{}, nil }), loopTools, nil)
	live, err := newLive(conn, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "reading a Live message: the genai SDK panicked") {
		t.Errorf("Run = %v", err)
	}
}

// TestLiveLimitRejectionRace: the response that turns a call away at
// MaxCalls counts the calls in flight under the lock that guards them, so
// a call that ends at the same time is no data race (run with -race).
func TestLiveLimitRejectionRace(t *testing.T) {
	conn := newMemLiveConn()
	runMem(t, conn, callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "on"}}}, nil
	}), &LiveOptions{MaxCalls: 1}, nil)
	for i := range 100 {
		a, b := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
		conn.in <- toolCall(
			&genai.FunctionCall{ID: a, Name: "switch_on", Args: map[string]any{"device": "lamp"}},
			&genai.FunctionCall{ID: b, Name: "switch_on", Args: map[string]any{"device": "lamp"}})
		got := map[string]bool{}
		for range 2 {
			got[conn.next(t).ID] = true
		}
		if !got[a] || !got[b] {
			t.Fatalf("responses for %v, want %s and %s", got, a, b)
		}
	}
}

// TestLiveUpdateAsksOneAtATime checks that the Live asks its confirmation
// questions one at a time across Update: a call of the new toolset waits
// while a call of the old one is being asked about. They used to be asked
// at once, each toolset taking its own turn, so that two questions were on
// the user's terminal together and an answer meant for one could go to the
// other.
func TestLiveUpdateAsksOneAtATime(t *testing.T) {
	conn := newMemLiveConn()
	caller := callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done"}}}, nil
	})
	var asking atomic.Int32
	asked := make(chan string, 2)
	release := make(chan struct{})
	conf := &runtime.Confirmation{Policy: runtime.ConfirmEvery, Ask: func(ctx context.Context, call runtime.ProposedCall) (bool, error) {
		n := asking.Add(1)
		defer asking.Add(-1)
		asked <- fmt.Sprintf("%s (%d asked at once)", call.Tool.Name, n)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return true, nil
	}}
	newSet := func(tools []runtime.Tool) *Toolset {
		ts, err := NewToolset(caller, tools, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ts.SetConfirmation(conf); err != nil {
			t.Fatal(err)
		}
		return ts
	}
	live, err := newLive(conn, newSet(loopTools), nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- live.Run(context.Background(), nil) }()
	t.Cleanup(func() {
		conn.Close()
		<-done
	})

	conn.in <- toolCall(&genai.FunctionCall{ID: "a", Name: "switch_on", Args: map[string]any{"device": "heater"}})
	if q := <-asked; q != "switch_on (1 asked at once)" {
		t.Fatalf("first question: %s", q)
	}
	if _, err := live.Update(newSet(append(slices.Clone(loopTools), runtime.Tool{Name: "extra", Description: "An extra tool."}))); err != nil {
		t.Fatal(err)
	}
	conn.in <- toolCall(&genai.FunctionCall{ID: "b", Name: "extra"})
	// The fixed Live asks nothing more until the first answer; the wait
	// only gives the old code the time to ask the second question at once.
	select {
	case q := <-asked:
		t.Errorf("asked %s while the first question was unanswered", q)
	case <-time.After(500 * time.Millisecond):
	}
	close(release)
	for range 2 {
		if r := conn.next(t); r.Response["output"] != "done" {
			t.Errorf("response %s: %v", r.ID, r.Response)
		}
	}
}

// A Live attaches a result's images to the tool response only when
// LiveOptions.Model names a model that takes them, and describes them
// otherwise, when no model is given included.
func TestLiveAttachesImagesOnlyForModelsThatTakeThem(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G'}
	caller := callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentImage, MIMEType: "image/png", Data: png}}}, nil
	})
	for model, attach := range map[string]bool{"": false, "gemini-2.5-flash-native-audio-preview-09-2025": false, "gemini-3-flash-live": true} {
		t.Run(model, func(t *testing.T) {
			conn := newMemLiveConn()
			runMem(t, conn, caller, &LiveOptions{Model: model}, nil)
			conn.in <- toolCall(&genai.FunctionCall{ID: "c1", Name: "switch_on", Args: map[string]any{"device": "door"}})
			resp := conn.next(t)
			want, parts := "[image: image/png, 4 bytes, not shown]", 0
			if attach {
				want, parts = "[image 1: image/png, attached]", 1
			}
			if resp.Response["output"] != want || len(resp.Parts) != parts {
				t.Errorf("response = %+v with %d parts, want the output %q and %d parts", resp.Response, len(resp.Parts), want, parts)
			}
		})
	}
}

// A toolCall that repeats the ID of a call still running gets no response
// of its own: the running call answers that ID, once. The duplicate used to
// be answered at once with an error under the same ID, which the model
// could take for the running call's answer, before the real one came under
// that ID too.
func TestLiveDuplicateCallIDAnsweredOnce(t *testing.T) {
	conn := newMemLiveConn()
	release := make(chan struct{})
	var calls atomic.Int32
	runMem(t, conn, callerFunc(func(_ context.Context, _ string, args any) (*runtime.Result, error) {
		calls.Add(1)
		if strings.Contains(string(args.(json.RawMessage)), "slow") {
			<-release
		}
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done " + string(args.(json.RawMessage))}}}, nil
	}), nil, nil)
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before runMem's, which waits for the calls
	conn.in <- toolCall(&genai.FunctionCall{ID: "c1", Name: "switch_on", Args: map[string]any{"device": "slow"}})
	conn.in <- toolCall(&genai.FunctionCall{ID: "c1", Name: "switch_on", Args: map[string]any{"device": "again"}})
	conn.in <- toolCall(&genai.FunctionCall{ID: "c2", Name: "switch_on", Args: map[string]any{"device": "fast"}})
	if r := conn.next(t); r.ID != "c2" {
		t.Fatalf("the first response is %s %+v, want c2's", r.ID, r.Response)
	}
	free()
	if r := conn.next(t); r.ID != "c1" || r.Response["output"] != `done {"device":"slow"}` {
		t.Fatalf("c1 was answered with %+v", r.Response)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the server got %d calls, want 2", n)
	}
}

// The response to a NON_BLOCKING call that a limit turned away carries the
// tool's scheduling, as the response of a call that ran does; it used to
// carry none.
func TestLiveRefusedNonBlockingCallIsScheduled(t *testing.T) {
	conn := newMemLiveConn()
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	runMem(t, conn, callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
		<-release
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done"}}}, nil
	}), &LiveOptions{MaxCalls: 1, Scheduling: map[string]genai.FunctionResponseScheduling{"long_job": genai.FunctionResponseSchedulingSilent}}, nil)
	t.Cleanup(free)
	conn.in <- toolCall(&genai.FunctionCall{ID: "a", Name: "long_job"})
	conn.in <- toolCall(&genai.FunctionCall{ID: "b", Name: "long_job"})
	if r := conn.next(t); r.ID != "b" || r.Response["error"] == nil || r.Scheduling != genai.FunctionResponseSchedulingSilent {
		t.Errorf("the refused call got %+v, scheduling %q; want an error, SILENT", r.Response, r.Scheduling)
	}
	free()
	if r := conn.next(t); r.ID != "a" || r.Scheduling != genai.FunctionResponseSchedulingSilent {
		t.Errorf("the call that ran got %+v, scheduling %q", r.Response, r.Scheduling)
	}
}

// A call that repeats the ID of a running call gets no response of its own
// when a limit would turn it away either: the running call answers that ID,
// once. At MaxCalls, and past MaxSteps, the duplicate used to be refused
// with an error under the running call's ID.
func TestLiveDuplicateCallIDAtALimitAnsweredOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		opts *LiveOptions
	}{
		{"MaxCalls", &LiveOptions{MaxCalls: 1}},
		{"MaxSteps", &LiveOptions{MaxSteps: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := newMemLiveConn()
			release := make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			var calls atomic.Int32
			runMem(t, conn, callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
				calls.Add(1)
				<-release
				return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "on"}}}, nil
			}), c.opts, nil)
			t.Cleanup(free) // before runMem's, which waits for the calls
			on := &genai.FunctionCall{ID: "c1", Name: "switch_on", Args: map[string]any{"device": "lamp"}}
			conn.in <- toolCall(on)
			conn.in <- toolCall(on)
			// A call of another ID, refused by the same limit, shows
			// that the duplicate's message was handled.
			conn.in <- toolCall(&genai.FunctionCall{ID: "c2", Name: "switch_on", Args: map[string]any{"device": "fan"}})
			if r := conn.next(t); r.ID != "c2" || r.Response["error"] == nil {
				t.Fatalf("the first response is %s %+v, want c2's refusal", r.ID, r.Response)
			}
			free()
			if r := conn.next(t); r.ID != "c1" || r.Response["output"] != "on" {
				t.Fatalf("c1 was answered with %+v", r.Response)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("the server got %d calls, want 1", n)
			}
		})
	}
}

// A call of a NON_BLOCKING tool that an Update removed, made before the
// model took the new declarations in, is answered as unknown with the
// scheduling the tool had, as every response to a call the model made
// NON_BLOCKING is; it used to carry none.
func TestLiveCallOfRemovedNonBlockingToolIsScheduled(t *testing.T) {
	conn := newMemLiveConn()
	echo := callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "ok"}}}, nil
	})
	opts := &LiveOptions{Scheduling: map[string]genai.FunctionResponseScheduling{"long_job": genai.FunctionResponseSchedulingSilent}}
	live, _ := runMem(t, conn, echo, opts, nil)
	smaller, err := NewToolset(echo, loopTools[:1], nil)
	if err != nil {
		t.Fatal(err)
	}
	if sent, err := live.Update(smaller); !sent || err != nil {
		t.Fatalf("Update without long_job = %v, %v; want the tools sent", sent, err)
	}
	conn.in <- toolCall(&genai.FunctionCall{ID: "x", Name: "long_job"})
	if r := conn.next(t); r.ID != "x" || r.Response["error"] == nil || r.Scheduling != genai.FunctionResponseSchedulingSilent {
		t.Errorf("the call of the removed tool got %+v, scheduling %q; want an error, SILENT", r.Response, r.Scheduling)
	}
}
