package gemini

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/genai"
)

// TestChatLeavesTheApplicationsCallsToIt: a function the application
// declared itself in Config.Tools is not the toolset's to run. Chat runs
// the toolset's call of the same turn, stops with a *CallsNotRunError
// naming the other, and leaves the turn of responses for the application
// to complete, since Gemini wants every response to a turn's calls in one
// turn; once it has, Run goes on. Before, the application's call was
// answered as an unknown function, and the application never saw it.
func TestChatLeavesTheApplicationsCallsToIt(t *testing.T) {
	srv, ts := agentServer(t)
	reply := `{"candidates": [{"content": {"role": "model", "parts": [
		{"functionCall": {"id": "s1", "name": "switch_on", "args": {"device": "heater"}}},
		{"functionCall": {"id": "a1", "name": "lookup", "args": {"q": "x"}}}]}, "finishReason": "STOP"}]}`
	fake, client := newFakeGemini(t, reply, textReply)
	chat := &Chat{Client: client, Model: "m", Toolset: ts, Config: &genai.GenerateContentConfig{Tools: []*genai.Tool{
		{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "lookup"}}},
	}}}
	_, err := chat.Send(context.Background(), "warm the room")
	var nr *CallsNotRunError
	if !errors.As(err, &nr) || len(nr.Calls) != 1 {
		t.Fatalf("Send = %v; want a *CallsNotRunError for a1", err)
	}
	if c := nr.Calls[0]; c.Type != "functionCall" || c.Name != "lookup" || c.CallID != "a1" || c.Input != `{"q":"x"}` || len(c.Item) == 0 {
		t.Errorf("the call left to the application: %+v", c)
	}
	if n := len(fake.requests()); n != 1 {
		t.Fatalf("the model was asked %d times, want once", n)
	}
	if n := len(srv.Calls()); n != 1 {
		t.Errorf("the server got %d tools/call, want the toolset's one", n)
	}
	last := chat.History[len(chat.History)-1]
	if last.Role != genai.RoleUser || len(last.Parts) != 1 || last.Parts[0].FunctionResponse == nil || last.Parts[0].FunctionResponse.ID != "s1" {
		t.Fatalf("the history ends with %+v, want the toolset's response for s1", last)
	}
	last.Parts = append(last.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: "a1", Name: "lookup", Response: map[string]any{"output": "0 hits"}}})
	if answer, err := chat.Run(context.Background()); err != nil || answer != "Done: hi, and the light is on." {
		t.Fatalf("Run = %q, %v", answer, err)
	}
	if got := lastResponses(t, fake.requests()[1]); len(got) != 2 || got[1]["output"] != "0 hits" {
		t.Errorf("the second request answers the turn with %v", got)
	}
}
