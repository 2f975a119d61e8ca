package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

var (
	switchOnItem  = functionCallItem("call_s", "switch_on", `{"device":"heater"}`)
	readStateItem = functionCallItem("call_r", "read_state", `{"device":"heater"}`)
	heaterAnswer  = fixed(responseBody("resp_a", "completed", messageItem("The heater is on.")))
)

func twoCalls() responsesReply {
	return fixed(responseBody("resp_c", "completed", switchOnItem, readStateItem))
}

// TestResponsesAnswerAndContinue: a text answer is returned, and a later
// Send sends the whole conversation again, the model's message unchanged
// (its id, status and phase included).
func TestResponsesAnswerAndContinue(t *testing.T) {
	_, ts := deviceToolset(t)
	fake, client := newFakeResponses(t, nil, heaterAnswer)
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts, Params: &responses.ResponseNewParams{Instructions: openai.String("Be brief.")}}
	for i, q := range []string{"is the heater on?", "and now?"} {
		answer, err := conv.Send(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if answer != "The heater is on." {
			t.Errorf("answer %d = %q", i, answer)
		}
	}
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if reqs[1].Instructions.Value != "Be brief." || len(reqs[1].Tools) != 2 {
		t.Errorf("the second request has instructions %q and %d tools", reqs[1].Instructions.Value, len(reqs[1].Tools))
	}
	in := inputs(reqs[1])
	if len(in) != 3 || in[0].OfMessage == nil || in[2].OfMessage == nil || in[2].OfMessage.Content.OfString.Value != "and now?" {
		t.Fatalf("second request input: %s", fake.rawRequests()[1])
	}
	var raw struct {
		Input []json.RawMessage `json:"input"`
	}
	json.Unmarshal(fake.rawRequests()[1], &raw)
	if got, want := compactJSON(t, raw.Input[1]), compactJSON(t, []byte(messageItem("The heater is on."))); got != want {
		t.Errorf("the model's message is sent back as\n%s\nwant\n%s", got, want)
	}
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestResponsesCallsRunConcurrently: both function calls of one response
// reach the server at the same time (neither is answered before the other
// arrives), each output follows the calls with its call_id, and the
// functions are declared with strict false, which the Responses API would
// otherwise take as true.
func TestResponsesCallsRunConcurrently(t *testing.T) {
	srv, ts := deviceToolset(t)
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	var concurrent sync.Map
	srv.OnCall = func(c mcptest.Call) {
		arrived.Done()
		select {
		case <-both:
			concurrent.Store(c.Name, true)
		case <-time.After(time.Minute):
		}
	}
	fake, client := newFakeResponses(t, nil, twoCalls(), heaterAnswer)
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
	answer, err := conv.Send(context.Background(), "warm the room")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "The heater is on." {
		t.Errorf("answer = %q", answer)
	}
	for _, name := range []string{"switch_on", "read_state"} {
		if _, ok := concurrent.Load(name); !ok {
			t.Errorf("%s was not running while the other call arrived", name)
		}
	}
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, tool := range reqs[0].Tools {
		if f := tool.OfFunction; f == nil || !f.Strict.Valid() || f.Strict.Value {
			t.Errorf("tool declared as %+v, want a function with strict false", tool)
		}
	}
	in := inputs(reqs[1])
	if len(in) != 5 || in[1].OfFunctionCall == nil || in[2].OfFunctionCall == nil {
		t.Fatalf("second request input: %s", fake.rawRequests()[1])
	}
	for i, want := range [][2]string{{"call_s", "done switch_on"}, {"call_r", "done read_state"}} {
		if id, text := outputOf(in[3+i]); id != want[0] || text != want[1] {
			t.Errorf("output %d = %q %q, want %q", i, id, text, want)
		}
	}
}

// TestResponsesStepLimitRunsNoMoreCalls: a model that always calls a tool
// gets exactly MaxSteps requests; the server sees the calls of the first
// MaxSteps-1 turns only; the history answers every call and can be
// continued.
func TestResponsesStepLimitRunsNoMoreCalls(t *testing.T) {
	for _, steps := range []int{1, 3} {
		srv, ts := deviceToolset(t)
		fake, client := newFakeResponses(t, nil, fixed(responseBody("resp_s", "completed", switchOnItem)))
		conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts, MaxSteps: steps}
		_, err := conv.Send(context.Background(), "warm the room")
		if !errors.Is(err, ErrMaxSteps) || err.Error() != fmt.Sprintf("openai responses: the model kept calling tools past the step limit (%d requests)", steps) {
			t.Fatalf("MaxSteps %d: error = %v", steps, err)
		}
		if n := len(fake.requests()); n != steps {
			t.Errorf("MaxSteps %d: %d requests", steps, n)
		}
		if n := len(srv.Calls()); n != steps-1 {
			t.Errorf("MaxSteps %d: the server got %d tools/call, want %d", steps, n, steps-1)
		}
		fake.setReplies(heaterAnswer)
		if _, err := conv.Send(context.Background(), "why?"); err != nil {
			t.Fatal(err)
		}
		reqs := fake.requests()
		in := inputs(reqs[len(reqs)-1])
		if n := len(in); n != 2*steps+2 {
			t.Fatalf("MaxSteps %d: the later request has %d items, want %d", steps, n, 2*steps+2)
		}
		id, text := outputOf(in[2*steps])
		if id != "call_s" || text != fmt.Sprintf("Error: the call to switch_on was not run: the conversation reached its limit of %d model requests first", steps) {
			t.Errorf("MaxSteps %d: the call not run is answered with %q %q", steps, id, text)
		}
		if n := len(srv.Calls()); n != steps-1 {
			t.Errorf("MaxSteps %d: the server got %d tools/call after the later Send", steps, n)
		}
	}
}

