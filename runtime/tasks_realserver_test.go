package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestTaskRequiredToolRealServer runs the task-required tool delay of the
// TypeScript SDK's example server (2025-11-25 tasks) to completion, and
// cancels one that takes too long.
func TestTaskRequiredToolRealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testenv.ServeSDKExample(t, "simpleStreamableHttp")
	ctx := testenv.Context(t)
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

// TestTaskInputRealServer: 2025-11-25 tasks that ask for input while they
// run (the TypeScript SDK's examples: collect-user-info-task of
// simpleStreamableHttp, confirm_delete and write_haiku of
// simpleTaskInteractive, whose requests come on the tasks/result stream)
// are answered by the Options handlers and run to completion.
func TestTaskInputRealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	var mu sync.Mutex
	var asked []string
	opts := &Options{
		Elicitation: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Message)
			mu.Unlock()
			if strings.Contains(r.Message, "delete") {
				return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"confirm": true}}, nil
			}
			return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "Ada Lovelace", "email": "ada@example.com"}}, nil
		},
		Sampling: func(_ context.Context, r *SamplingRequest) (*SamplingResult, error) {
			mu.Lock()
			asked = append(asked, r.Messages[0].Text())
			mu.Unlock()
			return &SamplingResult{Content: []Content{{Type: ContentText, Text: "gophers dig burrows"}}, Model: "m", StopReason: "endTurn"}, nil
		},
	}
	for _, tc := range []struct {
		example, tool string
		args          map[string]any
		want, asked   string
	}{
		{"simpleStreamableHttp", "collect-user-info-task", map[string]any{"infoType": "contact"}, `"email": "ada@example.com"`, "Please provide your contact information"},
		{"simpleTaskInteractive", "confirm_delete", map[string]any{"filename": "notes.txt"}, "Deleted 'notes.txt'", "Are you sure you want to delete 'notes.txt'?"},
		{"simpleTaskInteractive", "write_haiku", map[string]any{"topic": "gophers"}, "Haiku:\ngophers dig burrows", "Write a haiku about gophers"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			url := testenv.ServeSDKExample(t, tc.example)
			ctx := testenv.Context(t)
			s, err := Connect(ctx, HTTP(url, nil), opts)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer s.Close()
			mu.Lock()
			asked = nil
			mu.Unlock()
			task, err := s.StartToolTask(ctx, tc.tool, tc.args)
			if err != nil || task.ID == "" {
				t.Fatalf("StartToolTask = %v, %v", task, err)
			}
			res, err := task.Wait(ctx)
			if err != nil || !strings.Contains(res.Text(), tc.want) {
				t.Fatalf("Wait = %v, %v; want a result holding %q", res, err, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || asked[0] != tc.asked {
				t.Errorf("the handlers were asked %q, want %q once", asked, tc.asked)
			}
		})
	}
}
