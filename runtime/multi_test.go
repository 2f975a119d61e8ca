package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

func TestMulti(t *testing.T) {
	m, err := ConnectMulti(context.Background(), []Server{
		{Name: "a", Transport: fakeTransport(t, "modern+extra+solo")},
		{Name: "b", Transport: fakeTransport(t, "legacy+extra")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		sessions := []*Session{m.Session("a"), m.Session("b")}
		if err := m.Close(); err != nil {
			t.Error(err)
		}
		for _, s := range sessions {
			closeAndCheckReaped(t, s)
		}
	}()
	var _ Caller = m
	exposed := map[string]string{}
	for _, tool := range m.Tools() {
		exposed[tool.Exposed] = tool.Server
	}
	for name, server := range map[string]string{"a__whoami": "a", "b__whoami": "b", "solo": "a", "a__echo": "a", "b__echo": "b"} {
		if exposed[name] != server {
			t.Errorf("tool %s: server %q, want %q (exposed: %v)", name, exposed[name], server, exposed)
		}
	}
	if _, ok := exposed["whoami"]; ok {
		t.Error("a clashing name is exposed without a prefix")
	}
	for name, want := range map[string]string{
		"a__whoami": "whoami modern+extra+solo",
		"b__whoami": "whoami legacy+extra",
		"solo":      "solo modern+extra+solo",
		"a__solo":   "solo modern+extra+solo",
	} {
		res, err := m.CallTool(context.Background(), name, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if res.Text() != want {
			t.Errorf("%s = %q, want %q", name, res.Text(), want)
		}
	}
	if _, err := m.CallTool(context.Background(), "nope", nil); err == nil || !strings.Contains(err.Error(), "no server has this tool") {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestMultiConnectFailure(t *testing.T) {
	_, err := ConnectMulti(context.Background(), []Server{
		{Name: "good", Transport: fakeTransport(t, "legacy")},
		{Name: "bad", Transport: fakeTransport(t, "die-init")},
	})
	if err == nil || !strings.Contains(err.Error(), "connecting to server bad") {
		t.Fatalf("ConnectMulti = %v, want an error naming the failed server", err)
	}
	_, err = ConnectMulti(context.Background(), []Server{
		{Name: "x", Transport: fakeTransport(t, "legacy")},
		{Name: "x", Transport: fakeTransport(t, "legacy")},
	})
	if err == nil || !strings.Contains(err.Error(), `two servers are named "x"`) {
		t.Fatalf("ConnectMulti = %v, want a duplicate name error", err)
	}
}

func TestMultiRefreshesAfterAChange(t *testing.T) {
	userSaw := make(chan struct{}, 1)
	m, err := ConnectMulti(context.Background(), []Server{
		{Name: "a", Transport: fakeTransport(t, "legacy+solo"), Options: &Options{OnToolsChanged: func() { userSaw <- struct{}{} }}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	reportChange(t, m, userSaw)
	if !m.stale.Load() {
		t.Fatal("the Multi did not note the change")
	}
	if _, err := m.CallTool(context.Background(), "solo", nil); err != nil {
		t.Fatal(err)
	}
	if m.stale.Load() {
		t.Error("CallTool did not list the tools again")
	}
}

// reportChange has server a of m report that its tools changed, and waits
// until changed, which its OnToolsChanged signals, says it was told.
func reportChange(t *testing.T, m *Multi, changed <-chan struct{}) {
	t.Helper()
	if _, err := m.Session("a").CallTool(context.Background(), "changed", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("server a's OnToolsChanged was not called")
	}
}
