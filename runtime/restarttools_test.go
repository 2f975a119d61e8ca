package runtime

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// listsTransport connects to a new in-memory legacy server each time, which
// lists the tools lists gives for its connect (numbered from 1).
type listsTransport struct {
	lists map[int][]string

	mu    sync.Mutex
	conns []*memConn
}

func (l *listsTransport) Connect(ctx context.Context) (Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := l.lists[len(l.conns)+1]
	c := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "tools/list":
			c.reply(m, toolsListing(names...))
		case "tools/call":
			c.reply(m, textResult)
		}
		return nil
	}))
	l.conns = append(l.conns, c)
	return c, nil
}

func (l *listsTransport) last() *memConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conns[len(l.conns)-1]
}

// TestRestartingReportsToolsChangedAfterARestart checks that a restart, whose
// server may list other tools than the session that ended, calls
// OnToolsChanged once, and that the first connect does not.
func TestRestartingReportsToolsChangedAfterARestart(t *testing.T) {
	ctx := testenv.Context(t)
	tr := &listsTransport{lists: map[int][]string{1: {"a"}, 2: {"a", "b"}}}
	var r *Restarting
	var calls atomic.Int32
	listed := make(chan []string, 4)
	opts := &Options{OnToolsChanged: func() {
		calls.Add(1)
		s, err := r.Session(ctx)
		if err != nil {
			t.Errorf("Session in OnToolsChanged: %v", err)
			listed <- nil
			return
		}
		tools, err := s.ListTools(ctx)
		if err != nil {
			t.Errorf("ListTools in OnToolsChanged: %v", err)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		listed <- names
	}}
	r, err := ConnectRestarting(ctx, tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	first, err := r.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr.last().Close() // the server goes away
	<-first.Done()
	if _, err := r.CallTool(ctx, "b", nil); err != nil {
		t.Fatalf("calling the new tool after the restart: %v", err)
	}
	select {
	case names := <-listed:
		if !slices.Equal(names, []string{"a", "b"}) {
			t.Errorf("OnToolsChanged listed %v, want [a b]", names)
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("OnToolsChanged was not called after the restart")
	}
	// Close waits for the Session's goroutines, OnToolsChanged's too.
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("OnToolsChanged was called %d times, want once (after the restart, not after the first connect)", n)
	}
}

// TestRestartingToolsChangedWhileTheServerEndsAgain checks that an
// OnToolsChanged that calls the Restarting after its own Session ended
// restarts the server instead of waiting for itself (the restart closed
// the ended Session, whose Close waited for the callback), and that the
// new Session's call waits for the ended one's.
func TestRestartingToolsChangedWhileTheServerEndsAgain(t *testing.T) {
	ctx := testenv.Context(t)
	tr := &listsTransport{lists: map[int][]string{1: {"a"}, 2: {"a", "b"}, 3: {"a", "b", "c"}}}
	var r *Restarting
	var calls atomic.Int32
	var running atomic.Int32
	entered, gate := make(chan struct{}), make(chan struct{})
	listed := make(chan []string, 4)
	opts := &Options{OnToolsChanged: func() {
		if running.Add(1) > 1 {
			t.Error("OnToolsChanged was called while it ran")
		}
		defer running.Add(-1)
		if calls.Add(1) == 1 {
			close(entered)
			<-gate
		}
		s, err := r.Session(ctx)
		if err != nil {
			t.Errorf("Session in OnToolsChanged: %v", err)
			listed <- nil
			return
		}
		tools, err := s.ListTools(ctx)
		if err != nil {
			t.Errorf("ListTools in OnToolsChanged: %v", err)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		listed <- names
	}}
	r, err := ConnectRestarting(ctx, tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, _ := r.Session(ctx)
	tr.last().Close()
	<-s.Done()
	if s, err = r.Session(ctx); err != nil { // the first restart
		t.Fatal(err)
	}
	// A Session that ends drops the calls it has not begun, so the
	// server goes away once the call is under way.
	select {
	case <-entered:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("OnToolsChanged was not called after the restart")
	}
	tr.last().Close() // the restarted server goes away before its callback lists
	<-s.Done()
	close(gate)
	for i := range 2 {
		select {
		case names := <-listed:
			if !slices.Equal(names, []string{"a", "b", "c"}) {
				t.Errorf("OnToolsChanged %d listed %v, want [a b c]", i+1, names)
			}
		case <-time.After(testenv.WaitLimit(t)):
			t.Fatalf("OnToolsChanged %d did not list the tools", i+1)
		}
	}
}
