package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// serverAsks is a legacy memConn server that records every request and
// response the Session writes; ask sends the Session a request.
type serverAsks struct {
	conn      *memConn
	responses chan memMsg
}

func newServerAsks(version string) *serverAsks {
	a := &serverAsks{responses: make(chan memMsg, 16)}
	a.conn = newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.replyError(m, CodeMethodNotFound, "null")
		case "initialize":
			c.reply(m, `{"protocolVersion":"`+version+`","capabilities":{"tools":{}},"serverInfo":{"name":"asker","version":"1"}}`)
		case "":
			a.responses <- m
		}
		return nil
	})
	return a
}

func (a *serverAsks) ask(t *testing.T, id, method, params string) json.RawMessage {
	t.Helper()
	a.conn.in <- []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	select {
	case m := <-a.responses:
		if string(m.ID) != id {
			t.Fatalf("response id %s, want %s", m.ID, id)
		}
		return json.RawMessage(m.Raw)
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatalf("no response to %s", method)
		return nil
	}
}

// initCapabilities returns the capabilities the Session sent in initialize.
func initCapabilities(t *testing.T, c *memConn) string {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.seen {
		if m.Method == "initialize" {
			var p struct {
				Capabilities json.RawMessage `json:"capabilities"`
			}
			json.Unmarshal(m.Params, &p)
			return string(p.Capabilities)
		}
	}
	t.Fatal("no initialize")
	return ""
}

const defaultsForm = `{"message":"who?","requestedSchema":{"type":"object","properties":{` +
	`"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},` +
	`"status":{"type":"string","enum":["active","inactive"],"default":"active"},"verified":{"type":"boolean","default":true}}}}`

// TestElicitationCreateAnswered is the defect of a legacy server's
// elicitation/create getting -32601: with Options.Elicitation set the client
// declares the capability and answers, with the schema's defaults applied.
func TestElicitationCreateAnswered(t *testing.T) {
	a := newServerAsks("2025-11-25")
	var got *ElicitRequest
	s, err := Connect(context.Background(), a.conn, &Options{Elicitation: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
		got = r
		return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if caps := initCapabilities(t, a.conn); caps != `{"elicitation":{"form":{},"url":{}}}` {
		t.Errorf("capabilities %s", caps)
	}
	raw := a.ask(t, `7`, "elicitation/create", defaultsForm)
	var resp struct {
		Result ElicitResult `json:"result"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "Ada", "age": float64(30), "status": "active", "verified": true}
	if resp.Result.Action != "accept" || fmt.Sprint(resp.Result.Content) != fmt.Sprint(want) {
		t.Errorf("answer %s", raw)
	}
	if got == nil || got.Mode != ElicitForm || got.Message != "who?" || got.Server.Name != "asker" {
		t.Errorf("handler got %+v", got)
	}
}

func TestNoHandlerNoCapability(t *testing.T) {
	a := newServerAsks("2025-11-25")
	s, err := Connect(context.Background(), a.conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if caps := initCapabilities(t, a.conn); caps != `{}` {
		t.Errorf("capabilities %s", caps)
	}
	for _, m := range []string{"elicitation/create", "sampling/createMessage", "roots/list"} {
		if raw := a.ask(t, `"x"`, m, `{}`); !strings.Contains(string(raw), `"code":-32601`) {
			t.Errorf("%s: %s", m, raw)
		}
	}
}

// TestElicitationHandlerFaults: a handler's error declines, an invalid form
// declines, and a handler that ignores its context is cut off by
// HandlerTimeout with cancel; none of them leaves the server waiting.
func TestElicitationHandlerFaults(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	a := newServerAsks("2025-11-25")
	s, err := Connect(context.Background(), a.conn, &Options{
		HandlerTimeout: time.Second, // a loaded machine may take 100 ms to run a handler that returns at once
		Elicitation: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
			switch r.Message {
			case "fail":
				return nil, errors.New("no terminal")
			case "invalid":
				return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"age": "old"}}, nil
			case "odd":
				return &ElicitResult{Action: "maybe"}, nil
			}
			<-block // ignores its context
			return &ElicitResult{Action: ElicitAccept}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, tc := range []struct{ message, want string }{
		{"fail", `"action":"decline"`},
		{"invalid", `"action":"decline"`},
		{"odd", `"action":"decline"`},
		{"hang", `"action":"cancel"`},
	} {
		params := `{"message":"` + tc.message + `","requestedSchema":{"type":"object","properties":{"age":{"type":"integer"}}}}`
		start := time.Now()
		raw := a.ask(t, fmt.Sprint(i), "elicitation/create", params)
		if !strings.Contains(string(raw), tc.want) || strings.Contains(string(raw), "content") {
			t.Errorf("%s: %s, want %s", tc.message, raw, tc.want)
		}
		if time.Since(start) > 3*time.Second+loadSlack {
			t.Errorf("%s: took %v", tc.message, time.Since(start))
		}
	}
	if raw := a.ask(t, `9`, "elicitation/create", `{"mode":"telepathy","message":"m"}`); !strings.Contains(string(raw), `"code":-32602`) {
		t.Errorf("unknown mode: %s", raw)
	}
}

func TestSamplingAndRootsLegacy(t *testing.T) {
	a := newServerAsks("2025-06-18")
	var mu sync.Mutex
	var got *SamplingRequest
	s, err := Connect(context.Background(), a.conn, &Options{
		HandlerTimeout: time.Second, // a loaded machine may take 100 ms to run a handler that returns at once
		Sampling: func(ctx context.Context, r *SamplingRequest) (*SamplingResult, error) {
			mu.Lock()
			got = r
			mu.Unlock()
			switch r.Messages[0].Text() {
			case "no":
				return nil, ErrDeclined
			case "broken":
				return nil, errors.New("model unavailable")
			case "slow":
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return &SamplingResult{Content: []Content{{Type: ContentText, Text: "Paris"}}, Model: "m1", StopReason: "endTurn"}, nil
		},
		Roots: func(context.Context) ([]Root, error) {
			return []Root{{URI: "file:///work", Name: "work"}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if caps := initCapabilities(t, a.conn); caps != `{"roots":{"listChanged":true},"sampling":{}}` {
		t.Errorf("capabilities %s", caps)
	}
	ask := func(text string) string {
		return string(a.ask(t, `"s"`, "sampling/createMessage", `{"messages":[{"role":"user","content":{"type":"text","text":"`+text+`"}}],"maxTokens":10}`))
	}
	if raw := ask("capital?"); !strings.Contains(raw, `"result":{"content":{"type":"text","text":"Paris"},"model":"m1","role":"assistant","stopReason":"endTurn"}`) {
		t.Errorf("sampling: %s", raw)
	}
	if got.MaxTokens != 10 || got.Messages[0].Role != "user" {
		t.Errorf("handler got %+v", got)
	}
	if raw := ask("no"); !strings.Contains(raw, `"code":-1,`) {
		t.Errorf("declined sampling: %s", raw)
	}
	if raw := ask("broken"); !strings.Contains(raw, `"code":-32603`) || !strings.Contains(raw, "model unavailable") {
		t.Errorf("failed sampling: %s", raw)
	}
	if raw := ask("slow"); !strings.Contains(raw, `"code":-32603`) || !strings.Contains(raw, "HandlerTimeout") {
		t.Errorf("slow sampling: %s", raw)
	}
	if raw := string(a.ask(t, `"r"`, "roots/list", `{}`)); !strings.Contains(raw, `"result":{"roots":[{"uri":"file:///work","name":"work"}]}`) {
		t.Errorf("roots: %s", raw)
	}
	if err := s.NotifyRootsChanged(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m := a.conn.methods(); m[len(m)-1] != "notifications/roots/list_changed" {
		t.Errorf("methods %v", m)
	}
}

// TestServerCancelsElicitation: a legacy server's notifications/cancelled
// ends the handler working on its request.
func TestServerCancelsElicitation(t *testing.T) {
	a := newServerAsks("2025-11-25")
	started := make(chan struct{})
	ended := make(chan error, 1)
	s, err := Connect(context.Background(), a.conn, &Options{Elicitation: func(ctx context.Context, r *ElicitRequest) (*ElicitResult, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a.conn.in <- []byte(`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"message":"m"}}`)
	<-started
	a.conn.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e"}}`)
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler context: %v", err)
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the handler was not cancelled")
	}
}

