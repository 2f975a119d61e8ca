package runtime

import (
	"context"
	"errors"
	"fmt"
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
