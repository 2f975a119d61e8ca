package runtime

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestElicitationNeedsTheDeclaredCapability: a Session pinned to a version
// without elicitation (2025-03-26) does not declare it, so a server's
// elicitation/create is a method the client does not serve (-32601), and a
// Session that declared elicitation as 2025-06-18 does, without modes, which
// is form mode alone, refuses a URL-mode request as an unsupported mode
// (-32602). Neither reaches the handler.
func TestElicitationNeedsTheDeclaredCapability(t *testing.T) {
	for _, tc := range []struct {
		version, caps, params, want string
	}{
		{"2025-03-26", `{}`, defaultsForm, `"code":-32601`},
		{"2025-06-18", `{"elicitation":{}}`, `{"mode":"url","message":"sign in","url":"https://example.com/login","elicitationId":"e1"}`, `"code":-32602`},
	} {
		t.Run(tc.version, func(t *testing.T) {
			a := newServerAsks(tc.version)
			var calls atomic.Int32
			s, err := Connect(context.Background(), a.conn, &Options{
				ProtocolVersion: tc.version,
				HandlerTimeout:  time.Minute,
				Elicitation: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
					calls.Add(1)
					return &ElicitResult{Action: ElicitAccept}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if caps := initCapabilities(t, a.conn); caps != tc.caps {
				t.Fatalf("capabilities %s, want %s", caps, tc.caps)
			}
			if raw := string(a.ask(t, `"e"`, "elicitation/create", tc.params)); !strings.Contains(raw, tc.want) {
				t.Errorf("answered %s, want %s", raw, tc.want)
			}
			if n := calls.Load(); n != 0 {
				t.Errorf("the handler ran %d times for a capability the client did not declare", n)
			}
		})
	}
}

// TestServerCancelledRequestNotAnswered: a legacy server that cancels its
// own request with notifications/cancelled gets no answer to it: the
// handler's context ends, and the Session, which the specification tells not
// to respond, stays silent rather than declining.
func TestServerCancelledRequestNotAnswered(t *testing.T) {
	a := newServerAsks("2025-11-25")
	started, ended := make(chan struct{}), make(chan struct{})
	s, err := Connect(context.Background(), a.conn, &Options{
		HandlerTimeout: time.Hour,
		Elicitation: func(ctx context.Context, r *ElicitRequest) (*ElicitResult, error) {
			if r.Message != "who?" {
				return &ElicitResult{Action: ElicitDecline}, nil
			}
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.served.onRemove = func() { close(ended) }
	a.conn.in <- []byte(`{"jsonrpc":"2.0","id":"q-1","method":"elicitation/create","params":` + defaultsForm + `}`)
	select {
	case <-started:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the handler did not start")
	}
	a.conn.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q-1","reason":"no longer needed"}}`)
	select {
	case <-ended:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the handler's work did not end when the server cancelled the request")
	}
	select {
	case m := <-a.responses:
		t.Errorf("the Session answered the cancelled request: %s", m.Raw)
	default:
	}
}
