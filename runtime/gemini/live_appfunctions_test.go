package gemini

import (
	"context"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/livetest"
)

// TestLiveLeavesTheApplicationsFunctions: with LiveOptions.AppFunctions,
// the calls of the application's own functions, declared beside the
// toolset's, reach Run's handle and are answered by the application
// through Live.SendToolResponse, as are their cancellations, while Live
// still runs and answers the toolset's calls of the same message. Before,
// Live answered every call, the application's as an unknown function.
func TestLiveLeavesTheApplicationsFunctions(t *testing.T) {
	srv, ts := agentServer(t)
	opts := &LiveOptions{AppFunctions: []string{"set_timer"}}
	r := startLive(t, livetest.Serve(t), ts, opts)
	r.conn.Send(t, `{"toolCall":{"functionCalls":[
		{"id":"c-on","name":"switch_on","args":{"device":"heater"}},
		{"id":"c-app","name":"set_timer","args":{"minutes":5}}]}}`)
	var msg *genai.LiveServerMessage
	for msg = r.message(t); msg.SetupComplete != nil; msg = r.message(t) {
	}
	if msg.ToolCall == nil || len(msg.ToolCall.FunctionCalls) != 1 || msg.ToolCall.FunctionCalls[0].ID != "c-app" {
		t.Fatalf("the handler got %+v, want the toolCall of c-app alone", msg)
	}
	if w := r.response(t); w.ID != "c-on" {
		t.Fatalf("Live answered %+v, want c-on", w)
	}
	if n := len(srv.Calls()); n != 1 {
		t.Errorf("the server got %d tools/call, want 1", n)
	}
	err := r.live.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: []*genai.FunctionResponse{
		{ID: "c-app", Name: "set_timer", Response: map[string]any{"output": "set for 5 minutes"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if w := r.response(t); w.ID != "c-app" || w.text() != "set for 5 minutes" {
		t.Errorf("the application's response went out as %+v", w)
	}

	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-app2","name":"set_timer","args":{"minutes":9}}]}}`)
	if m := r.message(t); m.ToolCall == nil || m.ToolCall.FunctionCalls[0].ID != "c-app2" {
		t.Fatalf("the handler got %+v, want the toolCall of c-app2", m)
	}
	r.conn.Send(t, `{"toolCallCancellation":{"ids":["c-app2"]}}`)
	if m := r.message(t); m.ToolCallCancellation == nil || !slices.Equal(m.ToolCallCancellation.IDs, []string{"c-app2"}) {
		t.Errorf("the handler got %+v, want the cancellation of c-app2", m)
	}
	r.conn.Close()
	r.wait(t)
	for _, m := range r.conn.Drain() {
		t.Errorf("Live sent %s, which answers a call of the application's", m)
	}
}

// TestLiveAppFunctionsMustNotBeTheToolsets: a function cannot be both the
// application's and the toolset's, and a Live with functions of the
// application's needs a handle to pass their calls to.
func TestLiveAppFunctionsMustNotBeTheToolsets(t *testing.T) {
	_, ts := agentServer(t)
	if _, err := newLive(nil, ts, &LiveOptions{AppFunctions: []string{"switch_on"}}); err == nil || err.Error() != `gemini live: AppFunctions names "switch_on", which the toolset declares` {
		t.Errorf("newLive = %v", err)
	}
	srv := livetest.Serve(t)
	client := srv.Client(t)
	opened := make(chan *genai.Session, 1)
	go func() {
		s, err := client.Live.Connect(context.Background(), "gemini-live-test", &genai.LiveConnectConfig{})
		if err != nil {
			t.Error(err)
		}
		opened <- s
	}()
	srv.Accept(t)
	session := <-opened
	if session == nil {
		t.FailNow()
	}
	live, err := NewLive(session, ts, &LiveOptions{AppFunctions: []string{"set_timer"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Run(context.Background(), nil); err == nil || err.Error() != "gemini live: LiveOptions.AppFunctions needs a handle to pass their calls to" {
		t.Errorf("Run without a handle = %v", err)
	}
}

// TestLiveAppFunctionsGetNoCancellationOfLivesCalls: with
// LiveOptions.AppFunctions, a toolCallCancellation of a call Live ran and
// answered already, or of one it refused, is Live's to drop: the handle
// gets the IDs of the application's calls alone. The IDs of Live's
// answered calls used to reach it, for calls the application never saw.
func TestLiveAppFunctionsGetNoCancellationOfLivesCalls(t *testing.T) {
	_, ts := agentServer(t)
	opts := &LiveOptions{AppFunctions: []string{"set_timer"}, MaxSteps: 1}
	r := startLive(t, livetest.Serve(t), ts, opts)
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-on","name":"switch_on","args":{"device":"heater"}}]}}`)
	if w := r.response(t); w.ID != "c-on" {
		t.Fatalf("Live answered %+v, want c-on", w)
	}
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-over","name":"switch_on","args":{"device":"fan"}}]}}`)
	if w := r.response(t); w.ID != "c-over" || w.Response["error"] == nil {
		t.Fatalf("Live answered %+v, want c-over refused past MaxSteps", w)
	}
	r.conn.Send(t, `{"toolCall":{"functionCalls":[{"id":"c-app","name":"set_timer","args":{"minutes":5}}]}}`)
	var m *genai.LiveServerMessage
	for m = r.message(t); m.SetupComplete != nil; m = r.message(t) {
	}
	if m.ToolCall == nil || m.ToolCall.FunctionCalls[0].ID != "c-app" {
		t.Fatalf("the handler got %+v, want the toolCall of c-app", m)
	}
	r.conn.Send(t, `{"toolCallCancellation":{"ids":["c-on","c-over","c-app"]}}`)
	if m := r.message(t); m.ToolCallCancellation == nil || !slices.Equal(m.ToolCallCancellation.IDs, []string{"c-app"}) {
		t.Errorf("the handler got the cancellation %+v, want c-app's alone", m.ToolCallCancellation)
	}
}
