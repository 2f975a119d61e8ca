package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestMultiRestartsAServer crashes a server of a Multi. Without Restart it
// stays gone: its tools' calls fail naming it. With Restart, the call in
// flight fails with the exit, as for a Restarting, and the next call of
// its tool, and the next listing, start it anew; Session then gives the
// new Session, and Close leaves nothing running.
func TestMultiRestartsAServer(t *testing.T) {
	checkLeaks(t)
	checkChildren(t)
	ctx := context.Background()
	for _, restart := range []bool{false, true} {
		m, err := ConnectMulti(ctx, []Server{
			{Name: "a", Transport: fakeTransport(t, "legacy+solo"), Restart: restart},
			{Name: "b", Transport: fakeTransport(t, "legacy+extra")},
		})
		if err != nil {
			t.Fatal(err)
		}
		first := m.Session("a")
		_, err = m.CallTool(ctx, "a__die", nil)
		var se *ServerExitedError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "server a") {
			t.Fatalf("restart %v: calling die = %v, want a *ServerExitedError naming server a", restart, err)
		}
		<-first.Done()
		res, err := m.CallTool(ctx, "solo", nil)
		if !restart {
			if err == nil || !strings.Contains(err.Error(), "server a") {
				t.Errorf("without Restart: calling the crashed server's tool = %v, %v; want an error naming server a", res, err)
			}
			m.Close()
			continue
		}
		if err != nil || res.Text() != "solo legacy+solo" {
			t.Fatalf("with Restart: calling the crashed server's tool = %v, %v", res, err)
		}
		if again := m.Session("a"); again == nil || again == first || again.Err() != nil {
			t.Errorf("with Restart: Session is %p (ended: %v), want a new live Session, not %p", again, again.Err(), first)
		}
		// A listing finds the server gone too, and starts it again.
		second := m.Session("a")
		if _, err := m.CallTool(ctx, "a__die", nil); !errors.As(err, &se) {
			t.Fatalf("with Restart: calling die again = %v", err)
		}
		<-second.Done()
		if err := m.Refresh(ctx); err != nil {
			t.Errorf("with Restart: Refresh after the second crash: %v", err)
		}
		if s := m.Session("a"); s == second || s.Err() != nil {
			t.Error("with Restart: Refresh did not start the server again")
		}
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// TestToolRunHookOfRestarting checks that the ToolRunHook of a Restarting's
// options reaches the toolsets, as a Session's does; ToolRunHookOf returned
// nil for a Restarting, so its tool runs went unobserved.
func TestToolRunHookOfRestarting(t *testing.T) {
	var seen []string
	hook := func(ctx context.Context, tool string) (context.Context, func(ToolRunOutcome)) {
		seen = append(seen, tool)
		return ctx, func(ToolRunOutcome) {}
	}
	r, err := ConnectRestarting(context.Background(), fakeTransport(t, "legacy"), &Options{ToolRunHook: hook})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := ToolRunHookOf(r)
	if h == nil {
		t.Fatal("ToolRunHookOf(Restarting) = nil")
	}
	_, done := h(context.Background(), "echo")
	done(ToolRunOutcome{Called: true})
	if len(seen) != 1 || seen[0] != "echo" {
		t.Errorf("the hook saw %v", seen)
	}
}
