package openai

import (
	"context"
	"encoding/json"
	"testing"
)

// TestChatUnknownToolCallTypeKept: a tool call of a type this SDK does not
// know (an OpenAI-compatible endpoint's, or a later API's) is answered
// with an error the model can act on, and the assistant message goes back
// with that call as the model sent it, not as null, which the API would
// refuse, so that the conversation goes on.
func TestChatUnknownToolCallTypeKept(t *testing.T) {
	_, ts := deviceToolset(t)
	mystery := `{"id":"call_x","type":"mystery","mystery":{"name":"x"}}`
	fake, client := newFakeCompletions(t, nil, toolCallsReply(mystery, readStateCall), answerReply)
	chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts}
	if _, err := chat.Send(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Messages []struct {
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(fake.requests()[1], &r); err != nil {
		t.Fatal(err)
	}
	calls := r.Messages[1].ToolCalls
	if len(calls) != 2 || compactJSON(t, calls[0]) != compactJSON(t, []byte(mystery)) || compactJSON(t, calls[1]) != compactJSON(t, []byte(readStateCall)) {
		t.Errorf("the assistant message goes back with the tool calls %s", calls)
	}
	msgs := requestMessages(t, fake.requests()[1])
	if len(msgs) != 4 || msgs[2].ToolCallID != "call_x" || msgs[2].Content != `Error: tool calls of type "mystery" are not supported` {
		t.Errorf("second request messages: %+v", msgs)
	}
}
