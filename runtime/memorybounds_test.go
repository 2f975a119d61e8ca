package runtime

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestAbandonedTaskProgressBounded: legacy tasks started with a progress
// function and never waited for or cancelled keep their progress routes
// only up to maxLiveTasks; past it the oldest route is dropped, and the
// newest tasks' progress still reaches their functions. Cancelled tasks
// leave no route behind, nor their tokens in the routes' order. The tasks
// kept by id to notice an id reused stop at maxLiveTasks as well.
func TestAbandonedTaskProgressBounded(t *testing.T) {
	var next atomic.Int64
	srv := &legacyTasksMem{status: func(int) string { return TaskWorking }}
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		var p struct {
			Task json.RawMessage `json:"task"`
			Meta struct {
				Token json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		if m.Method != "tools/call" || p.Task == nil {
			return srv.serve(c, ctx, m)
		}
		id := "t-" + strconv.FormatInt(next.Add(1), 10)
		c.reply(m, `{"task":{"taskId":"`+id+`","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":100}}`)
		return nil
	})
	ctx := testenv.Context(t)
	s, err := Connect(ctx, conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	routes := func() int {
		n := 0
		s.taskProgress.Range(func(any, any) bool { n++; return true })
		return n
	}
	const started = maxLiveTasks + 500
	var got atomic.Int64
	var tasks []*Task
	for i := 0; i < started; i++ {
		pctx := WithProgress(ctx, func(Progress) { got.Add(1) })
		task, err := s.StartToolTask(pctx, "maybe", nil)
		if err != nil {
			t.Fatalf("StartToolTask #%d: %v", i, err)
		}
		tasks = append(tasks, task)
	}
	if n := routes(); n > maxLiveTasks {
		t.Fatalf("%d progress routes kept for %d abandoned tasks, want at most %d", n, started, maxLiveTasks)
	}
	s.tasksMu.Lock()
	order, live := len(s.progressOrder), len(s.liveTasks)
	s.tasksMu.Unlock()
	if live > maxLiveTasks {
		t.Errorf("%d tasks kept by id, want at most %d", live, maxLiveTasks)
	}
	if order > 2*maxLiveTasks+64 {
		t.Errorf("%d tokens kept in the order of the routes, want at most %d", order, 2*maxLiveTasks+64)
	}
	// The newest task's progress still reaches its function.
	s.progress([]byte(`{"progressToken":` + strconv.FormatInt(tasks[len(tasks)-1].token, 10) + `,"progress":1,"total":2}`))
	if got.Load() != 1 {
		t.Errorf("the newest task's progress reached %d functions, want 1", got.Load())
	}

	for _, task := range tasks {
		if err := task.Cancel(ctx); err != nil {
			t.Fatalf("Cancel(%s): %v", task.ID, err)
		}
	}
	if n := routes(); n != 0 {
		t.Errorf("%d progress routes left behind by cancelled tasks", n)
	}
	pctx := WithProgress(ctx, func(Progress) {})
	if _, err := s.StartToolTask(pctx, "maybe", nil); err != nil {
		t.Fatal(err)
	}
	s.tasksMu.Lock()
	order = len(s.progressOrder)
	s.tasksMu.Unlock()
	if order > 2+64 {
		t.Errorf("%d tokens kept in the order of one route", order)
	}
}

// TestStderrTailBounded: a server that writes a stream of long lines to
// stderr leaves at most stderrTailLines lines and about stderrTailBytes in
// the tail kept for errors, the last lines it wrote.
func TestStderrTailBounded(t *testing.T) {
	c := &stdioConn{}
	line := strings.Repeat("x", 1000)
	for i := 0; i < 10000; i++ {
		c.addTail(line + strconv.Itoa(i))
	}
	if n := len(c.tail); n > stderrTailLines {
		t.Errorf("%d lines kept, want at most %d", n, stderrTailLines)
	}
	if n := c.tailSize(); n > stderrTailBytes {
		t.Errorf("%d bytes kept, want at most %d", n, stderrTailBytes)
	}
	if tail := c.stderrTail(); !strings.HasSuffix(tail, "9999") || len(tail) > stderrTailBytes+len("...") {
		t.Errorf("tail of %d bytes ending %q, want the last line within %d bytes", len(tail), tail[max(0, len(tail)-8):], stderrTailBytes)
	}
}
