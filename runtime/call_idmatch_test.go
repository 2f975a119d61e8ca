package runtime

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestStringIDIsNotNumericID answers a call whose id is the number n with
// messages whose id is the string "n" before the true response: a result,
// an error, a malformed response and a cancellation naming "n". JSON-RPC
// ids match by type and value, so none of them is the call's answer.
func TestStringIDIsNotNumericID(t *testing.T) {
	for _, impostor := range []string{
		`{"jsonrpc":"2.0","id":"%s","result":{"content":[{"type":"text","text":"impostor"}]}}`,
		`{"jsonrpc":"2.0","id":"%s","error":{"code":-32603,"message":"impostor"}}`,
		`{"jsonrpc":"2.0","id":"%s"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"%s"}}`,
	} {
		conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
			if m.Method == "tools/call" {
				c.in <- []byte(fmt.Sprintf(impostor, m.ID))
				c.reply(m, `{"content":[{"type":"text","text":"genuine"}]}`)
			}
			return nil
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s, err := Connect(ctx, conn, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.CallTool(ctx, "t", nil)
		if err != nil || res.Text() != "genuine" {
			t.Errorf("after %s: CallTool = %v, %v; want the response with the numeric id", impostor, res, err)
		}
		s.Close()
		cancel()
	}
}
