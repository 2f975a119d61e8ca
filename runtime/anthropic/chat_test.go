package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// fakeMessages is a Messages API stand-in: it answers the n-th request with
// replies[n] (the last one repeats) and keeps every request body. When
// cancel is set, it is called before each answer is written.
type fakeMessages struct {
	mu      sync.Mutex
	replies []string
	bodies  [][]byte
}

func (f *fakeMessages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	n := min(len(f.bodies)-1, len(f.replies)-1)
	reply := f.replies[n]
	f.mu.Unlock()
	if r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"unexpected path"}}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, reply)
}

func (f *fakeMessages) requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

func (f *fakeMessages) setReplies(replies ...string) {
	f.mu.Lock()
	f.replies = replies
	f.mu.Unlock()
}

func newFakeMessages(t *testing.T, httpClient *http.Client, replies ...string) (*fakeMessages, *anthropic.Client) {
	t.Helper()
	f := &fakeMessages{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	opts := []option.RequestOption{option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0)}
	if httpClient != nil {
		opts = append(opts, option.WithHTTPClient(httpClient))
	}
	client := anthropic.NewClient(opts...)
	return f, &client
}

func toolUseReply(uses ...string) string {
	return `{"id":"m1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use","content":[` +
		strings.Join(uses, ",") + `],"usage":{"input_tokens":1,"output_tokens":1}}`
}

const (
	switchOnUse  = `{"type":"tool_use","id":"toolu_s","name":"switch_on","input":{"device":"heater"}}`
	readStateUse = `{"type":"tool_use","id":"toolu_r","name":"read_state","input":{"device":"heater"}}`
	answerReply  = `{"id":"m2","type":"message","role":"assistant","model":"claude-test","stop_reason":"end_turn","content":[{"type":"text","text":"The heater "},{"type":"text","text":"is on."}],"usage":{"input_tokens":1,"output_tokens":1}}`
)

// wireMessages is the part of a Messages request the tests read.
type wireMessages struct {
	Model     string `json:"model"`
	MaxTokens int64  `json:"max_tokens"`
	Messages  []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string `json:"type"`
			ToolUseID string `json:"tool_use_id"`
			IsError   bool   `json:"is_error"`
			Content   []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func decodeMessages(t *testing.T, body []byte) wireMessages {
	t.Helper()
	var w wireMessages
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatalf("request %s: %v", body, err)
	}
	return w
}

// lastResults returns "id: text" for each tool_result of the last message
// of a request, with "error " before the text of an error result.
func lastResults(t *testing.T, body []byte) []string {
	t.Helper()
	w := decodeMessages(t, body)
	var out []string
	for _, c := range w.Messages[len(w.Messages)-1].Content {
		if c.Type != "tool_result" {
			continue
		}
		s := c.ToolUseID + ": "
		if c.IsError {
			s += "error "
		}
		for _, t := range c.Content {
			s += t.Text
		}
		out = append(out, s)
	}
	return out
}

func deviceToolset(t *testing.T) (*mcptest.Server, *Toolset) {
	t.Helper()
	srv := mcptest.Start(t, mcptest.DeviceTools)
	session, tools := srv.Connect(t)
	ts, err := NewToolset(session, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	return srv, ts
}

// TestChatTwoToolUsesInOneTurn: both tool_use blocks of one message run,
// their results go back in one user message, and the answer is the text
// of the last message.
func TestChatTwoToolUsesInOneTurn(t *testing.T) {
	srv, ts := deviceToolset(t)
	fake, client := newFakeMessages(t, nil, toolUseReply(`{"type":"text","text":"Checking."}`, switchOnUse, readStateUse), answerReply)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts, Params: &anthropic.MessageNewParams{System: []anthropic.TextBlockParam{{Text: "Be brief."}}}}
	answer, err := chat.Send(context.Background(), "warm the room")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "The heater is on." {
		t.Errorf("answer = %q", answer)
	}
	if calls := srv.Calls(); len(calls) != 2 {
		t.Errorf("the server got %v, want both calls", calls)
	}
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := decodeMessages(t, reqs[0])
	if first.Model != "claude-test" || first.MaxTokens != DefaultMaxTokens || len(first.Tools) != 2 || !strings.Contains(string(reqs[0]), `"system":[{"text":"Be brief.","type":"text"}]`) {
		t.Errorf("first request: %s", reqs[0])
	}
	got := lastResults(t, reqs[1])
	if len(got) != 2 || got[0] != "toolu_s: done switch_on" || got[1] != "toolu_r: done read_state" {
		t.Errorf("tool results %q", got)
	}
	if n := len(chat.History); n != 4 {
		t.Errorf("history of %d messages, want 4", n)
	}
}

