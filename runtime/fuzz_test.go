package runtime

import (
	"context"
	"strings"
	"testing"
	"time"
)

// FuzzSessionInput feeds arbitrary messages to a Session between calls: none
// may panic it, and it must still answer the next call.
func FuzzSessionInput(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":99,"error":{"code":"x"}}`,
		`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":"a"}},1,null]`,
		`{"jsonrpc":"2.0","id":"7","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":{"token":"t"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"image","data":"!!"}],"isError":1}}`,
		`{"id":2,"result":{"resultType":"input_required"}}`,
		`]]]`, `{`, ``, `null`, `"str"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var answer string
		conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
			switch m.Method {
			case "server/discover":
				c.reply(m, modernDiscover)
			case "tools/call":
				if strings.Contains(string(m.Params), `"fuzz"`) {
					c.in <- data
					c.reply(m, textResult)
				} else {
					c.reply(m, answer)
				}
			}
			return nil
		})
		s, err := Connect(context.Background(), conn, &Options{CallTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// The fuzzed message arrives just before a call's answer, which it
		// may spoil (it can claim the call's id); it must not hang it.
		s.CallTool(context.Background(), "fuzz", nil)
		answer = textResult
		res, err := s.CallTool(context.Background(), "after", nil)
		if err != nil || res.Text() != "ok" {
			t.Fatalf("the call after %q: %v", data, err)
		}
	})
}
