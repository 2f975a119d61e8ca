package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// legacyTasksInit is a 2025-11-25 initialize result declaring task-run
// tools/call, as the TypeScript SDK's example server does.
const legacyTasksInit = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"mem","version":"1"}}`

// legacyTasksMem is a 2025-11-25 server with the tools plain (no
// execution), maybe (optional) and delay (required); it runs tasks as
// step says: step gets the task's tasks/get count and returns its status.
type legacyTasksMem struct {
	mu     sync.Mutex
	polls  int
	status func(poll int) string
	// result answers tasks/result; "" answers a text result.
	result string
	// getError makes tasks/get answer this code.
	getError int
	// getHangs leaves tasks/get unanswered.
	getHangs bool
}

func (l *legacyTasksMem) serve(c *memConn, ctx context.Context, m memMsg) error {
	var p struct {
		Name   string          `json:"name"`
		Task   json.RawMessage `json:"task"`
		TaskID string          `json:"taskId"`
		Meta   struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "server/discover":
		c.replyError(m, CodeMethodNotFound, "null")
	case "initialize":
		c.reply(m, legacyTasksInit)
	case "notifications/initialized", "notifications/cancelled":
	case "tools/list":
		c.reply(m, `{"tools":[{"name":"plain","inputSchema":{"type":"object"}},`+
			`{"name":"maybe","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},`+
			`{"name":"delay","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`)
	case "tools/call":
		if p.Name == "delay" && p.Task == nil {
			c.replyError(m, CodeMethodNotFound, `"Tool delay requires task augmentation (taskSupport: 'required')"`)
			return nil
		}
		if p.Task == nil {
			c.reply(m, textResult)
			return nil
		}
		c.reply(m, `{"task":{"taskId":"t-1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":100}}`)
		if p.Meta.Token != nil {
			c.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(p.Meta.Token) + `,"progress":1,"total":2,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-1"}}}}`)
		}
	case "tasks/get":
		if l.getHangs {
			return nil
		}
		if l.getError != 0 {
			c.replyError(m, l.getError, `"Task not found"`)
			return nil
		}
		l.mu.Lock()
		l.polls++
		n := l.polls
		l.mu.Unlock()
		c.reply(m, `{"taskId":"`+p.TaskID+`","status":"`+l.status(n)+`","statusMessage":"step `+string(rune('0'+n%10))+`","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:01Z","ttl":60000,"pollInterval":100}`)
	case "tasks/result":
		if l.result != "" {
			c.reply(m, l.result)
		} else {
			c.reply(m, `{"content":[{"type":"text","text":"Completed 100ms delay"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-1"}}}`)
		}
	case "tasks/cancel":
		c.reply(m, `{"taskId":"`+p.TaskID+`","status":"cancelled","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:02Z","ttl":60000}`)
	default:
		c.replyError(m, CodeMethodNotFound, "null")
	}
	return nil
}

func doneAfter(n int) func(int) string {
	return func(poll int) string {
		if poll >= n {
			return TaskCompleted
		}
		return TaskWorking
	}
}

