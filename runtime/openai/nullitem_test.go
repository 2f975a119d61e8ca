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

// recordingServer answers the n-th request with replies[n] (the last one
// repeats) and keeps the request bodies. Unlike the stand-ins, it checks
// nothing: its replies are malformed on purpose.
type recordingServer struct {
	mu      sync.Mutex
	replies []string
	bodies  [][]byte
}

func (s *recordingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	reply := s.replies[min(len(s.bodies)-1, len(s.replies)-1)]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, reply)
}

func (s *recordingServer) requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

func newRecordingServer(t *testing.T, replies ...string) (*recordingServer, *openai.Client) {
	t.Helper()
	s := &recordingServer{replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	return s, &client
}

// nulls returns the null elements of the array at key in a request body.
func nulls(t *testing.T, body []byte, key string) int {
	t.Helper()
	var r map[string]json.RawMessage
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	json.Unmarshal(r[key], &items)
	n := 0
	for _, item := range items {
		if string(item) == "null" {
			n++
		}
	}
	return n
}

// TestResponsesNullOutputItemDropped: a null output item carries nothing,
// and kept in the history it would be sent as a null input item, which the
// API refuses in every later request.
func TestResponsesNullOutputItemDropped(t *testing.T) {
	s, client := newRecordingServer(t, responseBody("resp_n", "completed", "null", messageItem("Hello.")), responseBody("resp_a", "completed", messageItem("Still here.")))
	conv := &Responses{Client: client, Model: "gpt-test"}
	if answer, err := conv.Send(context.Background(), "hi"); err != nil || answer != "Hello." {
		t.Fatalf("Send = %q, %v", answer, err)
	}
	if _, err := conv.Send(context.Background(), "still there?"); err != nil {
		t.Fatal(err)
	}
	if body := s.requests()[1]; nulls(t, body, "input") != 0 {
		t.Errorf("the second request has null input items: %s", body)
	}
}

// TestChatNullToolCallDropped: a null tool call carries nothing; kept, it
// went back as a null in the assistant message and was answered by a tool
// message for the call id "", both of which the API refuses in every later
// request.
func TestChatNullToolCallDropped(t *testing.T) {
	srv, ts := deviceToolset(t)
	s, client := newRecordingServer(t, toolCallsReply("null", readStateCall), answerReply)
	chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts}
	if answer, err := chat.Send(context.Background(), "is the heater on?"); err != nil || answer != "The heater is on." {
		t.Fatalf("Send = %q, %v", answer, err)
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Name != "read_state" {
		t.Errorf("the server got %v", calls)
	}
	body := s.requests()[1]
	var r struct {
		Messages []struct {
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	msgs := requestMessages(t, body)
	if len(msgs) != 3 || len(r.Messages[1].ToolCalls) != 1 || string(r.Messages[1].ToolCalls[0]) == "null" || msgs[2].ToolCallID != "call_r" {
		t.Errorf("the second request is %s", body)
	}
}
