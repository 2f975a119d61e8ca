package anthropic

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mcpgen/mcpgen/runtime"
)

// resultCaller answers every call with its result.
type resultCaller struct{ result *runtime.Result }

func (c resultCaller) CallTool(context.Context, string, any) (*runtime.Result, error) {
	return c.result, nil
}

// emptyTextBlocks returns the text blocks, at any depth of a request, whose
// text is empty or only whitespace, which the Messages API refuses with
// "messages: text content blocks must be non-empty".
func emptyTextBlocks(t *testing.T, body []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if text, ok := v["text"].(string); ok && v["type"] == "text" && strings.TrimSpace(text) == "" {
				b, _ := json.Marshal(v)
				out = append(out, string(b))
			}
			for _, m := range v {
				walk(m)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// TestChatEmptyToolResult: a tool that succeeds with no content, or with
// blank text, as a tool that only acts often does, is answered with a
// tool_result the API accepts, so that the conversation goes on.
func TestChatEmptyToolResult(t *testing.T) {
	for name, res := range map[string]*runtime.Result{
		"no content": {},
		"empty text": {Content: []runtime.Content{{Type: runtime.ContentText, Text: ""}}},
		"blank text": {Content: []runtime.Content{{Type: runtime.ContentText, Text: "\n"}}},
	} {
		ts, err := NewToolset(resultCaller{res}, tools, nil)
		if err != nil {
			t.Fatal(err)
		}
		use := `{"type":"tool_use","id":"toolu_1","name":"light_turn_on","input":{"entity":"light.kitchen"}}`
		fake, client := newFakeMessages(t, nil, toolUseReply(use), answerReply)
		chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
		if _, err := chat.Send(context.Background(), "turn on the kitchen light"); err != nil {
			t.Fatal(err)
		}
		reqs := fake.requests()
		if blocks := emptyTextBlocks(t, reqs[len(reqs)-1]); len(blocks) != 0 {
			t.Errorf("%s: the request after the call has empty text blocks %s", name, blocks)
		}
		if got := lastResults(t, reqs[len(reqs)-1]); len(got) != 1 || got[0] != "toolu_1: " {
			t.Errorf("%s: tool results %q", name, got)
		}
	}
}

// TestChatEmptyTextBlocksNotSentBack: Claude may answer with an empty text
// block, beside tool_use blocks or alone, which the API refuses when it is
// sent back. The history keeps the rest of the message, and a message of
// nothing else is not kept, since an empty assistant message is refused
// too.
func TestChatEmptyTextBlocksNotSentBack(t *testing.T) {
	srv, ts := deviceToolset(t)
	empty := `{"type":"text","text":""}`
	emptyAnswer := `{"id":"m3","type":"message","role":"assistant","model":"claude-test","stop_reason":"end_turn","content":[` + empty + `],"usage":{"input_tokens":1,"output_tokens":1}}`
	fake, client := newFakeMessages(t, nil, toolUseReply(empty, switchOnUse), emptyAnswer, answerReply)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
	if answer, err := chat.Send(context.Background(), "warm the room"); err != nil || answer != "" {
		t.Fatalf("Send = %q, %v", answer, err)
	}
	if answer, err := chat.Send(context.Background(), "well?"); err != nil || answer != "The heater is on." {
		t.Fatalf("the later Send = %q, %v", answer, err)
	}
	if calls := srv.Calls(); len(calls) != 1 {
		t.Errorf("the server got %v", calls)
	}
	for i, body := range fake.requests()[1:] {
		if blocks := emptyTextBlocks(t, body); len(blocks) != 0 {
			t.Errorf("request %d sends back the empty text blocks %s", i+2, blocks)
		}
		for j, m := range decodeMessages(t, body).Messages {
			if len(m.Content) == 0 {
				t.Errorf("request %d: message %d (%s) has no content", i+2, j, m.Role)
			}
		}
	}
}

// refusingEmptyText answers as the Messages API does: a request with a
// blank text block anywhere is refused with a 400, any other with
// answerReply.
type refusingEmptyText struct{ t *testing.T }

func (f refusingEmptyText) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	if len(emptyTextBlocks(f.t, body)) > 0 {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"messages: text content blocks must be non-empty"}}`)
		return
	}
	io.WriteString(w, answerReply)
}

// TestChatSendBlankText: a blank message is refused before it enters the
// history, where the API would refuse it in every later request of the
// conversation.
func TestChatSendBlankText(t *testing.T) {
	srv := httptest.NewServer(refusingEmptyText{t})
	t.Cleanup(srv.Close)
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	chat := &Chat{Client: &client, Model: "claude-test"}
	for _, text := range []string{"", " \n"} {
		if _, err := chat.Send(context.Background(), text); err == nil || err.Error() != "anthropic chat: the message is blank" {
			t.Errorf("Send(%q) = %v", text, err)
		}
	}
	if answer, err := chat.Send(context.Background(), "is the heater on?"); err != nil || answer != "The heater is on." {
		t.Errorf("the next Send = %q, %v", answer, err)
	}
}

// TestHandleEmptyImageNotAttached: an image block without data, as a
// broken screenshot tool may send, is not attached: the API refuses an
// empty image ("image cannot be empty") in this request and every later
// one of the conversation. The result says it is not shown.
func TestHandleEmptyImageNotAttached(t *testing.T) {
	res := &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentImage, MIMEType: "image/png"}, {Type: runtime.ContentImage, MIMEType: "image/png", Data: []byte{1, 2}}}}
	ts, err := NewToolset(resultCaller{res}, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := ts.Handle(context.Background(), anthropic.ToolUseBlock{ID: "toolu_1", Name: "light_turn_on", Input: json.RawMessage(`{"entity":"light.kitchen"}`)})
	got, _ := json.Marshal(out.Content)
	if want := `[{"text":"[image: image/png, 0 bytes, not shown]\n[image 1: image/png, attached]","type":"text"},{"source":{"data":"AQI=","media_type":"image/png","type":"base64"},"type":"image"}]`; string(got) != want {
		t.Errorf("content = %s\nwant %s", got, want)
	}
}

// TestChatNullBlockDropped: a null content block carries nothing, and kept
// in the history it would go back as null, which the API refuses in every
// later request.
func TestChatNullBlockDropped(t *testing.T) {
	withNull := `{"id":"m1","type":"message","role":"assistant","model":"claude-test","stop_reason":"end_turn","content":[null,{"type":"text","text":"Hello."}],"usage":{"input_tokens":1,"output_tokens":1}}`
	fake, client := newFakeMessages(t, nil, withNull, answerReply)
	chat := &Chat{Client: client, Model: "claude-test"}
	if answer, err := chat.Send(context.Background(), "hi"); err != nil || answer != "Hello." {
		t.Fatalf("Send = %q, %v", answer, err)
	}
	if _, err := chat.Send(context.Background(), "still there?"); err != nil {
		t.Fatal(err)
	}
	body := fake.requests()[1]
	var r struct {
		Messages []struct {
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Messages {
		for _, b := range m.Content {
			if string(b) == "null" {
				t.Fatalf("the second request sends back a null block: %s", body)
			}
		}
	}
}
