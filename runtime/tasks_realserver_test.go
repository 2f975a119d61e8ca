package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestTaskRequiredToolRealServer runs the task-required tool delay of the
// TypeScript SDK's example server (2025-11-25 tasks) to completion, and
// cancels one that takes too long.
func TestTaskRequiredToolRealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Connect(ctx, HTTP(url, nil), nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer s.Close()
	if s.ProtocolVersion() != "2025-11-25" || !s.Capabilities().ToolTasks {
		t.Fatalf("negotiated %s with capabilities %s", s.ProtocolVersion(), s.Capabilities().Raw)
	}

	res, err := s.CallTool(ctx, "delay", map[string]int{"duration": 300})
	if err != nil || res.Text() != "Completed 300ms delay" {
		t.Fatalf("CallTool(delay) = %v, %v", res, err)
	}

	// A task that outlives its context is cancelled on the server.
	task, err := s.StartToolTask(ctx, "delay", map[string]int{"duration": 60000})
	if err != nil {
		t.Fatalf("StartToolTask = %v", err)
	}
	if task.ID == "" || task.Status().Status != TaskWorking {
		t.Fatalf("task %q %+v", task.ID, task.Status())
	}
	wctx, wcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = task.Wait(wctx)
	wcancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v, want the deadline", err)
	}
	if err := task.Cancel(ctx); err != nil {
		t.Fatalf("Cancel = %v", err)
	}
	probe := &Task{ID: task.ID, Tool: "delay", s: s, legacy: true}
	st, err := probe.Get(ctx)
	if err != nil || st.Status != TaskCancelled {
		t.Errorf("after Cancel, Get = %+v, %v", st, err)
	}

	// A task id the server never made.
	probe = &Task{ID: "no-such-task", Tool: "delay", s: s, legacy: true}
	_, err = probe.Wait(ctx)
	var te *TaskError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), `task "no-such-task" of tool delay: the server no longer knows the task`) {
		t.Errorf("Wait for an unknown task = %v", err)
	}
}
