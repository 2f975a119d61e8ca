package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

const switchOnReply = `{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": "s1", "name": "switch_on", "args": {"device": "heater"}}}]}, "finishReason": "STOP"}]}`

// agentServer starts the test server and returns it with a toolset over a
// session connected to it.
func agentServer(t *testing.T) (*mcptest.Server, *Toolset) {
	t.Helper()
	srv := mcptest.Start(t, mcptest.DeviceTools)
	session, tools := srv.Connect(t)
	ts, err := NewToolset(session, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	return srv, ts
}

// lastResponses returns the function responses of the last content of a
// request body.
func lastResponses(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	req := decodeRequest(t, body)
	if len(req.Contents) == 0 {
		t.Fatalf("request without contents: %s", body)
	}
	var out []map[string]any
	for _, p := range req.Contents[len(req.Contents)-1].Parts {
		if p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse.Response)
		}
	}
	return out
}

// TestChatStepLimitRunsNoMoreCalls: a model that always calls a tool gets
// exactly MaxSteps requests, the server sees the calls of the first
// MaxSteps-1 turns only, and the unanswered calls are recorded so that the
// conversation can go on.
func TestChatStepLimitRunsNoMoreCalls(t *testing.T) {
	for _, steps := range []int{1, 2, 3} {
		srv, ts := agentServer(t)
		fake, client := newFakeGemini(t, switchOnReply)
		chat := &Chat{Client: client, Model: "m", Toolset: ts, MaxSteps: steps}
		_, err := chat.Send(context.Background(), "warm the room")
		if !errors.Is(err, ErrMaxSteps) {
			t.Fatalf("MaxSteps %d: error = %v, want ErrMaxSteps", steps, err)
		}
		if n := len(fake.requests()); n != steps {
			t.Errorf("MaxSteps %d: %d model requests", steps, n)
		}
		if n := len(srv.Calls()); n != steps-1 {
			t.Errorf("MaxSteps %d: the server got %d tools/call, want %d", steps, n, steps-1)
		}
		last := chat.History[len(chat.History)-1]
		if last.Role != genai.RoleUser || len(last.Parts) != 1 || last.Parts[0].FunctionResponse == nil ||
			last.Parts[0].FunctionResponse.Response["error"] != "the call to switch_on was not run: the conversation reached its limit of "+string(rune('0'+steps))+" model requests first" {
			t.Fatalf("MaxSteps %d: the history ends with %+v", steps, last.Parts[0])
		}
		// The history is valid for a later Send: the model sees the
		// call that was not run answered.
		fake.replies = []string{textReply}
		if _, err := chat.Send(context.Background(), "why?"); err != nil {
			t.Fatal(err)
		}
		reqs := fake.requests()
		req := decodeRequest(t, reqs[len(reqs)-1])
		if n := len(req.Contents); n != 2*steps+2 {
			t.Errorf("MaxSteps %d: the later request has %d contents, want %d", steps, n, 2*steps+2)
		}
		if n := len(srv.Calls()); n != steps-1 {
			t.Errorf("MaxSteps %d: the server got %d tools/call after the later Send", steps, n)
		}
	}
}

// cancelAfter is an http.RoundTripper that reads each response whole and
// then cancels the conversation, as a user pressing Ctrl-C while the
// model's answer arrives would.
type cancelAfter struct{ cancel context.CancelFunc }

func (c cancelAfter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	c.cancel()
	return resp, nil
}

// TestChatCancelledStartsNoCall: calls the model asks for after the
// context was cancelled never reach the server, and are recorded as not
// run.
func TestChatCancelledStartsNoCall(t *testing.T) {
	srv, ts := agentServer(t)
	gsrv := httptest.NewServer(&fakeGemini{replies: []string{switchOnReply}})
	t.Cleanup(gsrv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: "test", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: gsrv.URL},
		HTTPClient:  &http.Client{Transport: cancelAfter{cancel}},
	})
	if err != nil {
		t.Fatal(err)
	}
	chat := &Chat{Client: client, Model: "m", Toolset: ts}
	if _, err := chat.Send(ctx, "warm the room"); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Errorf("the server got %v after the cancellation", calls)
	}
	last := chat.History[len(chat.History)-1]
	if len(last.Parts) != 1 || last.Parts[0].FunctionResponse == nil ||
		!strings.HasSuffix(last.Parts[0].FunctionResponse.Response["error"].(string), "was not run: the conversation was cancelled") {
		t.Errorf("the history ends with %+v", last)
	}
}

const bothToolsReply = `{"candidates": [{"content": {"role": "model", "parts": [
	{"functionCall": {"id": "s1", "name": "switch_on", "args": {"device": "heater"}}},
	{"functionCall": {"id": "r1", "name": "read_state", "args": {"device": "heater"}}}
]}, "finishReason": "STOP"}]}`

