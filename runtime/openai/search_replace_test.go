package openai

import (
	"context"
	"strconv"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestReplacedToolsetKeepsFoundTools: a Toolset built anew after the
// server's tool list changed, and set as the conversation's Toolset, declares
// the tools the conversation found with search_tools, which the history
// told the model it could call; in Chat and in Responses.
func TestReplacedToolsetKeepsFoundTools(t *testing.T) {
	const search = `{"query":"switch a device on"}`
	for _, api := range []string{"chat", "responses"} {
		t.Run(api, func(t *testing.T) {
			srv := mcptest.Start(t, mcptest.DeviceTools)
			session, tools := srv.Connect(t)
			opts := &Options{Search: &runtime.ToolSearch{Pinned: []string{"read_state"}}}
			ts, err := NewToolset(session, tools, opts)
			if err != nil {
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
			var last []string
			switch api {
			case "chat":
				fake, client := newFakeCompletions(t, nil,
					toolCallsReply(`{"id":"call_q","type":"function","function":{"name":"search_tools","arguments":`+strconv.Quote(search)+`}}`),
					answerReply, answerReply)
				chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts}
				if _, err := chat.Send(context.Background(), "switch on the lamp"); err != nil {
					t.Fatal(err)
				}
				chat.Toolset = next
				if _, err := chat.Send(context.Background(), "and now?"); err != nil {
					t.Fatal(err)
				}
				reqs := fake.requests()
				last = chatFunctions(t, reqs[len(reqs)-1])
			case "responses":
				fake, client := newFakeResponses(t, nil,
					fixed(responseBody("resp_1", "completed", functionCallItem("call_q", "search_tools", search))),
					fixed(responseBody("resp_2", "completed", messageItem("ok"))),
					fixed(responseBody("resp_3", "completed", messageItem("ok"))))
				conv := &Responses{Client: client, Model: "gpt-test", Toolset: ts}
				if _, err := conv.Send(context.Background(), "switch on the lamp"); err != nil {
					t.Fatal(err)
				}
				conv.Toolset = next
				if _, err := conv.Send(context.Background(), "and now?"); err != nil {
					t.Fatal(err)
				}
				reqs := fake.requests()
				last = declaredFunctions(reqs[len(reqs)-1])
			}
			if !contains(ts.Found(), "switch_on") {
				t.Fatalf("the search found %q, not switch_on", ts.Found())
			}
			if !contains(last, "switch_on") {
				t.Errorf("the request after the toolset was replaced declares %q, without switch_on found before", last)
			}
			if !contains(next.Found(), "switch_on") {
				t.Errorf("the new toolset's Found = %q, want switch_on", next.Found())
			}
		})
	}
}
