package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// callParams is what a modern tools/call carried.
type callParams struct {
	Name           string                     `json:"name"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage            `json:"requestState"`
	Meta           struct {
		Caps json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	} `json:"_meta"`
}

const askAll = `{"resultType":"input_required","inputRequests":{` +
	`"login":{"method":"elicitation/create","params":{"mode":"form","message":"login?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"org":{"type":"string","default":"acme"}},"required":["name"]}}},` +
	`"capital":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"capital of France?"}}],"maxTokens":100}},` +
	`"where":{"method":"roots/list","params":{}}},` +
	`"requestState":"{\"opaque\": [1, 2]}"}`

// TestInputRequiredRunsHandlers is the defect of a 2026-07-28 call failing
// when the server asks for input: the client runs its handlers and retries
// under a new id with every response and the state echoed byte for byte.
func TestInputRequiredRunsHandlers(t *testing.T) {
	var mu sync.Mutex
	var calls []memMsg
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method != "tools/call" {
			return nil
		}
		mu.Lock()
		calls = append(calls, m)
		mu.Unlock()
		var p callParams
		json.Unmarshal(m.Params, &p)
		if p.InputResponses == nil {
			c.reply(m, askAll)
			return nil
		}
		c.reply(m, textResult)
		return nil
	}))
	s, err := Connect(context.Background(), conn, &Options{
		Elicitation: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
			return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "octocat"}}, nil
		},
		Sampling: func(_ context.Context, r *SamplingRequest) (*SamplingResult, error) {
			return &SamplingResult{Content: []Content{{Type: ContentText, Text: "Paris"}}, Model: "m", StopReason: "endTurn"}, nil
		},
		Roots: func(context.Context) ([]Root, error) { return []Root{{URI: "file:///w"}}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "deploy", map[string]any{"env": "prod"})
	if err != nil || res.Text() != "ok" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	if len(calls) != 2 {
		t.Fatalf("%d calls", len(calls))
	}
	if string(calls[0].ID) == string(calls[1].ID) {
		t.Errorf("the retry reused id %s", calls[0].ID)
	}
	var first, retry callParams
	json.Unmarshal(calls[0].Params, &first)
	json.Unmarshal(calls[1].Params, &retry)
	if string(first.Meta.Caps) != `{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}` {
		t.Errorf("declared capabilities %s", first.Meta.Caps)
	}
	if first.RequestState != nil || first.InputResponses != nil {
		t.Errorf("first call carried %s", calls[0].Params)
	}
	if string(retry.RequestState) != `"{\"opaque\": [1, 2]}"` {
		t.Errorf("requestState %s", retry.RequestState)
	}
	if !strings.Contains(calls[1].Raw, `"arguments":{"env":"prod"}`) {
		t.Errorf("retry lost the arguments: %s", calls[1].Raw)
	}
	want := map[string]string{
		"login":   `{"action":"accept","content":{"name":"octocat","org":"acme"}}`,
		"capital": `{"content":{"type":"text","text":"Paris"},"model":"m","role":"assistant","stopReason":"endTurn"}`,
		"where":   `{"roots":[{"uri":"file:///w"}]}`,
	}
	for k, w := range want {
		if got := string(retry.InputResponses[k]); got != w {
			t.Errorf("inputResponses[%s] = %s, want %s", k, got, w)
		}
	}
}

// TestInputRequiredForever: a server that answers input_required to every
// round of tools/call, prompts/get or resources/read is given up on after
// maxInputRounds requests.
func TestInputRequiredForever(t *testing.T) {
	var mu sync.Mutex
	n := map[string]int{}
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "tools/call", "prompts/get", "resources/read":
			mu.Lock()
			n[m.Method]++
			mu.Unlock()
			c.reply(m, `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"again"}}},"requestState":"s"}`)
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, &Options{Elicitation: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
		return &ElicitResult{Action: ElicitDecline}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	_, callErr := s.CallTool(ctx, "loop", nil)
	_, promptErr := s.GetPrompt(ctx, "loop", nil)
	_, readErr := s.ReadResource(ctx, "loop://x")
	for _, c := range []struct {
		method string
		err    error
		want   string
	}{
		{"tools/call", callErr, "calling loop: the server still asked for input after 10 rounds"},
		{"prompts/get", promptErr, `getting prompt "loop": prompts/get "loop": the server still asked for input after 10 rounds`},
		{"resources/read", readErr, `reading "loop://x": resources/read "loop://x": the server still asked for input after 10 rounds`},
	} {
		var re *InputRoundsError
		if !errors.As(c.err, &re) || re.Rounds != maxInputRounds || !strings.HasPrefix(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %s...", c.method, c.err, c.want)
		}
		if n[c.method] != maxInputRounds {
			t.Errorf("%s: %d requests, want %d", c.method, n[c.method], maxInputRounds)
		}
	}
}

// TestInputRequiredHandlerFaults: a failing or hanging sampling handler ends
// the call with an error instead of a retry or a hang, and a missing handler
// is named.
func TestInputRequiredHandlerFaults(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		var p callParams
		json.Unmarshal(m.Params, &p)
		if m.Method != "tools/call" {
			return nil
		}
		if p.InputResponses != nil {
			c.reply(m, textResult)
			return nil
		}
		method := "sampling/createMessage"
		if p.Name == "roots" {
			method = "roots/list"
		}
		c.reply(m, `{"resultType":"input_required","inputRequests":{"k":{"method":"`+method+`","params":{"messages":[{"role":"user","content":{"type":"text","text":"`+p.Name+`"}}],"maxTokens":1}}}}`)
		return nil
	}))
	s, err := Connect(context.Background(), conn, &Options{
		HandlerTimeout: time.Second, // a loaded machine may take 100 ms to run a handler that returns at once
		Sampling: func(_ context.Context, r *SamplingRequest) (*SamplingResult, error) {
			if r.Messages[0].Text() == "fail" {
				return nil, errors.New("quota exceeded")
			}
			<-block
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for tool, want := range map[string]string{
		"fail":  `calling fail: input request "k": sampling handler: quota exceeded`,
		"hang":  `calling hang: input request "k": sampling handler: sampling/createMessage handler: no answer within 1s (Options.HandlerTimeout)`,
		"roots": `calling roots: input request "k": the server asks the client for input with roots/list, and Options.Roots is not set`,
	} {
		start := time.Now()
		_, err := s.CallTool(context.Background(), tool, nil)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", tool, err, want)
		}
		if time.Since(start) > 3*time.Second+loadSlack {
			t.Errorf("%s took %v", tool, time.Since(start))
		}
	}
}

// TestInputRequiredIsolation: the responses and state of one call's retry
// never reach another call made meanwhile, even from inside the handler.
func TestInputRequiredIsolation(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]callParams{}
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method != "tools/call" {
			return nil
		}
		var p callParams
		json.Unmarshal(m.Params, &p)
		mu.Lock()
		seen[p.Name] = append(seen[p.Name], p)
		mu.Unlock()
		if p.Name == "plain" || p.RequestState != nil {
			c.reply(m, textResult)
			return nil
		}
		c.reply(m, `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"`+p.Name+`"}}},"requestState":"`+p.Name+`-state"}`)
		return nil
	}))
	var s *Session
	s, err := Connect(context.Background(), conn, &Options{Elicitation: func(ctx context.Context, r *ElicitRequest) (*ElicitResult, error) {
		if _, err := s.CallTool(ctx, "plain", nil); err != nil {
			return nil, err
		}
		return &ElicitResult{Action: ElicitAccept}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for _, tool := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.CallTool(context.Background(), tool, nil); err != nil {
				t.Errorf("%s: %v", tool, err)
			}
		}()
	}
	wg.Wait()
	for _, p := range seen["plain"] {
		if p.InputResponses != nil || p.RequestState != nil {
			t.Errorf("an unrelated call carried %+v", p)
		}
	}
	for _, tool := range []string{"a", "b", "c"} {
		if got := seen[tool]; len(got) != 2 || string(got[1].RequestState) != `"`+tool+`-state"` {
			t.Errorf("%s: %+v", tool, got)
		}
	}
}

