package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// TestMiddlewarePanicOnServerRequestIsAnError checks that a Middleware that
// panics on a legacy server's request, which runs on a goroutine of the
// Session's, answers the server with an error, as a handler's panic does,
// instead of ending the program; and that the Session still serves.
func TestMiddlewarePanicOnServerRequestIsAnError(t *testing.T) {
	a := newServerAsks("2025-06-18")
	var panicked bool
	mw := func(next Handler) Handler {
		return func(ctx context.Context, req *Request) (*Response, error) {
			if req.FromServer && !panicked {
				panicked = true
				panic("middleware bug")
			}
			return next(ctx, req)
		}
	}
	s, err := Connect(context.Background(), a.conn, &Options{
		Middleware: []Middleware{mw},
		Roots:      func(context.Context) ([]Root, error) { return []Root{{URI: "file:///work"}}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if raw := string(a.ask(t, `"r1"`, "roots/list", `{}`)); !strings.Contains(raw, `"error"`) || !strings.Contains(raw, "middleware bug") {
		t.Errorf("answer to a request whose middleware panicked: %s", raw)
	}
	if raw := string(a.ask(t, `"r2"`, "roots/list", `{}`)); !strings.Contains(raw, `"file:///work"`) {
		t.Errorf("answer to the next request: %s", raw)
	}
}

// TestMiddlewareWithoutResponseOrError checks that a Middleware returning
// neither a response nor an error fails the request with an error saying
// so, for a request of the Session's and for one of the server's, instead
// of a nil dereference; and that a result that is not JSON, returned for a
// server's request, is answered as an error instead of being written.
func TestMiddlewareWithoutResponseOrError(t *testing.T) {
	a := newServerAsks("2025-06-18")
	mw := func(next Handler) Handler {
		return func(ctx context.Context, req *Request) (*Response, error) {
			switch {
			case req.FromServer && req.ID == `"bad"`:
				return &Response{Result: json.RawMessage(`{"roots":[`)}, nil
			case req.Method == "tools/call" || req.FromServer:
				return nil, nil
			}
			return next(ctx, req)
		}
	}
	s, err := Connect(context.Background(), a.conn, &Options{
		Middleware: []Middleware{mw},
		Roots:      func(context.Context) ([]Root, error) { return nil, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if raw := string(a.ask(t, `"r1"`, "roots/list", `{}`)); !strings.Contains(raw, "no response and no error") {
		t.Errorf("answer to the server's request: %s", raw)
	}
	if raw := string(a.ask(t, `"bad"`, "roots/list", `{}`)); !strings.Contains(raw, "not JSON") {
		t.Errorf("answer to the server's request whose middleware returned broken JSON: %s", raw)
	}
	if _, err := s.CallTool(context.Background(), "x", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "no response and no error") {
		t.Errorf("CallTool = %v, want an error naming the middleware's fault", err)
	}
}

// TestMiddlewareCallingNextTwiceUsesNewIDs checks that a Middleware that
// sends a request more than once, one after the other (a retry) or at once
// (a hedge), sends each under an id of its own: a request id is not used
// twice in a session, and each sending gets its own response.
func TestMiddlewareCallingNextTwiceUsesNewIDs(t *testing.T) {
	var mu sync.Mutex
	ids := map[string]int{}
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "tools/call" {
			mu.Lock()
			ids[string(m.ID)]++
			mu.Unlock()
			c.reply(m, `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
			return nil
		}
		c.replyError(m, CodeMethodNotFound, "null")
		return nil
	}))
	mw := func(next Handler) Handler {
		return func(ctx context.Context, req *Request) (*Response, error) {
			if req.Method != "tools/call" {
				return next(ctx, req)
			}
			if req.Name == "retried" {
				if _, err := next(ctx, req); err != nil {
					return nil, err
				}
				return next(ctx, req)
			}
			type outcome struct {
				res *Response
				err error
			}
			both := make(chan outcome, 2)
			for range 2 {
				go func() {
					res, err := next(ctx, req)
					both <- outcome{res, err}
				}()
			}
			first, second := <-both, <-both
			if second.err != nil {
				return nil, second.err
			}
			return first.res, first.err
		}
	}
	s, err := Connect(context.Background(), conn, &Options{Middleware: []Middleware{mw}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"retried", "hedged"} {
		if _, err := s.CallTool(context.Background(), name, json.RawMessage(`{}`)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 4 {
		t.Errorf("tools/call ids sent %v, want 4 ids used once each", ids)
	}
}
