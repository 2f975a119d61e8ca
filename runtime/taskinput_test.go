package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestModernTaskAnswersInput is the defect of a 2026-07-28 task that asks
// for input failing: the handlers answer each input request once, the
// answers go with tasks/update, and the polling goes on to the result. A
// request the server still shows after it was answered is not asked again.
func TestModernTaskAnswersInput(t *testing.T) {
	srv := &modernTasksMem{final: `"result":{"content":[{"type":"text","text":"deployed"}],"isError":false}`}
	srv.status = func(poll int) string {
		if poll >= 4 {
			return TaskCompleted
		}
		return TaskInputRequired
	}
	srv.input = func(poll int) string {
		if poll <= 2 {
			// The second poll has not seen the update yet.
			return `{"confirm":` + confirmRequest + `}`
		}
		return `{"capital":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"capital of France?"}}],"maxTokens":100}},"where":{"method":"roots/list","params":{}}}`
	}
	conn := newMemConn(modernMem(srv.serve))
	var elicited, sampled atomic.Int32
	s, err := Connect(context.Background(), conn, &Options{
		Elicitation: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
			elicited.Add(1)
			if r.Message != "Proceed?" {
				t.Errorf("elicitation message %q", r.Message)
			}
			return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"confirm": true}}, nil
		},
		Sampling: func(_ context.Context, r *SamplingRequest) (*SamplingResult, error) {
			sampled.Add(1)
			return &SamplingResult{Content: []Content{{Type: ContentText, Text: "Paris"}}, Model: "m", StopReason: "endTurn"}, nil
		},
		Roots: func(context.Context) ([]Root, error) { return []Root{{URI: "file:///w"}}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "slow_compute", nil)
	if err != nil || res.Text() != "deployed" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	if elicited.Load() != 1 || sampled.Load() != 1 {
		t.Errorf("elicited %d, sampled %d times; want once each", elicited.Load(), sampled.Load())
	}
	updates := conn.paramsOf("tasks/update")
	want := []string{
		`{"taskId":"t-1","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`,
		`{"taskId":"t-1","inputResponses":{"capital":{"content":{"type":"text","text":"Paris"},"model":"m","role":"assistant","stopReason":"endTurn"},"where":{"roots":[{"uri":"file:///w"}]}}`,
	}
	if len(updates) != len(want) {
		t.Fatalf("tasks/update params %s, want %d", updates, len(want))
	}
	for i, u := range updates {
		if !strings.HasPrefix(string(u), want[i]) {
			t.Errorf("tasks/update %d params %s, want them to start %s", i, u, want[i])
		}
	}
	if got := conn.methods(); !slices.Equal(got, []string{"server/discover", "tools/call", "tasks/get", "tasks/update", "tasks/get", "tasks/get", "tasks/update", "tasks/get"}) {
		t.Errorf("methods %v", got)
	}
}

