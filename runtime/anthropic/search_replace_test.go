package anthropic

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestChatReplacedToolsetKeepsFoundTools: a Toolset built anew after the
// server's tool list changed, and set as Chat.Toolset, declares the tools
// the conversation found with search_tools, which the history told the
// model it could call.
func TestChatReplacedToolsetKeepsFoundTools(t *testing.T) {
	srv := mcptest.Start(t, mcptest.DeviceTools)
	session, tools := srv.Connect(t)
	opts := &Options{Search: &runtime.ToolSearch{Pinned: []string{"read_state"}}}
	ts, err := NewToolset(session, tools, opts)
	if err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeMessages(t, nil, toolUseReply(searchUse), answerReply, answerReply)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
	if _, err := chat.Send(context.Background(), "switch on the lamp"); err != nil {
		t.Fatal(err)
	}
	listed, err := session.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	next, err := NewToolset(session, listed, opts)
	if err != nil {
		t.Fatal(err)
	}
	chat.Toolset = next
	if _, err := chat.Send(context.Background(), "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	if got := requestTools(t, reqs[len(reqs)-1]); !slices.Contains(got, "switch_on") {
		t.Errorf("the request after the toolset was replaced declares %q, without switch_on found before", got)
	}
	if got := next.Found(); !slices.Contains(got, "switch_on") {
		t.Errorf("the new toolset's Found = %q, want switch_on", got)
	}
}