// TestResponsesCancelledStartsNoCall: once the context is cancelled,
// whether while the response arrives or while the user is asked about the
// first of two calls, no call reaches the server, and every function call
// the history holds is answered.
func TestResponsesCancelledStartsNoCall(t *testing.T) {
	for _, when := range []string{"response", "confirmation"} {
		srv, ts := deviceToolset(t)
		ctx, cancel := context.WithCancel(context.Background())
		var httpClient *http.Client
		if when == "response" {
			httpClient = &http.Client{Transport: cancelAfter{cancel}}
		} else if err := ts.SetConfirmation(&runtime.Confirmation{Policy: runtime.ConfirmEvery, Ask: func(context.Context, runtime.ProposedCall) (bool, error) {
			cancel()
			return true, nil
		}}); err != nil {
			t.Fatal(err)
		}
		fake, client := newFakeResponses(t, httpClient, twoCalls())
		conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
		_, err := conv.Send(ctx, "warm the room")
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error = %v, want context.Canceled", when, err)
		}
		if calls := srv.Calls(); len(calls) != 0 {
			t.Errorf("%s: the server got %v after the cancellation", when, calls)
		}
		switch len(conv.History) {
		case 1: // the client gave up on the response
		case 5:
			fake.setReplies(heaterAnswer)
			if _, err := conv.Send(context.Background(), "go on"); err != nil {
				t.Fatal(err)
			}
			reqs := fake.requests()
			in := inputs(reqs[len(reqs)-1])
			for _, item := range in[3:5] {
				if _, text := outputOf(item); !strings.HasSuffix(text, "was not run: the conversation was cancelled") {
					t.Errorf("%s: the history answers a call with %q", when, text)
				}
			}
		default:
			t.Errorf("%s: history of %d items", when, len(conv.History))
		}
	}
}