// TestCloseEndsInputHandlers: Close fails the calls in flight with
// ErrClosed, a 2026-07-28 call whose handler answers an input request
// included, whether the request came with an input_required result or with
// a task's tasks/get. The handler's context ends with the Session, as a
// legacy server request's does, instead of the call waiting for the
// handler until Options.HandlerTimeout (10 minutes).
func TestCloseEndsInputHandlers(t *testing.T) {
	for _, tool := range []string{"ask", "slow_compute"} {
		t.Run(tool, func(t *testing.T) {
			checkLeaks(t)
			tasks := &modernTasksMem{status: func(int) string { return TaskInputRequired }}
			conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
				if m.Method == "tools/call" && !strings.Contains(string(m.Params), `"slow_compute"`) {
					c.reply(m, `{"resultType":"input_required","inputRequests":{"confirm":`+confirmRequest+`}}`)
					return nil
				}
				return tasks.serve(c, ctx, m)
			}))
			asked := make(chan struct{})
			handlerDone := make(chan error, 1)
			s, err := Connect(context.Background(), conn, &Options{
				Elicitation: func(ctx context.Context, _ *ElicitRequest) (*ElicitResult, error) {
					close(asked)
					<-ctx.Done() // a person who never answers
					handlerDone <- ctx.Err()
					return nil, ctx.Err()
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			errc := make(chan error, 1)
			go func() {
				_, err := s.CallTool(context.Background(), tool, nil)
				errc <- err
			}()
			<-asked
			s.Close()
			select {
			case err := <-errc:
				if !errors.Is(err, ErrClosed) {
					t.Errorf("CallTool = %v, want ErrClosed", err)
				}
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatal("CallTool still waits for the handler after Close")
			}
			select {
			case <-handlerDone:
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatal("the handler's context did not end with the Session")
			}
		})
	}
}
