package runtime

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestTaskInputAnsweredAfterTheTaskEnded: the input a 2026-07-28 task asked
// for is answered while the task ends without it (the server went on, timed
// the request out or failed the task), so the server refuses the late
// tasks/update. Wait returns the task's outcome, which the next tasks/get
// shows, not the refusal, and does not cancel a task that already ended.
func TestTaskInputAnsweredAfterTheTaskEnded(t *testing.T) {
	srv := &modernTasksMem{final: `"result":{"content":[{"type":"text","text":"deployed anyway"}],"isError":false}`}
	srv.status = func(poll int) string {
		if poll == 1 {
			return TaskInputRequired
		}
		return TaskCompleted
	}
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "tasks/update" {
			c.replyError(m, CodeInvalidParams, `"task t-1 is completed, not waiting for input"`)
			return nil
		}
		return srv.serve(c, ctx, m)
	}))
	s, err := Connect(context.Background(), conn, &Options{
		HandlerTimeout: time.Minute,
		Elicitation: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
			return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"confirm": true}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "slow_compute", nil)
	if err != nil || res.Text() != "deployed anyway" {
		t.Errorf("CallTool = %v, %v; want the task's result", res, err)
	}
	if slices.Contains(conn.methods(), "tasks/cancel") {
		t.Errorf("methods %v: a task that ended was cancelled", conn.methods())
	}
}