// TestResponsesConfirmDeclined: the default policy asks about switch_on,
// which has no annotations, and not about read_state; the declined call
// leaves no tools/call on the server and the next request carries the
// decline.
func TestResponsesConfirmDeclined(t *testing.T) {
	srv, ts := deviceToolset(t)
	var asked []string
	if err := ts.SetConfirmation(&runtime.Confirmation{Ask: func(ctx context.Context, call runtime.ProposedCall) (bool, error) {
		asked = append(asked, call.Tool.Name+" "+string(call.Arguments))
		return false, nil
	}}); err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeResponses(t, nil, twoCalls(), heaterAnswer)
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
	if _, err := conv.Send(context.Background(), "warm the room"); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != `switch_on {"device":"heater"}` {
		t.Errorf("asked about %q", asked)
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Name != "read_state" {
		t.Errorf("the server got %v, want only read_state", calls)
	}
	in := inputs(fake.requests()[1])
	if _, text := outputOf(in[3]); text != "Error: the user declined the call to switch_on; it was not run" {
		t.Errorf("the declined call is answered with %q", text)
	}
	if _, text := outputOf(in[4]); text != "done read_state" {
		t.Errorf("read_state is answered with %q", text)
	}
}

// TestResponsesNoAnswer: a response without text is an error that says
// why: incomplete, failed, refused.
func TestResponsesNoAnswer(t *testing.T) {
	cases := []struct{ body, err string }{
		{strings.Replace(responseBody("r", "incomplete"), `"incomplete_details":null`, `"incomplete_details":{"reason":"max_output_tokens"}`, 1),
			"openai responses: the model stopped without an answer (max_output_tokens)"},
		{strings.Replace(responseBody("r", "failed"), `"error":null`, `"error":{"code":"server_error","message":"the model failed"}`, 1),
			"openai responses: the response failed: the model failed (server_error)"},
		{responseBody("r", "completed", `{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"refusal","refusal":"I cannot help."}]}`),
			"openai responses: the model refused: I cannot help."},
	}
	for _, c := range cases {
		_, ts := deviceToolset(t)
		_, client := newFakeResponses(t, nil, fixed(c.body))
		conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
		if _, err := conv.Send(context.Background(), "go"); err == nil || err.Error() != c.err {
			t.Errorf("error = %v, want %s", err, c.err)
		}
	}
}

// TestResponsesReasoningKept: a reasoning item with encrypted content
// returned beside a function call is sent back unchanged, before the call,
// as the API requires for reasoning models.
func TestResponsesReasoningKept(t *testing.T) {
	_, ts := deviceToolset(t)
	reasoning := `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA-opaque"}`
	fake, client := newFakeResponses(t, nil, fixed(responseBody("resp_r", "completed", reasoning, readStateItem)), heaterAnswer)
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
	if _, err := conv.Send(context.Background(), "is the heater on?"); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Input []json.RawMessage `json:"input"`
	}
	json.Unmarshal(fake.rawRequests()[1], &raw)
	if len(raw.Input) != 4 || compactJSON(t, raw.Input[1]) != compactJSON(t, []byte(reasoning)) {
		t.Errorf("second request input: %s", fake.rawRequests()[1])
	}
}

// TestResponsesStrict: in strict mode the functions are declared strict,
// and the null a strict model sends for an optional property it leaves out
// is removed before the call reaches the server.
func TestResponsesStrict(t *testing.T) {
	srv := mcptest.Start(t, mcptest.DeviceTools)
	session, tools := srv.Connect(t)
	ts, err := NewToolset(session, tools, &Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeResponses(t, nil, fixed(responseBody("resp_n", "completed", functionCallItem("call_r", "read_state", `{"device":null}`))), heaterAnswer)
	conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
	if _, err := conv.Send(context.Background(), "what is on?"); err != nil {
		t.Fatal(err)
	}
	for _, tool := range fake.requests()[0].Tools {
		if f := tool.OfFunction; f == nil || !f.Strict.Value {
			t.Errorf("tool declared as %+v, want strict", tool)
		}
	}
	if calls := srv.Calls(); len(calls) != 1 || string(calls[0].Arguments) != `{}` {
		t.Errorf("the server got %+v, want read_state with {}", calls)
	}
}
