package anthropic

import (
	"context"
	"slices"
	"testing"
)

// TestChatToolUseWithoutIDNotTakenForPause: a tool_use block with an empty
// id is a malformed call, not the marker of a paused turn. It is not run,
// and the next request answers it with an error result the model reads.
// Alone in its message it used to be skipped as a pause, leaving the
// tool_use unanswered; beside another block it ran.
func TestChatToolUseWithoutIDNotTakenForPause(t *testing.T) {
	noID := `{"type":"tool_use","id":"","name":"switch_on","input":{"device":"lamp"}}`
	const refused = ": error the call to switch_on was not run: the tool_use block has no id"
	for _, c := range []struct {
		name string
		uses []string
		want []string
	}{
		{"alone", []string{noID}, []string{refused}},
		{"beside another", []string{readStateUse, noID}, []string{"toolu_r: done read_state", refused}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, ts := deviceToolset(t)
			fake, client := newFakeMessages(t, nil, toolUseReply(c.uses...), answerReply)
			chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
			if _, err := chat.Send(context.Background(), "light the lamp"); err != nil {
				t.Fatal(err)
			}
			for _, call := range srv.Calls() {
				if call.Name == "switch_on" {
					t.Errorf("the server got %s %s from a tool_use without an id", call.Name, call.Arguments)
				}
			}
			reqs := fake.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			if got := lastResults(t, reqs[1]); !slices.Equal(got, c.want) {
				t.Errorf("the tool_use blocks are answered with %q, want %q", got, c.want)
			}
		})
	}
}
