package gemini

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestChatReplacedToolsetKeepsFoundTools: a Toolset built anew after the
// server's tool list changed, and set as Chat.Toolset as the docs say,
// declares the tools the conversation found, which the history told the
// model it could call, less those the server no longer lists.
func TestChatReplacedToolsetKeepsFoundTools(t *testing.T) {
	srv := mcptest.Start(t, deviceSearchServer)
	session, tools := srv.Connect(t)
	opts := &DeclarationOptions{Search: &runtime.ToolSearch{Pinned: []string{"read_state"}}}
	ts, err := NewToolset(session, tools, opts)
	if err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeGemini(t,
		callReply("s1", "search_tools", `{"query": "switch a device on"}`),
		textReply,
		textReply)
	chat := &Chat{Client: client, Model: "m", Toolset: ts}
	if _, err := chat.Send(context.Background(), "turn on the fan"); err != nil {
		t.Fatal(err)
	}
	if got := ts.Found(); !slices.Contains(got, "switch_on") {
		t.Fatalf("Found = %q, want switch_on", got)
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
	if got := declaredNames(t, reqs[len(reqs)-1]); !slices.Contains(got, "switch_on") {
		t.Errorf("the request after the toolset was replaced declares %q, without switch_on found before", got)
	}
	if got := next.Found(); !slices.Contains(got, "switch_on") {
		t.Errorf("the new toolset's Found = %q, want switch_on", got)
	}
}
