package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// contentRequired answers as Chat Completions does: an assistant message
// without content is refused unless it has tool calls ("content ...
// required unless tool_calls or function_call is specified"; the API says
// "Invalid value for 'content': expected a string, got null"). Other
// requests get the n-th reply (the last one repeats).
type contentRequired struct {
	t       *testing.T
	replies []string
	mu      sync.Mutex
	n       int
}

func (f *contentRequired) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("request %s: %v", body, err)
	}
	w.Header().Set("Content-Type", "application/json")
	for _, m := range req.Messages {
		content, calls := m["content"], m["tool_calls"]
		if string(m["role"]) == `"assistant"` && (content == nil || string(content) == "null") && calls == nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Invalid value for 'content': expected a string, got null.","type":"invalid_request_error","param":"messages.[1].content","code":null}}`)
			return
		}
	}
	f.mu.Lock()
	reply := f.replies[min(f.n, len(f.replies)-1)]
	f.n++
	f.mu.Unlock()
	io.WriteString(w, reply)
}

// TestChatEmptyAnswerKeepsHistoryValid: a message with no content and no
// tool calls, as a reasoning model that spent max_completion_tokens on
// reasoning sends (finish_reason length), is an error, and the history
// keeps it with empty content, so that a later Send still works.
func TestChatEmptyAnswerKeepsHistoryValid(t *testing.T) {
	empty := `{"id":"c","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"length","message":{"role":"assistant","content":""}}]}`
	srv := httptest.NewServer(&contentRequired{t: t, replies: []string{empty, answerReply}})
	t.Cleanup(srv.Close)
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	chat := &Chat{Client: &client, Model: "gpt-test"}
	if _, err := chat.Send(context.Background(), "is the heater on?"); err == nil || err.Error() != "openai chat: the model stopped without an answer (length)" {
		t.Errorf("error = %v", err)
	}
	if answer, err := chat.Send(context.Background(), "well?"); err != nil || answer != "The heater is on." {
		t.Errorf("the later Send = %q, %v", answer, err)
	}
}
