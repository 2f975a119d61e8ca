package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestMiddlewareSeesRequestsInOrder runs two Middleware around the requests
// of a 2026-07-28 session: the first is outermost, each sees the method,
// the tool, the id, the params without the Session's _meta, and the
// isError of a tools/call result; _meta members one adds reach the server
// next to the Session's; an error response comes back as the error.
func TestMiddlewareSeesRequestsInOrder(t *testing.T) {
	var mu sync.Mutex
	var trail []string
	var sent []string
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		mu.Lock()
		sent = append(sent, string(m.Params))
		mu.Unlock()
		switch {
		case m.Method == "tools/call" && strings.Contains(string(m.Params), `"broken"`):
			c.reply(m, `{"resultType":"complete","content":[{"type":"text","text":"no"}],"isError":true}`)
		case m.Method == "tools/call":
			c.reply(m, `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
		default:
			c.replyError(m, CodeMethodNotFound, "null")
		}
		return nil
	}))
	mw := func(name string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, req *Request) (*Response, error) {
				mu.Lock()
				trail = append(trail, name+" "+req.Method+" "+req.Name)
				mu.Unlock()
				req.SetMeta("x-"+name, "v")
				res, err := next(ctx, req)
				mu.Lock()
				switch {
				case err != nil:
					trail = append(trail, name+" error")
				case res.IsError:
					trail = append(trail, name+" isError")
				default:
					trail = append(trail, name+" ok")
				}
				mu.Unlock()
				if req.Method == "tools/call" && (req.ID == "" || req.Session == nil || req.FromServer) {
					t.Errorf("request %+v", req)
				}
				if p := string(req.Params()); req.Method == "tools/call" && strings.Contains(p, "_meta") {
					t.Errorf("Params = %s, want no _meta", p)
				}
				return res, err
			}
		}
	}
	s, err := Connect(context.Background(), conn, &Options{Middleware: []Middleware{mw("a"), mw("b")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	trail = nil
	if _, err := s.CallTool(context.Background(), "fine", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	var te *ToolError
	if _, err := s.CallTool(context.Background(), "broken", json.RawMessage(`{}`)); !errors.As(err, &te) {
		t.Fatalf("broken: %v, want a ToolError", err)
	}
	if _, err := s.ReadResource(context.Background(), "file:///x"); err == nil {
		t.Fatal("resources/read did not fail")
	}
	want := []string{
		"a tools/call fine", "b tools/call fine", "b ok", "a ok",
		"a tools/call broken", "b tools/call broken", "b isError", "a isError",
		"a resources/read file:///x", "b resources/read file:///x", "b error", "a error",
	}
	if !slices.Equal(trail, want) {
		t.Errorf("trail:\n%q\nwant\n%q", trail, want)
	}
	for _, p := range sent {
		if !strings.Contains(p, `"x-a":"v","x-b":"v"`) || !strings.Contains(p, `"io.modelcontextprotocol/protocolVersion"`) {
			t.Errorf("params sent without the added _meta or the Session's: %s", p)
		}
	}
}

// TestCallWithoutMiddlewareAllocatesAsBefore guards the path without
// middleware: the interception path must not make a call's request or its
// params function escape to the heap, which would cost every call four
// allocations more than the nine it makes (BenchmarkCallToolInMemory).
func TestCallWithoutMiddlewareAllocatesAsBefore(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	conn := &echoConn{in: make(chan []byte, 16), closed: make(chan struct{})}
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	args := map[string]string{"message": "hello"}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(200, func() {
		if res, err := s.CallTool(ctx, "echo", args); err != nil || res.Text() != "hello" {
			t.Fatal(err)
		}
	})
	if allocs > 9 {
		t.Errorf("a call without middleware allocates %.1f times, want at most 9", allocs)
	}
}
