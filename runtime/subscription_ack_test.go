package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestSubscriptionAckWithoutToolChanges: a 2026-07-28 server whose
// acknowledgement of the tool list subscription leaves out
// toolsListChanged will send no tool list changes; the Session, which asked
// for them to call OnToolsChanged, compares the subset the server honours
// with what it asked and warns. An acknowledgement that honours it does not.
func TestSubscriptionAckWithoutToolChanges(t *testing.T) {
	for _, tc := range []struct {
		name, notifications string
		warn                bool
	}{
		{"left out", `{"promptsListChanged":false}`, true},
		{"refused", `{"toolsListChanged":false}`, true},
		{"honoured", `{"toolsListChanged":true}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			listening := make(chan memMsg, 1)
			changed := make(chan struct{}, 1)
			conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
				if m.Method == "subscriptions/listen" {
					listening <- m
				}
				return nil
			}))
			var logs logBuffer
			s, err := Connect(context.Background(), conn, &Options{Logger: logs.logger(), OnToolsChanged: func() {
				select {
				case changed <- struct{}{}:
				default:
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			m := <-listening
			conn.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s},"notifications":%s}}`, m.ID, tc.notifications))
			// Read after the acknowledgement: once it is handled, so is the
			// acknowledgement.
			conn.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, m.ID))
			select {
			case <-changed:
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatal("OnToolsChanged not called")
			}
			warned := strings.Contains(logs.String(), "level=WARN msg=\"the server acknowledged the tool list subscription without tool list changes")
			if warned != tc.warn {
				t.Errorf("warned %v, want %v; logs:\n%s", warned, tc.warn, logs.String())
			}
		})
	}
}
