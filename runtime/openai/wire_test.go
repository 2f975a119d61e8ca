package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// TestChatCompletionsLoop runs a strict tool loop through the official
// client against a fake Chat Completions endpoint, and checks what reaches
// the wire.
func TestChatCompletionsLoop(t *testing.T) {
	replies := []string{
		`{"id":"c1","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"light_turn_on","arguments":"{\"entity\":\"light.kitchen\",\"brightness\":null,\"note\":null,\"opts\":null}"}},
			{"id":"call_2","type":"function","function":{"name":"light_turn_on","arguments":"{\"entity\":\"x\",\"brightness\":-5,\"note\":null,\"opts\":null}"}}]}}]}`,
		`{"id":"c2","object":"chat.completion","created":2,"model":"gpt-test","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"The kitchen light is on."}}]}`,
	}
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, string(b))
		mu.Unlock()
		if r.URL.Path != "/chat/completions" || n >= len(replies) {
			http.Error(w, "unexpected request "+r.URL.Path, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[n])
	}))
	defer srv.Close()

	caller := &fakeCaller{}
	ts, err := NewToolset(caller, tools, &Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	ctx := context.Background()
	messages := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Turn on the kitchen light.")}
	var answer string
	for step := 0; step < 4; step++ {
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-test", Messages: messages, Tools: ts.Tools()})
		if err != nil {
			t.Fatal(err)
		}
		msg := resp.Choices[0].Message
		messages = append(messages, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			answer = msg.Content
			break
		}
		messages = append(messages, ts.HandleAll(ctx, msg.ToolCalls)...)
	}
	if answer != "The kitchen light is on." {
		t.Errorf("answer = %q", answer)
	}
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2", len(bodies))
	}
	if first := bodies[0]; !strings.Contains(first, `"name":"light_turn_on"`) || !strings.Contains(first, `"strict":true`) ||
		!strings.Contains(first, `"properties":{"entity":{"type":"string"},"brightness":{"type":["integer","null"],"minimum":0}`) {
		t.Errorf("first request declares the tool as %s", first)
	}
	var second struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal([]byte(bodies[1]), &second); err != nil {
		t.Fatal(err)
	}
	if len(second.Messages) != 4 {
		t.Fatalf("second request has %d messages: %s", len(second.Messages), bodies[1])
	}
	want := []string{
		`{"content":"ok\n[audio: audio/wav, 1 bytes, not shown]","tool_call_id":"call_1","role":"tool"}`,
		`{"content":"Error: invalid arguments for light.turn_on at /brightness: minimum: got -5, want 0","tool_call_id":"call_2","role":"tool"}`,
	}
	for i, w := range want {
		if got := string(second.Messages[2+i]); got != w {
			t.Errorf("tool message %d = %s\nwant %s", i, got, w)
		}
	}
	if len(caller.calls) != 1 || caller.calls[0] != `light.turn_on {"entity":"light.kitchen","note":null}` {
		t.Errorf("tool calls = %q", caller.calls)
	}
}
