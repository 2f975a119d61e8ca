package runtime

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
	m.Session("b").Close()      // server b is gone
	reportChange(t, m, changed) // the Multi noted the change before
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

// TestMultiRefreshEndedByCallerRetries checks that a listing cut short by
// the caller's own context is not taken for the server's failure: a change
// the server reported is listed again on the next call, not 5 s later.
func TestMultiRefreshEndedByCallerRetries(t *testing.T) {
	var hold atomic.Bool
	holdListings := func(next Handler) Handler {
		return func(ctx context.Context, req *Request) (*Response, error) {
			if req.Method == "tools/list" && hold.Load() {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next(ctx, req)
		}
	}
	changed := make(chan struct{}, 1)
	m, err := ConnectMulti(context.Background(), []Server{
		{Name: "a", Transport: fakeTransport(t, "legacy+solo"), Options: &Options{OnToolsChanged: signalTo(changed), Middleware: []Middleware{holdListings}}},
		{Name: "b", Transport: fakeTransport(t, "legacy+extra")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	reportChange(t, m, changed)
	hold.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = m.CallTool(ctx, "solo", nil)
	cancel()
	if err == nil {
		t.Fatal("CallTool succeeded although its context ended during the listing")
	}
	if f := m.failedAt.Load(); f != 0 {
		t.Error("a listing ended by the caller's context was noted as the server's failure")
	}
	if !m.stale.Load() {
		t.Error("the change server a reported was dropped with the listing the caller's context ended")
	}
	hold.Store(false)
	if _, err := m.CallTool(context.Background(), "solo", nil); err != nil {
		t.Fatal(err)
	}
	if m.stale.Load() {
		t.Error("the next call did not list the tools again")
	}
}
