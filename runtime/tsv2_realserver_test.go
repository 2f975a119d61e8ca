package runtime

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestTSV2Server runs the 2026-07-28 features against a server built on
// the TypeScript SDK's v2 line (internal/testing/testenv/tsv2server.mjs on npm
// @modelcontextprotocol/server), over stdio and Streamable HTTP, with the
// runtime pinned to 2026-07-28: a tool that answers input_required with a
// form elicitation and a requestState (accepted and declined), a tool run
// as a task of the tasks extension (awaited, started and cancelled), a task
// that asks for input in status input_required and goes on after
// tasks/update, a prompt and a resource that answer input_required, and a
// task id the server never made.
func TestTSV2Server(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	argv := testenv.TSV2Server(t)
	url := testenv.ServeTSV2(t)
	for _, tc := range []struct {
		name      string
		transport func() Transport
	}{
		{"stdio", func() Transport { return NewCommandTransport(argv[0], argv[1:]...) }},
		{"streamable-http", func() Transport { return StreamableHTTP(url, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testenv.Context(t)
			var mu sync.Mutex
			var asked []string
			s, err := Connect(ctx, tc.transport(), &Options{
				ProtocolVersion: "2026-07-28",
				Elicitation: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
					mu.Lock()
					asked = append(asked, r.Message)
					mu.Unlock()
					if strings.Contains(r.Message, "billing") {
						return &ElicitResult{Action: ElicitDecline}, nil
					}
					if r.Message == "Your name?" {
						return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
					}
					return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"confirm": true}}, nil
				},
			})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer s.Close()
			if s.ProtocolVersion() != "2026-07-28" || !s.Capabilities().ToolTasks {
				t.Fatalf("negotiated %s with capabilities %s", s.ProtocolVersion(), s.Capabilities().Raw)
			}

			for _, c := range []struct {
				tool       string
				args       map[string]any
				want, asks string
			}{
				{"deploy", map[string]any{"service": "api"}, `deployed api (state "deploy:api")`, "Deploy api?"},
				{"deploy", map[string]any{"service": "billing"}, "deployment of billing declined", "Deploy billing?"},
				{"slow_sum", map[string]any{"a": 2, "b": 3, "ms": 200}, "5", ""},
				{"approve", map[string]any{"item": "invoice 7"}, "approved invoice 7", "Approve invoice 7?"},
			} {
				mu.Lock()
				asked = nil
				mu.Unlock()
				res, err := s.CallTool(ctx, c.tool, c.args)
				if err != nil {
					t.Errorf("%s %v: %v", c.tool, c.args, err)
					continue
				}
				if res.Text() != c.want {
					t.Errorf("%s %v = %q, want %q", c.tool, c.args, res.Text(), c.want)
				}
				mu.Lock()
				if want := []string{c.asks}; (c.asks == "" && len(asked) != 0) || (c.asks != "" && (len(asked) != 1 || asked[0] != want[0])) {
					t.Errorf("%s %v asked %q, want %q", c.tool, c.args, asked, c.asks)
				}
				mu.Unlock()
			}

			// prompts/get and resources/read answer input_required too: the
			// Session asks the handler and sends the request again with its
			// answer and the server's requestState.
			mu.Lock()
			asked = nil
			mu.Unlock()
			pr, err := s.GetPrompt(ctx, "greet", map[string]string{"tone": "warm"})
			if err != nil || pr.Text() != `warm hello, Ada (state "greet:warm")` {
				t.Errorf("GetPrompt(greet) = %+v, %v", pr, err)
			}
			rr, err := s.ReadResource(ctx, "secret://vault")
			if err != nil || rr.Text() != `opened (state "vault")` {
				t.Errorf("ReadResource(secret://vault) = %+v, %v", rr, err)
			}
			mu.Lock()
			if want := []string{"Your name?", "Unlock the vault?"}; !slices.Equal(asked, want) {
				t.Errorf("the prompt and the resource asked %q, want %q", asked, want)
			}
			mu.Unlock()

			// A task started and awaited: its structured result is inlined
			// by the tasks/get that sees it complete.
			task, err := s.StartToolTask(ctx, "slow_sum", map[string]any{"a": 40, "b": 2, "ms": 100})
			if err != nil || task.ID == "" {
				t.Fatalf("StartToolTask(slow_sum) = %v, %v", task, err)
			}
			res, err := task.Wait(ctx)
			if err != nil || string(res.StructuredContent) != `{"sum":42}` {
				t.Fatalf("Wait = %v, %v; want the structured sum 42", res, err)
			}

			// A task cancelled while it works.
			task, err = s.StartToolTask(ctx, "slow_sum", map[string]any{"a": 1, "b": 1, "ms": 600000})
			if err != nil || task.ID == "" {
				t.Fatalf("StartToolTask(slow_sum) = %v, %v", task, err)
			}
			if st, err := task.Get(ctx); err != nil || st.Status != TaskWorking || st.StatusMessage != "adding 1 and 1" {
				t.Fatalf("Get = %+v, %v; want it working", st, err)
			}
			if err := task.Cancel(ctx); err != nil {
				t.Fatalf("Cancel: %v", err)
			}
			probe := &Task{ID: task.ID, Tool: "slow_sum", s: s}
			if st, err := probe.Get(ctx); err != nil || st.Status != TaskCancelled {
				t.Errorf("after Cancel, Get = %+v, %v", st, err)
			}

			// A task id the server never made.
			probe = &Task{ID: "no-such-task", Tool: "slow_sum", s: s}
			_, err = probe.Wait(ctx)
			var te *TaskError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), "unknown task no-such-task") {
				t.Errorf("Wait for an unknown task = %v", err)
			}
		})
	}
}