// TestModernTaskInputFaults: a failing elicitation handler declines, so
// the task goes on; a failing sampling handler, a missing handler or
// malformed input requests end the call with an error naming the request,
// and the task is cancelled rather than left waiting.
func TestModernTaskInputFaults(t *testing.T) {
	sampling := `{"capital":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"capital?"}}],"maxTokens":1}}}`
	for _, tc := range []struct {
		name, input string
		// wantErr is the call's error; "" wants the result.
		wantErr, wantUpdate string
	}{
		{"elicitation fails", `{"confirm":` + confirmRequest + `}`, "", `"inputResponses":{"confirm":{"action":"decline"}}`},
		{"sampling fails", sampling, `calling slow_compute: task "t-1" cancelled: task "t-1" of tool slow_compute: input request "capital": sampling handler: quota exceeded`, ""},
		{"no roots handler", `{"where":{"method":"roots/list"}}`, `input request "where": the server asks the client for input with roots/list, and Options.Roots is not set`, ""},
		{"unknown method", `{"x":{"method":"tools/call","params":{}}}`, `input request "x": unsupported method "tools/call"`, ""},
		{"malformed", `["confirm"]`, `task "t-1" of tool slow_compute: malformed inputRequests: json: cannot unmarshal array`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &modernTasksMem{final: `"result":{"content":[{"type":"text","text":"done"}]}`}
			srv.status = func(int) string {
				if srv.updates.Load() > 0 {
					return TaskCompleted
				}
				return TaskInputRequired
			}
			srv.input = func(int) string { return tc.input }
			conn := newMemConn(modernMem(srv.serve))
			s, err := Connect(context.Background(), conn, &Options{
				Elicitation: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
					return nil, errors.New("no one at the keyboard")
				},
				Sampling: func(context.Context, *SamplingRequest) (*SamplingResult, error) {
					return nil, errors.New("quota exceeded")
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			res, err := s.CallTool(context.Background(), "slow_compute", nil)
			if tc.wantErr == "" {
				if err != nil || res.Text() != "done" {
					t.Fatalf("CallTool = %v, %v", res, err)
				}
				updates := conn.paramsOf("tasks/update")
				if len(updates) != 1 || !strings.Contains(string(updates[0]), tc.wantUpdate) {
					t.Errorf("tasks/update params %s, want %s", updates, tc.wantUpdate)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("CallTool = %v, want %s", err, tc.wantErr)
			}
			if n := len(conn.paramsOf("tasks/update")); n != 0 {
				t.Errorf("%d tasks/update sent", n)
			}
			if n := len(conn.paramsOf("tasks/cancel")); n != 1 {
				t.Errorf("%d tasks/cancel sent, want 1", n)
			}
		})
	}
}

// TestModernTaskAsksForever: a task that keeps asking for new input is
// given up on after maxInputRounds tasks/update, and cancelled.
func TestModernTaskAsksForever(t *testing.T) {
	srv := &modernTasksMem{status: func(int) string { return TaskInputRequired }}
	srv.input = func(poll int) string { return fmt.Sprintf(`{"q%d":%s}`, poll, confirmRequest) }
	conn := newMemConn(modernMem(srv.serve))
	s, err := Connect(context.Background(), conn, &Options{Elicitation: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
		return &ElicitResult{Action: ElicitDecline}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := testenv.Context(t)
	_, err = s.CallTool(ctx, "slow_compute", nil)
	var re *InputRoundsError
	want := `task "t-1" of tool slow_compute: the server still asked for input after 10 rounds of tasks/update (the limit of input rounds per task)`
	if !errors.As(err, &re) || re.TaskID != "t-1" || !strings.Contains(err.Error(), want) {
		t.Fatalf("CallTool = %v, want %s", err, want)
	}
	if n := srv.updates.Load(); n != maxInputRounds {
		t.Errorf("%d tasks/update, want %d", n, maxInputRounds)
	}
	if n := len(conn.paramsOf("tasks/cancel")); n != 1 {
		t.Errorf("%d tasks/cancel sent, want 1", n)
	}
}

// TestInputRequestsPerRoundBounded: an input_required answer, or a task,
// asking for more than maxInputRequests inputs in one round is refused
// with an error saying so, before any handler runs; as many as the limit
// are answered.
func TestInputRequestsPerRoundBounded(t *testing.T) {
	requests := func(n int) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"r%d":{"method":"roots/list","params":{}}`, i)
		}
		return b.String() + "}"
	}
	connect := func(t *testing.T, serve func(c *memConn, ctx context.Context, m memMsg) error) (*Session, *atomic.Int32) {
		var asked atomic.Int32
		s, err := Connect(context.Background(), newMemConn(modernMem(serve)), &Options{
			Roots: func(context.Context) ([]Root, error) {
				asked.Add(1)
				return []Root{{URI: "file:///w"}}, nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, &asked
	}
	want := fmt.Sprintf("inputRequests: %d requests in one round, more than the limit of %d", maxInputRequests+1, maxInputRequests)
	t.Run("call", func(t *testing.T) {
		s, asked := connect(t, func(c *memConn, ctx context.Context, m memMsg) error {
			var p struct {
				Name           string          `json:"name"`
				InputResponses json.RawMessage `json:"inputResponses"`
			}
			json.Unmarshal(m.Params, &p)
			switch {
			case m.Method != "tools/call":
			case p.InputResponses != nil:
				c.reply(m, `{"resultType":"complete","content":[{"type":"text","text":"answered"}]}`)
			case p.Name == "many":
				c.reply(m, `{"resultType":"input_required","inputRequests":`+requests(maxInputRequests+1)+`}`)
			default:
				c.reply(m, `{"resultType":"input_required","inputRequests":`+requests(maxInputRequests)+`}`)
			}
			return nil
		})
		ctx := testenv.Context(t)
		if _, err := s.CallTool(ctx, "many", nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CallTool(many) = %v, want an error containing %q", err, want)
		}
		if n := asked.Load(); n != 0 {
			t.Errorf("%d handlers ran for a round over the limit", n)
		}
		if res, err := s.CallTool(ctx, "enough", nil); err != nil || res.Text() != "answered" {
			t.Errorf("CallTool(enough) = %v, %v", res, err)
		}
		if n := asked.Load(); n != maxInputRequests {
			t.Errorf("%d handlers ran, want %d", n, maxInputRequests)
		}
	})
	t.Run("task", func(t *testing.T) {
		srv := &modernTasksMem{
			input: func(int) string { return requests(maxInputRequests + 1) },
			final: `"result":{"content":[{"type":"text","text":"answered"}]}`,
		}
		srv.status = func(int) string {
			if srv.updates.Load() > 0 {
				return TaskCompleted
			}
			return TaskInputRequired
		}
		s, asked := connect(t, srv.serve)
		_, err := s.CallTool(testenv.Context(t), "slow_compute", nil)
		if err == nil || !strings.Contains(err.Error(), `task "t-1" of tool slow_compute: `+want) {
			t.Errorf("CallTool = %v, want an error containing %q", err, want)
		}
		if n := asked.Load(); n != 0 {
			t.Errorf("%d handlers ran for a round over the limit", n)
		}
		if srv.updates.Load() != 0 {
			t.Errorf("%d tasks/update sent", srv.updates.Load())
		}
	})
}
