package anthropic

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
)

// TestChatLeavesTheApplicationsCallsToIt: a tool the application declared
// itself in Params.Tools is not the toolset's to run. Chat runs the
// toolset's call of the same message, stops with a *CallsNotRunError
// naming the other, and leaves the user message that answers the turn for
// the application to complete; once it has, Run goes on. Before, the
// application's call was answered as an unknown tool, and the application
// never saw it.
func TestChatLeavesTheApplicationsCallsToIt(t *testing.T) {
	_, ts := deviceToolset(t)
	lookup := `{"type":"tool_use","id":"toolu_a","name":"lookup","input":{"q":"x"}}`
	fake, client := newFakeMessages(t, nil, toolUseReply(readStateUse, lookup), answerReply)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts, Params: &anthropic.MessageNewParams{Tools: []anthropic.ToolUnionParam{
		{OfTool: &anthropic.ToolParam{Name: "lookup", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"q": map[string]any{"type": "string"}}}}},
	}}}
	_, err := chat.Send(context.Background(), "go")
	var nr *CallsNotRunError
	if !errors.As(err, &nr) || len(nr.Calls) != 1 {
		t.Fatalf("Send = %v; want a *CallsNotRunError for toolu_a", err)
	}
	if c := nr.Calls[0]; c.Type != "tool_use" || c.Name != "lookup" || c.CallID != "toolu_a" || c.Input != `{"q":"x"}` || len(c.Item) == 0 {
		t.Errorf("the call left to the application: %+v", c)
	}
	if n := len(fake.requests()); n != 1 {
		t.Fatalf("the model was asked %d times, want once", n)
	}
	last := &chat.History[len(chat.History)-1]
	if last.Role != anthropic.MessageParamRoleUser || len(last.Content) != 1 || last.Content[0].OfToolResult == nil || last.Content[0].OfToolResult.ToolUseID != "toolu_r" {
		t.Fatalf("the history ends with %+v, want the toolset's result for toolu_r", last)
	}
	last.Content = append(last.Content, anthropic.NewToolResultBlock("toolu_a", "0 hits", false))
	if answer, err := chat.Run(context.Background()); err != nil || answer != "The heater is on." {
		t.Fatalf("Run = %q, %v", answer, err)
	}
	if got := lastResults(t, fake.requests()[1]); !slices.Equal(got, []string{"toolu_r: done read_state", "toolu_a: 0 hits"}) {
		t.Errorf("the second request answers the turn with %q", got)
	}
}

// TestChatOnlyApplicationCalls: a message that calls nothing but the
// application's tools ends Run with an empty user message for the
// application's results.
func TestChatOnlyApplicationCalls(t *testing.T) {
	_, ts := deviceToolset(t)
	lookup := `{"type":"tool_use","id":"toolu_a","name":"lookup","input":{"q":"x"}}`
	_, client := newFakeMessages(t, nil, toolUseReply(lookup))
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts, Params: &anthropic.MessageNewParams{Tools: []anthropic.ToolUnionParam{
		{OfTool: &anthropic.ToolParam{Name: "lookup", InputSchema: anthropic.ToolInputSchemaParam{}}},
	}}}
	_, err := chat.Send(context.Background(), "go")
	var nr *CallsNotRunError
	if !errors.As(err, &nr) || nr.Calls[0].CallID != "toolu_a" {
		t.Fatalf("Send = %v; want a *CallsNotRunError for toolu_a", err)
	}
	if last := chat.History[len(chat.History)-1]; last.Role != anthropic.MessageParamRoleUser || len(last.Content) != 0 {
		t.Errorf("the history ends with %+v, want an empty user message", last)
	}
}
