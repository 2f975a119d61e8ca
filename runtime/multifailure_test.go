package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestMultiServerDownKeepsOthersCallable checks that a server that has gone
// away does not take the other servers' tools with it: after another
// server reported a change, its tools are listed again and called, and a
// call of the gone server's tool fails naming that server.
func TestMultiServerDownKeepsOthersCallable(t *testing.T) {
	changed := make(chan struct{}, 1)
	m, err := ConnectMulti(context.Background(), []Server{
		{Name: "a", Transport: fakeTransport(t, "legacy+solo"), Options: &Options{OnToolsChanged: signalTo(changed)}},
		{Name: "b", Transport: fakeTransport(t, "legacy+extra")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Session("b").Close() // server b is gone
	if _, err := m.Session("a").CallTool(context.Background(), "changed", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed: // the Multi noted the change before
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("server a's change was not reported")
	}
	res, err := m.CallTool(context.Background(), "solo", nil)
	if err != nil {
		t.Fatalf("calling server a's tool while server b is gone: %v", err)
	}
	if got := res.Text(); got != "solo legacy+solo" {
		t.Errorf("solo = %q", got)
	}
	// The failed listing is not tried again on every call: a server that
	// hangs would hold each for its timeout.
	failed := m.failedAt.Load()
	if failed == 0 {
		t.Fatal("the listing that failed for server b was not noted")
	}
	if _, err := m.CallTool(context.Background(), "solo", nil); err != nil {
		t.Fatal(err)
	}
	if m.failedAt.Load() != failed {
		t.Error("the next call listed the tools again at once")
	}
	if _, err := m.CallTool(context.Background(), "whoami", nil); err == nil || !strings.Contains(err.Error(), "server b") {
		t.Errorf("calling the gone server's tool = %v, want an error naming server b", err)
	}
	var names []string
	for _, tool := range m.Tools() {
		names = append(names, tool.Exposed)
	}
	if !strings.Contains(strings.Join(names, " "), "whoami") {
		t.Errorf("Tools = %v: server b's tools were dropped while its listing failed", names)
	}
}