// TestChatConfirmDeclined: with the default policy the user is asked about
// the tool without annotations and not about the read-only one; the
// declined call leaves no tools/call on the server, and the model's next
// request carries the decline.
func TestChatConfirmDeclined(t *testing.T) {
	srv, ts := agentServer(t)
	var asked []string
	err := ts.SetConfirmation(&runtime.Confirmation{Ask: func(ctx context.Context, call runtime.ProposedCall) (bool, error) {
		asked = append(asked, call.Tool.Name+" "+string(call.Arguments))
		if !call.Annotations.Destructive() {
			t.Errorf("asked about %s, whose annotations say it is not destructive", call.Tool.Name)
		}
		return false, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeGemini(t, bothToolsReply, textReply)
	chat := &Chat{Client: client, Model: "m", Toolset: ts}
	if _, err := chat.Send(context.Background(), "warm the room"); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != `switch_on {"device":"heater"}` {
		t.Errorf("asked about %q, want only switch_on", asked)
	}
	calls := srv.Calls()
	if len(calls) != 1 || calls[0].Name != "read_state" {
		t.Errorf("the server got %v, want only read_state", calls)
	}
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	responses := lastResponses(t, reqs[1])
	if len(responses) != 2 || responses[0]["error"] != "the user declined the call to switch_on; it was not run" || responses[1]["output"] != "done read_state" {
		t.Errorf("the model got %v", responses)
	}
}

// TestChatConfirmCancelledWhileAsking: a conversation cancelled while the
// user is asked runs neither the call asked about nor the next one.
func TestChatConfirmCancelledWhileAsking(t *testing.T) {
	srv, ts := agentServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := ts.SetConfirmation(&runtime.Confirmation{Policy: runtime.ConfirmEvery, Ask: func(context.Context, runtime.ProposedCall) (bool, error) {
		cancel()
		return true, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, client := newFakeGemini(t, bothToolsReply)
	chat := &Chat{Client: client, Model: "m", Toolset: ts}
	if _, err := chat.Send(ctx, "warm the room"); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Errorf("the server got %v after the cancellation", calls)
	}
	last := chat.History[len(chat.History)-1]
	for _, p := range last.Parts {
		if msg, _ := p.FunctionResponse.Response["error"].(string); !strings.HasSuffix(msg, "was not run: the conversation was cancelled") {
			t.Errorf("response %v", p.FunctionResponse.Response)
		}
	}
}

func TestSetConfirmationErrors(t *testing.T) {
	_, ts := agentServer(t)
	ask := func(context.Context, runtime.ProposedCall) (bool, error) { return true, nil }
	cases := []struct {
		c    *runtime.Confirmation
		want string
	}{
		{&runtime.Confirmation{}, "gemini toolset: confirmation: Ask is nil"},
		{&runtime.Confirmation{Ask: ask, Policy: runtime.ConfirmListed, Tools: []string{"switch_off"}}, `gemini toolset: confirmation: Tools names "switch_off", which is not a tool of the toolset`},
		{&runtime.Confirmation{Ask: ask, ReadOnly: []string{"x"}}, `gemini toolset: confirmation: ReadOnly names "x", which is not a tool of the toolset`},
		{&runtime.Confirmation{Ask: ask, Policy: 7}, "gemini toolset: confirmation: unknown policy 7"},
	}
	for _, c := range cases {
		if err := ts.SetConfirmation(c.c); err == nil || err.Error() != c.want {
			t.Errorf("error = %v, want %s", err, c.want)
		}
	}
}

// TestChatWithoutToolsetAnswersCalls: a chat without a toolset fails on a
// function call, but its history still answers the call, so it can go on.
func TestChatWithoutToolsetAnswersCalls(t *testing.T) {
	_, client := newFakeGemini(t, switchOnReply)
	chat := &Chat{Client: client, Model: "m"}
	if _, err := chat.Send(context.Background(), "go"); err == nil || err.Error() != "gemini chat: the model called switch_on, but the chat has no toolset" {
		t.Errorf("error = %v", err)
	}
	last := chat.History[len(chat.History)-1]
	if len(last.Parts) != 1 || last.Parts[0].FunctionResponse == nil || last.Parts[0].FunctionResponse.Response["error"] != "the call to switch_on was not run: the chat has no toolset" {
		t.Errorf("the history ends with %+v", last)
	}
}

// TestConfirmAnnotationsMatchedExactly checks that the annotations deciding
// whether a call is asked about are read by their exact names, as the
// protocol spells them and as every other reader of the listing reads them:
// "DestructiveHint": false, beside or instead of destructiveHint, used to
// count as destructiveHint false (encoding/json matches member names
// ignoring case, the last one winning), so that a tool every other reader
// sees as destructive ran without the user being asked.
func TestConfirmAnnotationsMatchedExactly(t *testing.T) {
	for _, ann := range []string{
		`{"destructiveHint":true,"DestructiveHint":false}`,
		`{"DestructiveHint":false}`,
		`{"ReadOnlyHint":true}`,
		`{"readOnlyHint":false,"READONLYHINT":true}`,
	} {
		caller := &fakeCaller{answer: func(string, json.RawMessage) (*runtime.Result, error) {
			return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "deleted"}}}, nil
		}}
		tools := []runtime.Tool{{Name: "delete_all", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: json.RawMessage(ann)}}
		ts, err := NewToolset(caller, tools, nil)
		if err != nil {
			t.Fatal(err)
		}
		asked := 0
		if err := ts.SetConfirmation(&runtime.Confirmation{Ask: func(context.Context, runtime.ProposedCall) (bool, error) {
			asked++
			return false, nil
		}}); err != nil {
			t.Fatal(err)
		}
		resp := ts.Handle(context.Background(), &genai.FunctionCall{ID: "c", Name: "delete_all"})
		if asked != 1 || len(caller.recorded()) != 0 {
			t.Errorf("annotations %s: asked %d times, the server got %v; want one question and no call (response %v)", ann, asked, caller.recorded(), resp.Response)
		}
	}
}
