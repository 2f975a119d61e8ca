package anthropic

import (
	"context"
	"strings"
	"testing"
)

// TestChatToolUseCutOffNotRun: a message that stops at max_tokens, or at
// the model's context window, ends with a tool_use whose input the limit
// cut short. None of its calls is run (the server would get a truncated
// path or content), the error says what happened, and the history answers
// every tool_use, ready for a later Send.
func TestChatToolUseCutOffNotRun(t *testing.T) {
	for _, c := range []struct{ reason, limit string }{
		{"max_tokens", "max_tokens (64)"},
		{"model_context_window_exceeded", "the model's context window"},
	} {
		srv, ts := deviceToolset(t)
		cut := `{"id":"m1","type":"message","role":"assistant","model":"claude-test","stop_reason":"` + c.reason + `","content":[` +
			readStateUse + `,{"type":"tool_use","id":"toolu_c","name":"switch_on","input":{"device":"hea"}}],"usage":{"input_tokens":1,"output_tokens":1}}`
		fake, client := newFakeMessages(t, nil, cut, answerReply)
		chat := &Chat{Client: client, Model: "claude-test", Toolset: ts, MaxTokens: 64}
		_, err := chat.Send(context.Background(), "warm the room")
		if want := "anthropic chat: the model's message was cut off at " + c.limit + " in the call to switch_on"; err == nil || err.Error() != want {
			t.Errorf("%s: error = %v, want %s", c.reason, err, want)
		}
		for _, call := range srv.Calls() {
			t.Errorf("%s: the server got %s %s from a message cut off", c.reason, call.Name, call.Arguments)
		}
		if _, err := chat.Send(context.Background(), "go on"); err != nil {
			t.Fatal(err)
		}
		reqs := fake.requests()
		w := decodeMessages(t, reqs[len(reqs)-1])
		if n := len(w.Messages); n != 4 {
			t.Errorf("%s: the later request has %d messages, want 4", c.reason, n)
			continue
		}
		names := map[string]string{"toolu_r": "read_state", "toolu_c": "switch_on"}
		var got []string
		for _, r := range w.Messages[2].Content {
			if r.Type == "tool_result" && r.IsError && len(r.Content) == 1 && r.Content[0].Text == "the call to "+names[r.ToolUseID]+" was not run: the model's message was cut off at "+c.limit {
				got = append(got, r.ToolUseID)
			}
		}
		if strings.Join(got, ",") != "toolu_r,toolu_c" {
			t.Errorf("%s: the tool_use blocks are answered with %+v", c.reason, w.Messages[2].Content)
		}
	}
}
