package runtime

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

// TestProgressNotAskedForKeepsNoCallAlive: progress notifications stretch
// the timeout of a call that asked for them (a progressToken), not of one
// that did not. A server that sends notifications/progress naming the id of
// such a call, which it may not, is not waited for past the call's timeout.
func TestProgressNotAskedForKeepsNoCallAlive(t *testing.T) {
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.replyError(m, CodeMethodNotFound, "null")
		case "initialize":
			c.reply(m, legacyInit)
		case "tools/call":
			// 3 s in all, never the timeout of 1 s without news.
			go func() {
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
				for i := 1; i <= 30; i++ {
					select {
					case <-c.closed:
						return
					case <-tick.C:
					}
					c.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d}}`, m.ID, i))
				}
				c.reply(m, `{"content":[{"type":"text","text":"ticked"}]}`)
			}()
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, &Options{CallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if res, err := s.CallTool(context.Background(), "ticks", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CallTool = %v, %v; want a timeout", res, err)
	}
}

// TestProgressBeyondFloat64Ignored: a notifications/progress whose progress
// or total a float64 cannot hold (1e400) is ignored as malformed. It was
// passed on as ±Inf, which encoding/json refuses: Gemini Live's progress
// report of it failed, and Live sent no more progress for the session.
func TestProgressBeyondFloat64Ignored(t *testing.T) {
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.replyError(m, CodeMethodNotFound, "null")
		case "initialize":
			c.reply(m, legacyInit)
		case "tools/call":
			for _, p := range []string{`"progress":1e400`, `"progress":1,"total":1e400`, `"progress":-1e400,"total":2`, `"progress":2,"total":3`} {
				c.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,%s}}`, m.ID, p))
			}
			c.reply(m, `{"content":[{"type":"text","text":"done"}]}`)
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mu sync.Mutex
	var got []Progress
	ctx := WithProgress(context.Background(), func(p Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	if _, err := s.CallTool(ctx, "t", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []Progress{{Progress: 2, Total: 3}}; !reflect.DeepEqual(got, want) {
		t.Errorf("progress passed on: %+v, want %+v", got, want)
	}
}