// paramsOf returns the params of the first message of method.
func (c *memConn) paramsOf(method string) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []json.RawMessage
	for _, m := range c.seen {
		if m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

// TestTaskRequiredToolLegacy: a 2025-11-25 tool whose taskSupport is
// required must be called as a task; CallTool waits for its result and
// passes on the progress the server sends under the call's token.
func TestTaskRequiredToolLegacy(t *testing.T) {
	srv := &legacyTasksMem{status: doneAfter(2)}
	conn := newMemConn(srv.serve)
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mu sync.Mutex
	var got []Progress
	ctx := WithProgress(context.Background(), func(p Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	res, err := s.CallTool(ctx, "delay", map[string]int{"duration": 100})
	if err != nil {
		t.Fatalf("CallTool(delay) = %v", err)
	}
	if res.Text() != "Completed 100ms delay" {
		t.Errorf("result %q", res.Text())
	}
	calls := conn.paramsOf("tools/call")
	if len(calls) != 1 || !strings.Contains(string(calls[0]), `"task":{}`) {
		t.Errorf("tools/call params %s, want one task-augmented call", calls)
	}
	if gets := conn.paramsOf("tasks/get"); len(gets) != 2 || !strings.Contains(string(gets[0]), `"taskId":"t-1"`) {
		t.Errorf("tasks/get params %s", gets)
	}
	if len(conn.paramsOf("tasks/result")) != 1 {
		t.Errorf("methods %v, want one tasks/result", conn.methods())
	}
	mu.Lock()
	if !slices.ContainsFunc(got, func(p Progress) bool { return p.Progress == 1 && p.Total == 2 }) ||
		!slices.ContainsFunc(got, func(p Progress) bool { return p.Message == "step 1" }) {
		t.Errorf("progress %+v, want the server's notification and the status message", got)
	}
	mu.Unlock()
	n := 0
	s.taskProgress.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Errorf("%d progress routes left behind after the task ended", n)
	}

	// Tools that do not require tasks are called as usual.
	for _, name := range []string{"plain", "maybe"} {
		if _, err := s.CallTool(context.Background(), name, nil); err != nil {
			t.Errorf("CallTool(%s) = %v", name, err)
		}
	}
	calls = conn.paramsOf("tools/call")
	for _, c := range calls[1:] {
		if strings.Contains(string(c), `"task"`) {
			t.Errorf("an ordinary call went as a task: %s", c)
		}
	}
	if lists := conn.paramsOf("tools/list"); len(lists) != 1 {
		t.Errorf("%d tools/list requests, want 1 (to learn taskSupport)", len(lists))
	}
}

func TestStartToolTaskLegacy(t *testing.T) {
	srv := &legacyTasksMem{status: doneAfter(3)}
	conn := newMemConn(srv.serve)
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.StartToolTask(context.Background(), "plain", nil); err == nil || !strings.Contains(err.Error(), "forbids tasks") {
		t.Errorf("StartToolTask(plain) = %v, want the tool forbids tasks", err)
	}
	task, err := s.StartToolTask(context.Background(), "maybe", nil)
	if err != nil {
		t.Fatal(err)
	}
	if task.ID != "t-1" || task.Status().Status != TaskWorking || task.Status().TTL != time.Minute || task.Status().PollInterval != 100*time.Millisecond {
		t.Errorf("task %q %+v", task.ID, task.Status())
	}
	st, err := task.Get(context.Background())
	if err != nil || st.Status != TaskWorking || st.StatusMessage != "step 1" {
		t.Errorf("Get = %+v, %v", st, err)
	}
	res, err := task.Wait(context.Background())
	if err != nil || res.Text() != "Completed 100ms delay" {
		t.Errorf("Wait = %v, %v", res, err)
	}
	if err := task.Cancel(context.Background()); err != nil {
		t.Errorf("Cancel after the end = %v", err)
	}
	if slices.Contains(conn.methods(), "tasks/cancel") {
		t.Error("a finished task was cancelled")
	}
}

// TestTaskNeverFinishes: a task the server never finishes is cancelled with
// tasks/cancel when the call's context ends, in both eras.
func TestTaskNeverFinishes(t *testing.T) {
	never := func(int) string { return TaskWorking }
	t.Run("legacy", func(t *testing.T) {
		conn := newMemConn((&legacyTasksMem{status: never}).serve)
		checkNeverFinishes(t, conn, "delay")
	})
	t.Run("modern", func(t *testing.T) {
		conn := newMemConn(modernMem((&modernTasksMem{status: never}).serve))
		checkNeverFinishes(t, conn, "slow_compute")
	})
}

func checkNeverFinishes(t *testing.T, conn *memConn, tool string) {
	t.Helper()
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Long enough for two polls on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err = s.CallTool(ctx, tool, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("CallTool = %v, want the deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second+loadSlack {
		t.Errorf("CallTool returned after %v", d)
	}
	cancels := conn.paramsOf("tasks/cancel")
	if len(cancels) != 1 || !strings.Contains(string(cancels[0]), `"taskId":"t-1"`) {
		t.Errorf("tasks/cancel %s, want one for t-1; methods %v", cancels, conn.methods())
	}
	if len(conn.paramsOf("tasks/get")) < 2 {
		t.Errorf("methods %v, want polling", conn.methods())
	}
}

// TestTaskDeadlineDuringPoll: a deadline that comes while a tasks/get is
// unanswered ends the call with the same error as one that comes between
// polls, the deadline, not the tasks/get that it cut short.
func TestTaskDeadlineDuringPoll(t *testing.T) {
	conn := newMemConn((&legacyTasksMem{getHangs: true}).serve)
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = s.CallTool(ctx, "delay", nil)
	want := `calling delay: task "t-1" cancelled: context deadline exceeded`
	if err == nil || err.Error() != want || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CallTool = %v, want %s", err, want)
	}
	if len(conn.paramsOf("tasks/cancel")) != 1 {
		t.Errorf("methods %v, want one tasks/cancel", conn.methods())
	}
}

// TestTaskTimeout: without a deadline, Options.TaskTimeout bounds the wait.
func TestTaskTimeout(t *testing.T) {
	conn := newMemConn((&legacyTasksMem{status: func(int) string { return TaskWorking }}).serve)
	s, err := Connect(context.Background(), conn, &Options{TaskTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.CallTool(context.Background(), "delay", nil)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Timeout != 300*time.Millisecond || !strings.Contains(err.Error(), `task "t-1"`) {
		t.Errorf("CallTool = %v, want a TimeoutError naming the task", err)
	}
	if len(conn.paramsOf("tasks/cancel")) != 1 {
		t.Errorf("methods %v, want tasks/cancel", conn.methods())
	}
}

// TestTaskForgotten: a task the server no longer knows is a clear error
// naming it, in both eras.
func TestTaskForgotten(t *testing.T) {
	for _, tc := range []struct {
		era  string
		conn *memConn
		tool string
	}{
		{"legacy", newMemConn((&legacyTasksMem{getError: CodeInvalidParams}).serve), "delay"},
		{"modern", newMemConn(modernMem((&modernTasksMem{getError: CodeInvalidParams}).serve)), "slow_compute"},
	} {
		t.Run(tc.era, func(t *testing.T) {
			s, err := Connect(context.Background(), tc.conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = s.CallTool(context.Background(), tc.tool, nil)
			var te *TaskError
			var rpc *RPCError
			if !errors.As(err, &te) || te.TaskID != "t-1" || te.Status != "" || !errors.As(err, &rpc) || rpc.Code != CodeInvalidParams {
				t.Fatalf("CallTool = %v, want a TaskError for t-1 holding the RPC error", err)
			}
			want := `task "t-1" of tool ` + tc.tool + `: the server no longer knows the task`
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
			if n := len(tc.conn.paramsOf("tasks/get")); n != 1 {
				t.Errorf("%d tasks/get, want 1", n)
			}
		})
	}
}

// modernTasksMem replays the tasks extension's messages (2026-07-28): a
// tools/call of slow_compute answers resultType "task", tasks/get inlines
// the result once status says so.
type modernTasksMem struct {
	mu       sync.Mutex
	polls    int
	status   func(poll int) string
	getError int
	// final is the inlined member of a terminal tasks/get.
	final string
	// updates counts tasks/update requests.
	updates atomic.Int32
	// input returns the inputRequests of an input_required tasks/get; nil
	// asks for one confirmation.
	input func(poll int) string
}

func (l *modernTasksMem) serve(c *memConn, ctx context.Context, m memMsg) error {
	var p struct {
		Name   string `json:"name"`
		TaskID string `json:"taskId"`
	}
	json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "tools/call":
		if p.Name != "slow_compute" {
			c.reply(m, `{"resultType":"complete","content":[{"type":"text","text":"Hello, World!"}]}`)
			return nil
		}
		c.reply(m, `{"resultType":"task","taskId":"t-1","status":"working","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:00Z","ttlMs":60000,"pollIntervalMs":100}`)
	case "tasks/get":
		if l.getError != 0 {
			c.replyError(m, l.getError, `"unknown taskId"`)
			return nil
		}
		l.mu.Lock()
		l.polls++
		n := l.polls
		l.mu.Unlock()
		status := l.status(n)
		extra := ""
		switch status {
		case TaskCompleted, TaskFailed:
			extra = "," + l.final
		case TaskInputRequired:
			in := `{"confirm":` + confirmRequest + `}`
			if l.input != nil {
				in = l.input(n)
			}
			extra = `,"inputRequests":` + in
		}
		c.reply(m, `{"resultType":"complete","taskId":"`+p.TaskID+`","status":"`+status+`","statusMessage":"poll `+string(rune('0'+n%10))+`","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:01Z","ttlMs":60000,"pollIntervalMs":100`+extra+`}`)
	case "tasks/update":
		l.updates.Add(1)
		c.reply(m, `{"resultType":"complete"}`)
	case "tasks/cancel":
		c.reply(m, `{"resultType":"complete"}`)
	default:
		c.replyError(m, CodeMethodNotFound, "null")
	}
	return nil
}

// confirmRequest is the elicitation a task of modernTasksMem asks for.
const confirmRequest = `{"method":"elicitation/create","params":{"mode":"form","message":"Proceed?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}}}}}`

// TestModernTaskResult: a 2026-07-28 server that answers a call with
// resultType "task" is polled until the result it inlines.
func TestModernTaskResult(t *testing.T) {
	srv := &modernTasksMem{status: doneAfter(2), final: `"result":{"content":[{"type":"text","text":"computed wire-fields"}],"isError":false}`}
	conn := newMemConn(modernMem(srv.serve))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var msgs []string
	ctx := WithProgress(context.Background(), func(p Progress) { msgs = append(msgs, p.Message) })
	res, err := s.CallTool(ctx, "slow_compute", map[string]any{"seconds": 1})
	if err != nil || res.Text() != "computed wire-fields" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	if !slices.Equal(msgs, []string{"poll 1", "poll 2"}) {
		t.Errorf("progress messages %q", msgs)
	}
	conn.mu.Lock()
	for _, m := range conn.seen {
		if m.Method == "tools/call" && !strings.Contains(m.Raw, `"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`) {
			t.Errorf("tools/call does not declare the tasks extension: %s", m.Raw)
		}
		if m.Method == "tasks/get" && (m.Name != "t-1" || !strings.Contains(m.Raw, `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)) {
			t.Errorf("tasks/get sent with Mcp-Name %q: %s", m.Name, m.Raw)
		}
	}
	conn.mu.Unlock()
	if got := conn.methods(); !slices.Equal(got, []string{"server/discover", "tools/call", "tasks/get", "tasks/get"}) {
		t.Errorf("methods %v", got)
	}

	// A plain answer is returned as it is.
	if res, err := s.CallTool(context.Background(), "greet", nil); err != nil || res.Text() != "Hello, World!" {
		t.Errorf("CallTool(greet) = %v, %v", res, err)
	}
}

func TestModernTaskOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name, final string
		check       func(t *testing.T, res *Result, err error)
	}{
		{"tool error", `"result":{"content":[{"type":"text","text":"job failed"}],"isError":true}`, func(t *testing.T, res *Result, err error) {
			var te *ToolError
			if !errors.As(err, &te) || res == nil || !res.IsError {
				t.Errorf("got %v, %v; want a ToolError with the result", res, err)
			}
		}},
		{"protocol error", `"error":{"code":-32603,"message":"panic in job"}`, func(t *testing.T, res *Result, err error) {
			var te *TaskError
			var rpc *RPCError
			if !errors.As(err, &te) || te.Status != TaskFailed || !errors.As(err, &rpc) || rpc.Message != "panic in job" {
				t.Errorf("got %v; want a failed TaskError holding the RPC error", err)
			}
		}},
		{"no result", `"result":null`, func(t *testing.T, res *Result, err error) {
			if err == nil || !strings.Contains(err.Error(), "sent no result") {
				t.Errorf("got %v", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := doneAfter(1)
			if strings.HasPrefix(tc.final, `"error"`) {
				status = func(int) string { return TaskFailed }
			}
			conn := newMemConn(modernMem((&modernTasksMem{status: status, final: tc.final}).serve))
			s, err := Connect(context.Background(), conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			res, err := s.CallTool(context.Background(), "slow_compute", nil)
			tc.check(t, res, err)
			if slices.Contains(conn.methods(), "tasks/cancel") {
				t.Error("a finished task was cancelled")
			}
		})
	}
}

// TestModernTaskInput: a task waiting for input no handler of Options
// gives fails clearly and is cancelled; Task.Update sends tasks/update.
func TestModernTaskInput(t *testing.T) {
	srv := &modernTasksMem{status: func(int) string { return TaskInputRequired }}
	conn := newMemConn(modernMem(srv.serve))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.CallTool(context.Background(), "slow_compute", nil)
	if err == nil || !strings.Contains(err.Error(), `task "t-1" of tool slow_compute: input request "confirm": the server asks the client for input with elicitation/create, and Options.Elicitation is not set`) {
		t.Errorf("CallTool = %v", err)
	}
	if len(conn.paramsOf("tasks/cancel")) != 1 {
		t.Errorf("methods %v, want tasks/cancel", conn.methods())
	}

	task, err := s.StartToolTask(context.Background(), "slow_compute", nil)
	if err != nil || task.ID != "t-1" {
		t.Fatalf("StartToolTask = %v, %v", task, err)
	}
	st, err := task.Get(context.Background())
	if err != nil || st.Status != TaskInputRequired || !strings.Contains(string(st.InputRequests), `"confirm"`) {
		t.Fatalf("Get = %+v, %v", st, err)
	}
	if err := task.Update(context.Background(), json.RawMessage(`{"confirm":{"action":"accept","content":{"confirm":true}}}`)); err != nil {
		t.Fatal(err)
	}
	updates := conn.paramsOf("tasks/update")
	if len(updates) != 1 || !strings.Contains(string(updates[0]), `"taskId":"t-1","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`) {
		t.Errorf("tasks/update params %s", updates)
	}
	if err := task.Update(context.Background(), json.RawMessage(`[1]`)); err == nil {
		t.Error("Update accepted an array")
	}
	if err := task.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := task.Wait(context.Background()); err == nil || !strings.Contains(err.Error(), "was cancelled") {
		t.Errorf("Wait after Cancel = %v", err)
	}
	// A call answered at once makes a Task without an ID.
	task, err = s.StartToolTask(context.Background(), "greet", nil)
	if err != nil || task.ID != "" {
		t.Fatalf("StartToolTask(greet) = %v, %v", task, err)
	}
	if res, err := task.Wait(context.Background()); err != nil || res.Text() != "Hello, World!" {
		t.Errorf("Wait = %v, %v", res, err)
	}
}

func TestTaskSupport(t *testing.T) {
	for raw, want := range map[string]string{
		`{"name":"a"}`: TaskSupportForbidden,
		`{"name":"a","execution":{"taskSupport":"required"}}`:  TaskSupportRequired,
		`{"name":"a","execution":{"taskSupport":"optional"}}`:  TaskSupportOptional,
		`{"name":"a","execution":{"taskSupport":"sometimes"}}`: TaskSupportForbidden,
		`{"name":"a","execution":null}`:                        TaskSupportForbidden,
		// Members match by their exact names, as ListTools matches a
		// tool's; encoding/json would have taken these for taskSupport
		// and execution, the later spelling winning.
		`{"name":"a","execution":{"TaskSupport":"required"}}`:                           TaskSupportForbidden,
		`{"name":"a","Execution":{"taskSupport":"required"}}`:                           TaskSupportForbidden,
		`{"name":"a","execution":{"taskSupport":"optional","TaskSupport":"forbidden"}}`: TaskSupportOptional,
	} {
		tool := Tool{Raw: json.RawMessage(raw)}
		if got := tool.TaskSupport(); got != want {
			t.Errorf("%s: TaskSupport() = %q, want %q", raw, got, want)
		}
	}
	for raw, want := range map[string]bool{
		`{"tools":{}}`: false,
		`{"tasks":{"requests":{"tools":{"call":{}}}}}`:          true,
		`{"tasks":{"list":{}}}`:                                 false,
		`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`:   true,
		`{"extensions":{"io.modelcontextprotocol/tasks":null}}`: false,
		`{"tasks":{"requests":{"tools":{"call":null}}}}`:        false,
		`not json`: false,
	} {
		if got := toolTasksCap(json.RawMessage(raw)); got != want {
			t.Errorf("toolTasksCap(%s) = %v, want %v", raw, got, want)
		}
	}
}

// TestTaskCancelledWhileCreated: a call cancelled while the server creates
// its task still learns the task's id from the answer, and cancels the task
// (tasks/cancel) instead of leaving it running on the server.
func TestTaskCancelledWhileCreated(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &legacyTasksMem{status: func(int) string { return TaskWorking }}
	conn := newMemConn(func(c *memConn, wctx context.Context, m memMsg) error {
		if m.Method == "tools/call" {
			cancel() // the user gives up while the task is being created
		}
		return srv.serve(c, wctx, m)
	})
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err = s.CallTool(ctx, "delay", nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool = %v, want the cancellation", err)
	}
	cancels := conn.paramsOf("tasks/cancel")
	if len(cancels) != 1 || !strings.Contains(string(cancels[0]), `"taskId":"t-1"`) {
		t.Errorf("tasks/cancel %s, want one for t-1; methods %v", cancels, conn.methods())
	}
}

// TestTaskCancelledDuringResult: a 2025-11-25 task waiting for input is
// waited on with tasks/result, which blocks until the task ends. A context
// that ends during that wait ends the wait, not the task: CallTool cancels
// the task with tasks/cancel, and a Task that StartToolTask returned can
// still be cancelled, or waited on again.
func TestTaskCancelledDuringResult(t *testing.T) {
	serve := func(asked chan<- struct{}) func(c *memConn, ctx context.Context, m memMsg) error {
		srv := &legacyTasksMem{status: func(int) string { return TaskInputRequired }}
		var once sync.Once
		return func(c *memConn, ctx context.Context, m memMsg) error {
			if m.Method == "tasks/result" {
				once.Do(func() { close(asked) })
				return nil // the task waits for input that never comes
			}
			return srv.serve(c, ctx, m)
		}
	}
	// start connects a Session to a server that closes asked when the
	// Session sends tasks/result.
	start := func(t *testing.T) (chan struct{}, *memConn, *Session) {
		asked := make(chan struct{})
		conn := newMemConn(serve(asked))
		s, err := Connect(context.Background(), conn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return asked, conn, s
	}
	t.Run("CallTool", func(t *testing.T) {
		asked, conn, s := start(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			<-asked
			cancel()
		}()
		_, err := s.CallTool(ctx, "delay", nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool = %v, want the cancellation", err)
		}
		cancels := conn.paramsOf("tasks/cancel")
		if len(cancels) != 1 || !strings.Contains(string(cancels[0]), `"taskId":"t-1"`) {
			t.Errorf("tasks/cancel %s, want one for t-1; methods %v", cancels, conn.methods())
		}
	})
	t.Run("StartToolTask", func(t *testing.T) {
		asked, conn, s := start(t)
		task, err := s.StartToolTask(context.Background(), "delay", nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-asked
			cancel()
		}()
		if _, err := task.Wait(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Wait = %v, want the cancellation", err)
		}
		if err := task.Cancel(context.Background()); err != nil {
			t.Errorf("Cancel = %v", err)
		}
		if n := len(conn.paramsOf("tasks/cancel")); n != 1 {
			t.Errorf("%d tasks/cancel after Wait was cancelled and Cancel called, want 1; methods %v", n, conn.methods())
		}
	})
}

// TestTaskSupportRelearnedAfterListChanged: what a 2025-11-25 server's
// listing said of each tool's taskSupport holds until the server says its
// tools changed. A tool it then adds with taskSupport required is called as
// a task, as the server demands, not sent as an ordinary call because the
// Session still goes by the listing from before the change.
func TestTaskSupportRelearnedAfterListChanged(t *testing.T) {
	srv := &legacyTasksMem{status: doneAfter(1)}
	var added atomic.Bool
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "tools/list" && added.Load() {
			c.reply(m, `{"tools":[{"name":"plain","inputSchema":{"type":"object"}},`+
				`{"name":"later","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`)
			return nil
		}
		if m.Method == "tools/call" && strings.Contains(string(m.Params), `"name":"later"`) && !strings.Contains(string(m.Params), `"task"`) {
			c.replyError(m, CodeMethodNotFound, `"Tool later requires task augmentation (taskSupport: 'required')"`)
			return nil
		}
		return srv.serve(c, ctx, m)
	})
	changed := make(chan struct{}, 1)
	s, err := Connect(context.Background(), conn, &Options{OnToolsChanged: func() { changed <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The first call learns which tools need tasks.
	if _, err := s.CallTool(context.Background(), "plain", nil); err != nil {
		t.Fatalf("CallTool(plain) = %v", err)
	}
	added.Store(true)
	conn.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	select {
	case <-changed:
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("the list change was not seen")
	}
	res, err := s.CallTool(context.Background(), "later", nil)
	if err != nil || res.Text() != "Completed 100ms delay" {
		t.Fatalf("CallTool(later) = %v, %v; want the task's result", res, err)
	}
	calls := conn.paramsOf("tools/call")
	if last := calls[len(calls)-1]; !strings.Contains(string(last), `"task":{}`) {
		t.Errorf("tools/call params %s, want a task-augmented call", last)
	}
}

// TestModernTaskCancelledWhileCreated: a 2026-07-28 call cancelled while
// the server, which declared the tasks extension, creates its task still
// learns the task's id from the answer and cancels the task (tasks/cancel),
// as a 2025-11-25 call does, instead of leaving it running on the server.
func TestModernTaskCancelledWhileCreated(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &modernTasksMem{status: func(int) string { return TaskWorking }}
	conn := newMemConn(func(c *memConn, wctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"ttlMs":0,"cacheScope":"public"}`)
			return nil
		case "tools/call":
			cancel() // the user gives up while the task is being created
		}
		return srv.serve(c, wctx, m)
	})
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.CallTool(ctx, "slow_compute", nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool = %v, want the cancellation", err)
	}
	cancels := conn.paramsOf("tasks/cancel")
	if len(cancels) != 1 || !strings.Contains(string(cancels[0]), `"taskId":"t-1"`) {
		t.Errorf("tasks/cancel %s, want one for t-1; methods %v", cancels, conn.methods())
	}

	// The grace keeps the call's own deadline: a call given more time than
	// Options.CallTimeout still waits for its answer.
	slow := newMemConn(func(c *memConn, wctx context.Context, m memMsg) error {
		if m.Method == "tools/call" {
			go func() {
				time.Sleep(300 * time.Millisecond) // longer than CallTimeout
				c.reply(m, `{"resultType":"complete","content":[{"type":"text","text":"late"}]}`)
			}()
			return nil
		}
		return conn.serve(c, wctx, m)
	})
	s2, err := Connect(context.Background(), slow, &Options{CallTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	dctx, dcancel := context.WithTimeout(context.Background(), testenv.WaitLimit(t))
	defer dcancel()
	if res, err := s2.CallTool(dctx, "greet", nil); err != nil || res.Text() != "late" {
		t.Errorf("CallTool with a deadline past CallTimeout = %v, %v; want the late answer", res, err)
	}
}

// heldTasksMem is a modernTasksMem whose answers to the methods in hold are
// not sent but passed on held, for the test to send when it chooses.
func heldTasksMem(srv *modernTasksMem, hold map[string]bool, held chan<- memMsg) func(c *memConn, ctx context.Context, m memMsg) error {
	return modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if hold[m.Method] {
			held <- m
			return nil
		}
		return srv.serve(c, ctx, m)
	})
}

// TestTaskOutcomeFirstSeenStays: a Cancel and a wait that race keep the
// outcome seen first. A task that completed while its tasks/cancel was
// unanswered stays completed; a task cancelled while a tasks/get was
// unanswered stays cancelled, whatever that tasks/get then says.
func TestTaskOutcomeFirstSeenStays(t *testing.T) {
	final := `"result":{"content":[{"type":"text","text":"done"}],"isError":false}`
	start := func(t *testing.T, hold string) (*Task, chan memMsg, *memConn) {
		held := make(chan memMsg, 1)
		srv := &modernTasksMem{status: doneAfter(1), final: final}
		conn := newMemConn(heldTasksMem(srv, map[string]bool{hold: true}, held))
		s, err := Connect(context.Background(), conn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		task, err := s.StartToolTask(context.Background(), "slow_compute", nil)
		if err != nil {
			t.Fatal(err)
		}
		return task, held, conn
	}
	t.Run("completed while cancelling", func(t *testing.T) {
		ctx := testenv.Context(t)
		task, held, conn := start(t, "tasks/cancel")
		cancelled := make(chan error, 1)
		go func() { cancelled <- task.Cancel(ctx) }()
		m := <-held
		res, err := task.Wait(ctx)
		if err != nil || res.Text() != "done" {
			t.Fatalf("Wait = %v, %v; want the result", res, err)
		}
		conn.reply(m, `{"resultType":"complete"}`)
		if err := <-cancelled; err != nil {
			t.Fatalf("Cancel = %v", err)
		}
		if res, err := task.Wait(ctx); err != nil || res.Text() != "done" {
			t.Errorf("Wait after the Cancel = %v, %v; want the result seen first", res, err)
		}
	})
	t.Run("cancelled while polling", func(t *testing.T) {
		ctx := testenv.Context(t)
		task, held, conn := start(t, "tasks/get")
		got := make(chan error, 1)
		go func() {
			_, err := task.Get(ctx)
			got <- err
		}()
		m := <-held
		if err := task.Cancel(ctx); err != nil {
			t.Fatalf("Cancel = %v", err)
		}
		conn.reply(m, `{"resultType":"complete","taskId":"t-1","status":"completed","ttlMs":60000,`+final+`}`)
		if err := <-got; err != nil {
			t.Fatalf("Get = %v", err)
		}
		if res, err := task.Wait(ctx); err == nil || !strings.Contains(err.Error(), "was cancelled") {
			t.Errorf("Wait after the Cancel = %v, %v; want the cancellation seen first", res, err)
		}
	})
}

// TestTaskIDReusedWhileRunning: a server that names a new task with the id
// of a task of the Session still running fails the second call with an
// error naming the id, in both eras, and leaves the first task as it was.
// Once the first task has ended, its id may name a new one.
func TestTaskIDReusedWhileRunning(t *testing.T) {
	for _, tc := range []struct {
		era  string
		conn *memConn
		tool string
	}{
		{"legacy", newMemConn((&legacyTasksMem{status: doneAfter(2)}).serve), "delay"},
		{"modern", newMemConn(modernMem((&modernTasksMem{status: doneAfter(2), final: `"result":{"content":[{"type":"text","text":"Completed 100ms delay"}]}`}).serve)), "slow_compute"},
	} {
		t.Run(tc.era, func(t *testing.T) {
			ctx := testenv.Context(t)
			s, err := Connect(ctx, tc.conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			first, err := s.StartToolTask(ctx, tc.tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.StartToolTask(ctx, tc.tool, nil)
			want := `calling ` + tc.tool + `: the server named the new task "t-1", the id of a task still running`
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("second StartToolTask = %v; want an error containing %q", err, want)
			}
			if n := len(tc.conn.paramsOf("tasks/cancel")); n != 0 {
				t.Errorf("%d tasks/cancel sent; the id names the first task", n)
			}
			if res, err := first.Wait(ctx); err != nil || res.Text() != "Completed 100ms delay" {
				t.Errorf("first task's Wait = %v, %v", res, err)
			}
			if _, err := s.StartToolTask(ctx, tc.tool, nil); err != nil {
				t.Errorf("StartToolTask once the first task ended = %v", err)
			}
		})
	}
}
