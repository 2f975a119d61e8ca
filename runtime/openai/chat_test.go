package openai

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

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mcpgen/mcpgen/internal/testing/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// fakeCompletions is a Chat Completions stand-in: it answers the n-th
// request with replies[n] (the last one repeats) and keeps every request
// body.
type fakeCompletions struct {
	mu      sync.Mutex
	replies []string
	bodies  [][]byte
}

func (f *fakeCompletions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	reply := f.replies[min(len(f.bodies)-1, len(f.replies)-1)]
	f.mu.Unlock()
	if r.URL.Path != "/chat/completions" {
		http.Error(w, `{"error":{"message":"unexpected path","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, reply)
}

func (f *fakeCompletions) requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

func (f *fakeCompletions) setReplies(replies ...string) {
	f.mu.Lock()
	f.replies = replies
	f.mu.Unlock()
}

func newFakeCompletions(t *testing.T, httpClient *http.Client, replies ...string) (*fakeCompletions, *openai.Client) {
	t.Helper()
	f := &fakeCompletions{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	opts := []option.RequestOption{option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0)}
	if httpClient != nil {
		opts = append(opts, option.WithHTTPClient(httpClient))
	}
	client := openai.NewClient(opts...)
	return f, &client
}

func toolCallsReply(calls ...string) string {
	return `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[` +
		strings.Join(calls, ",") + `]}}]}`
}

const (
	switchOnCall  = `{"id":"call_s","type":"function","function":{"name":"switch_on","arguments":"{\"device\":\"heater\"}"}}`
	readStateCall = `{"id":"call_r","type":"function","function":{"name":"read_state","arguments":"{\"device\":\"heater\"}"}}`
	answerReply   = `{"id":"c2","object":"chat.completion","created":2,"model":"gpt-test","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"The heater is on."}}]}`
)

// wireMessage is one message of a request, as the tests read it.
type wireMessage struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
}

func requestMessages(t *testing.T, body []byte) []wireMessage {
	t.Helper()
	var r struct {
		Messages []wireMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("request %s: %v", body, err)
	}
	return r.Messages
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

// TestChatTwoToolCallsInOneTurn: both tool calls of one message run, their
// tool messages follow the assistant message, and the answer is the last
// message's content.
func TestChatTwoToolCallsInOneTurn(t *testing.T) {
	srv, ts := deviceToolset(t)
	fake, client := newFakeCompletions(t, nil, toolCallsReply(switchOnCall, readStateCall), answerReply)
	chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts, History: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief.")}}
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
	if !strings.Contains(string(reqs[0]), `"model":"gpt-test"`) || strings.Count(string(reqs[0]), `"type":"function"`) != 2 {
		t.Errorf("first request: %s", reqs[0])
	}
	msgs := requestMessages(t, reqs[1])
	if len(msgs) != 5 || msgs[3].ToolCallID != "call_s" || msgs[3].Content != "done switch_on" || msgs[4].ToolCallID != "call_r" || msgs[4].Content != "done read_state" {
		t.Errorf("second request messages: %+v", msgs)
	}
}

// TestChatStepLimitRunsNoMoreCalls: a model that always calls a tool gets
// exactly MaxSteps requests; the server sees the calls of the first
// MaxSteps-1 turns only; the history answers every tool call and can be
// continued.
func TestChatStepLimitRunsNoMoreCalls(t *testing.T) {
	for _, steps := range []int{1, 3} {
		srv, ts := deviceToolset(t)
		fake, client := newFakeCompletions(t, nil, toolCallsReply(switchOnCall))
		chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts, MaxSteps: steps}
		_, err := chat.Send(context.Background(), "warm the room")
		if !errors.Is(err, ErrMaxSteps) || err.Error() != fmt.Sprintf("openai chat: the model kept calling tools past the step limit (%d requests)", steps) {
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
		msgs := requestMessages(t, reqs[len(reqs)-1])
		if n := len(msgs); n != 2*steps+2 {
			t.Fatalf("MaxSteps %d: the later request has %d messages, want %d", steps, n, 2*steps+2)
		}
		skipped := msgs[2*steps]
		if skipped.ToolCallID != "call_s" || skipped.Content != fmt.Sprintf("Error: the call to switch_on was not run: the conversation reached its limit of %d model requests first", steps) {
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
// first of two calls, no call reaches the server, and every tool call the
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
		_, client := newFakeCompletions(t, httpClient, toolCallsReply(switchOnCall, readStateCall))
		chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts}
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
		case 4:
			for _, m := range chat.History[2:] {
				if m.OfTool == nil || !strings.HasSuffix(m.OfTool.Content.OfString.Value, "was not run: the conversation was cancelled") {
					t.Errorf("%s: the history ends with %+v", when, m)
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
	fake, client := newFakeCompletions(t, nil, toolCallsReply(switchOnCall, readStateCall), answerReply)
	chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts}
	if _, err := chat.Send(context.Background(), "warm the room"); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != `switch_on {"device":"heater"}` {
		t.Errorf("asked about %q", asked)
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Name != "read_state" {
		t.Errorf("the server got %v, want only read_state", calls)
	}
	msgs := requestMessages(t, fake.requests()[1])
	if len(msgs) != 4 || msgs[2].Content != "Error: the user declined the call to switch_on; it was not run" || msgs[3].Content != "done read_state" {
		t.Errorf("second request messages: %+v", msgs)
	}
}

func TestChatStopsWithoutAnswer(t *testing.T) {
	_, ts := deviceToolset(t)
	_, client := newFakeCompletions(t, nil, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"length","message":{"role":"assistant","content":null}}]}`)
	chat := &Chat{Client: client, Model: "gpt-test", Toolset: ts}
	if _, err := chat.Send(context.Background(), "go"); err == nil || err.Error() != "openai chat: the model stopped without an answer (length)" {
		t.Errorf("error = %v", err)
	}
}