// TestElicitationURLMode: a URL-mode request reaches the handler with its
// URL and id, an acceptance carries no content, and the server's completion
// notification reaches OnElicitationComplete.
func TestElicitationURLMode(t *testing.T) {
	a := newServerAsks("2025-11-25")
	completed := make(chan string, 1)
	var got *ElicitRequest
	s, err := Connect(context.Background(), a.conn, &Options{
		Elicitation: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
			got = r
			return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"ignored": 1}}, nil
		},
		OnElicitationComplete: func(id string) { completed <- id },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := a.ask(t, `1`, "elicitation/create", `{"mode":"url","message":"Sign in","url":"https://auth.example.com/x","elicitationId":"el-1"}`)
	if !strings.Contains(string(raw), `"result":{"action":"accept"}`) {
		t.Errorf("answer %s", raw)
	}
	if got.Mode != ElicitURL || got.URL != "https://auth.example.com/x" || got.ElicitationID != "el-1" {
		t.Errorf("handler got %+v", got)
	}
	a.conn.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-1"}}`)
	select {
	case id := <-completed:
		if id != "el-1" {
			t.Errorf("completed %q", id)
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("OnElicitationComplete was not called")
	}
}

// TestURLElicitationRequired: a 2025-11-25 call refused with -32042 shows
// its URL elicitations through the handler and, once they are accepted, is
// sent again; a declined one leaves the server's error, and a server that
// keeps refusing is given up on after maxInputRounds requests.
func TestURLElicitationRequired(t *testing.T) {
	var calls int
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.replyError(m, CodeMethodNotFound, "null")
		case "initialize":
			c.reply(m, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`)
		case "tools/call":
			calls++
			var p callParams
			json.Unmarshal(m.Params, &p)
			if p.Name == "once" && calls > 1 {
				c.reply(m, textResult)
				return nil
			}
			c.in <- []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32042,"message":"authorize first","data":{"elicitations":[{"mode":"url","elicitationId":"e1","url":"https://x.example/auth","message":"Authorize"}]}}}`)
		}
		return nil
	})
	var urls []string
	accept := true
	s, err := Connect(context.Background(), conn, &Options{Elicitation: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
		urls = append(urls, r.URL)
		if !accept {
			return &ElicitResult{Action: ElicitDecline}, nil
		}
		return &ElicitResult{Action: ElicitAccept}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "once", nil)
	if err != nil || res.Text() != "ok" || calls != 2 || len(urls) != 1 || urls[0] != "https://x.example/auth" {
		t.Fatalf("once: %v, %v; %d calls, urls %v", res, err, calls, urls)
	}
	calls = 0
	_, err = s.CallTool(context.Background(), "always", nil)
	var re *InputRoundsError
	if !errors.As(err, &re) || calls != maxInputRounds {
		t.Errorf("always: %v after %d calls", err, calls)
	}
	accept, calls = false, 0
	_, err = s.CallTool(context.Background(), "always", nil)
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != CodeURLElicitationRequired || calls != 1 {
		t.Errorf("declined: %v after %d calls", err, calls)
	}
}
