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
					go func() { c.in <- listenAck(m.ID, tc.notifications) }()
				}
				return nil
			}))
			var logs logBuffer
			s, err := Connect(context.Background(), conn, &Options{Logger: logs.logger(), OnToolsChanged: signalTo(changed)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			m := <-listening
			// Connect returned once the acknowledgement was handled.
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

// TestConnectWaitsForSubscriptionAck checks that Connect, with
// OnToolsChanged in the 2026-07-28 era, returns once the server has
// acknowledged the subscriptions/listen request: a server such as go-sdk's
// sends a tool list change only to the subscriptions it has taken, so a
// change made right after Connect returned was lost, and OnToolsChanged
// never ran (a flaky Live test on a loaded machine).
func TestConnectWaitsForSubscriptionAck(t *testing.T) {
	listening := make(chan memMsg, 1)
	release := make(chan struct{})
	changed := make(chan struct{}, 1)
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "subscriptions/listen" {
			listening <- m
			go func() {
				<-release
				c.in <- listenAck(m.ID, `{"toolsListChanged":true}`)
			}()
		}
		return nil
	}))
	type result struct {
		s   *Session
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Connect(context.Background(), conn, &Options{OnToolsChanged: signalTo(changed)})
		done <- result{s, err}
	}()
	m := <-listening
	select {
	case r := <-done:
		if r.s != nil {
			r.s.Close()
		}
		t.Fatalf("Connect returned (%v) before the server acknowledged the tool list subscription", r.err)
	default:
	}
	close(release)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.s.Close()
	conn.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, m.ID))
	select {
	case <-changed:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("OnToolsChanged not called")
	}
}

// TestEarlySubscriptionAck checks that an acknowledgement the server sends
// before the subscriptions/listen request, right after its server/discover
// result, is no data race with Connect, which set up the wait for the
// acknowledgement after the reader had started (go test -race failed).
func TestEarlySubscriptionAck(t *testing.T) {
	changed := make(chan struct{}, 1)
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.reply(m, modernDiscover)
			c.in <- listenAck([]byte("0"), `{"toolsListChanged":true}`)
		case "subscriptions/listen":
			c.in <- listenAck(m.ID, `{"toolsListChanged":true}`)
			c.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, m.ID))
		}
		return nil
	})
	s, err := Connect(testenv.Context(t), conn, &Options{OnToolsChanged: signalTo(changed)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	select {
	case <-changed:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("OnToolsChanged not called")
	}
}