// TestChatStepLimitRunsNoMoreCalls: a model that always calls a tool gets
// exactly MaxSteps requests; the server sees the calls of the first
// MaxSteps-1 turns only; the history answers every tool_use and can be
// continued.
func TestChatStepLimitRunsNoMoreCalls(t *testing.T) {
	for _, steps := range []int{1, 3} {
		srv, ts := deviceToolset(t)
		fake, client := newFakeMessages(t, nil, toolUseReply(switchOnUse))
		chat := &Chat{Client: client, Model: "claude-test", Toolset: ts, MaxSteps: steps}
		_, err := chat.Send(context.Background(), "warm the room")
		if !errors.Is(err, ErrMaxSteps) || err.Error() != fmt.Sprintf("anthropic chat: the model kept calling tools past the step limit (%d requests)", steps) {
			t.Fatalf("MaxSteps %d: error = %v", steps, err)
		}
		if n := len(fake.requests()); n != steps {
			t.Errorf("MaxSteps %d: %d requests", steps, n)
		}
		if n := len(srv.Calls()); n != steps-1 {
			t.Errorf("MaxSteps %d: the server got %d tools/call, want %d", steps, n, steps-1)
		}
		fake.setReplies(answerReply)
		if _, err := chat.Send(context.Background(), "why?"); err != nil {
			t.Fatal(err)
		}
		reqs := fake.requests()
		last := decodeMessages(t, reqs[len(reqs)-1])
		// user, then per step an assistant message and the results, then
		// the new user message.
		if n := len(last.Messages); n != 2*steps+2 {
			t.Errorf("MaxSteps %d: the later request has %d messages, want %d", steps, n, 2*steps+2)
		}
		skipped := last.Messages[2*steps].Content[0]
		if skipped.ToolUseID != "toolu_s" || !skipped.IsError || skipped.Content[0].Text != fmt.Sprintf("the call to switch_on was not run: the conversation reached its limit of %d model requests first", steps) {
			t.Errorf("MaxSteps %d: the call not run is answered with %+v", steps, skipped)
		}
		if n := len(srv.Calls()); n != steps-1 {
			t.Errorf("MaxSteps %d: the server got %d tools/call after the later Send", steps, n)
		}
	}
}

// cancelAfter reads each response whole, then cancels the conversation.
type cancelAfter struct{ cancel context.CancelFunc }

func (c cancelAfter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	c.cancel()
	return resp, nil
}

// TestChatCancelledStartsNoCall: once the context is cancelled, whether
// while the model's message arrives or while the user is asked about the
// first of two calls, no call reaches the server, and every tool_use the
// history holds is answered.
func TestChatCancelledStartsNoCall(t *testing.T) {
	for _, when := range []string{"response", "confirmation"} {
		srv, ts := deviceToolset(t)
		ctx, cancel := context.WithCancel(context.Background())
		var httpClient *http.Client
		if when == "response" {
			httpClient = &http.Client{Transport: cancelAfter{cancel}}
		} else if err := ts.SetConfirmation(&runtime.Confirmation{Policy: runtime.ConfirmEvery, Ask: func(context.Context, runtime.ProposedCall) (bool, error) {
			cancel()
			return true, nil
		}}); err != nil {
			t.Fatal(err)
		}
		_, client := newFakeMessages(t, httpClient, toolUseReply(switchOnUse, readStateUse))
		chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
		_, err := chat.Send(ctx, "warm the room")
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error = %v, want context.Canceled", when, err)
		}
		if calls := srv.Calls(); len(calls) != 0 {
			t.Errorf("%s: the server got %v after the cancellation", when, calls)
		}
		switch len(chat.History) {
		case 1: // the client gave up on the response
		case 3:
			for _, b := range chat.History[2].Content {
				if r := b.OfToolResult; r == nil || !strings.HasSuffix(r.Content[0].OfText.Text, "was not run: the conversation was cancelled") {
					t.Errorf("%s: the history ends with %+v", when, b)
				}
			}
		default:
			t.Errorf("%s: history of %d messages", when, len(chat.History))
		}
	}
}

// TestChatConfirmDeclined: the default policy asks about switch_on, which
// has no annotations, and not about read_state; the declined call leaves no
// tools/call on the server and the next request carries the decline.
func TestChatConfirmDeclined(t *testing.T) {
	srv, ts := deviceToolset(t)
	var asked []string
	if err := ts.SetConfirmation(&runtime.Confirmation{Ask: func(ctx context.Context, call runtime.ProposedCall) (bool, error) {
		asked = append(asked, call.Tool.Name+" "+string(call.Arguments))
		return false, nil
	}}); err != nil {
		t.Fatal(err)
	}
	fake, client := newFakeMessages(t, nil, toolUseReply(switchOnUse, readStateUse), answerReply)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
	if _, err := chat.Send(context.Background(), "warm the room"); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != `switch_on {"device":"heater"}` {
		t.Errorf("asked about %q", asked)
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Name != "read_state" {
		t.Errorf("the server got %v, want only read_state", calls)
	}
	got := lastResults(t, fake.requests()[1])
	if len(got) != 2 || got[0] != "toolu_s: error the user declined the call to switch_on; it was not run" || got[1] != "toolu_r: done read_state" {
		t.Errorf("tool results %q", got)
	}
}

func TestChatStopsWithoutAnswer(t *testing.T) {
	_, ts := deviceToolset(t)
	_, client := newFakeMessages(t, nil, `{"id":"m","type":"message","role":"assistant","model":"c","stop_reason":"max_tokens","content":[{"type":"thinking","thinking":"hmm","signature":"s"}],"usage":{"input_tokens":1,"output_tokens":1}}`)
	chat := &Chat{Client: client, Model: "claude-test", Toolset: ts}
	if _, err := chat.Send(context.Background(), "go"); err == nil || err.Error() != "anthropic chat: the model stopped without an answer (max_tokens)" {
		t.Errorf("error = %v", err)
	}
}
