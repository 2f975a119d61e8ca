package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestURLElicitationRequiredOnlyIn20251125 calls a tool whose server
// answers with URLElicitationRequired (-32042), a code of 2025-11-25 alone:
// a 2025-06-18 Session, which declared form mode only, and a 2026-07-28
// one, where the code is retired, show no URL to the user, and the caller
// gets the server's error as it came, not one the client made up.
func TestURLElicitationRequiredOnlyIn20251125(t *testing.T) {
	const data = `{"elicitations":[{"mode":"url","elicitationId":"e1","url":"https://auth.example.com/connect","message":"Connect your account."}]}`
	answer := func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "tools/call" {
			c.replyError(m, CodeURLElicitationRequired, data)
		}
		return nil
	}
	for _, tc := range []struct {
		era  string
		conn *memConn
	}{
		{"2025-06-18", newMemConn(legacyMem(answer))},
		{"2026-07-28", newMemConn(modernMem(answer))},
	} {
		t.Run(tc.era, func(t *testing.T) {
			shown := 0
			s, err := Connect(context.Background(), tc.conn, &Options{Elicitation: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
				shown++
				return &ElicitResult{Action: ElicitAccept}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = s.CallTool(context.Background(), "t", nil)
			var re *RPCError
			if !errors.As(err, &re) || re.Code != CodeURLElicitationRequired {
				t.Errorf("CallTool = %v, want the server's -32042", err)
			}
			if shown != 0 {
				t.Errorf("the elicitation handler ran %d times", shown)
			}
			if n := strings.Count(strings.Join(tc.conn.methods(), ","), "tools/call"); n != 1 {
				t.Errorf("tools/call sent %d times, want once", n)
			}
		})
	}
}
