package anthropic

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestMessagesLoop runs a tool loop through the official client against a
// fake Messages endpoint, and checks what reaches the wire.
func TestMessagesLoop(t *testing.T) {
	replies := []string{
		`{"id":"m1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use","content":[
			{"type":"text","text":"Doing both."},
			{"type":"tool_use","id":"toolu_1","name":"light_turn_on","input":{"entity":"light.kitchen"}},
			{"type":"tool_use","id":"toolu_2","name":"light_turn_on","input":{"entity":7}}],
			"usage":{"input_tokens":1,"output_tokens":1}}`,
		`{"id":"m2","type":"message","role":"assistant","model":"claude-test","stop_reason":"end_turn","content":[{"type":"text","text":"The kitchen light is on."}],"usage":{"input_tokens":1,"output_tokens":1}}`,
	}
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, string(b))
		mu.Unlock()
		if r.URL.Path != "/v1/messages" || n >= len(replies) {
			http.Error(w, "unexpected request "+r.URL.Path, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[n])
	}))
	defer srv.Close()

	caller := &fakeCaller{}
	mcpTools := []runtime.Tool{{Name: "light.turn_on", InputSchema: json.RawMessage(`{"type":"object","properties":{"entity":{"type":"string"},"brightness":{"type":"integer"}},"required":["entity"]}`)}}
	ts, err := NewToolset(caller, mcpTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	ctx := context.Background()
	messages := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Turn on the kitchen light."))}
	var answer string
	for step := 0; step < 4; step++ {
		msg, err := client.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 1024, Messages: messages, Tools: ts.Tools()})
		if err != nil {
			t.Fatal(err)
		}
		messages = append(messages, msg.ToParam())
		uses := ToolUses(msg)
		if len(uses) == 0 {
			answer = msg.Content[0].Text
			break
		}
		messages = append(messages, anthropic.NewUserMessage(ts.HandleAll(ctx, uses)...))
	}
	if answer != "The kitchen light is on." {
		t.Errorf("answer = %q", answer)
	}
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2", len(bodies))
	}
	first := bodies[0]
	if !strings.Contains(first, `"name":"light_turn_on"`) || !strings.Contains(first, `"properties":{"entity":{"type":"string"},"brightness":{"type":"integer"}}`) {
		t.Errorf("first request declares the tool as %s", first)
	}
	var second struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(bodies[1]), &second); err != nil {
		t.Fatal(err)
	}
	if len(second.Messages) != 3 || second.Messages[2].Role != "user" || len(second.Messages[2].Content) != 2 {
		t.Fatalf("second request messages: %s", bodies[1])
	}
	want := []string{
		`{"tool_use_id":"toolu_1","content":[{"text":"done\n{\"entity\":\"light.kitchen\"}","type":"text"}],"type":"tool_result"}`,
		`{"tool_use_id":"toolu_2","is_error":true,"content":[{"text":"invalid arguments for light.turn_on at /entity: got number, want string","type":"text"}],"type":"tool_result"}`,
	}
	for i, w := range want {
		if got := string(second.Messages[2].Content[i]); got != w {
			t.Errorf("tool result %d = %s\nwant %s", i, got, w)
		}
	}
	if len(caller.calls) != 1 {
		t.Errorf("tool calls = %v, want only the valid one", caller.calls)
	}
}
