package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// Task statuses, as the server reports them.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// Tool taskSupport values (the execution.taskSupport of a 2025-11-25 tool).
const (
	TaskSupportForbidden = "forbidden"
	TaskSupportOptional  = "optional"
	TaskSupportRequired  = "required"
)

// tasksExtension is the 2026-07-28 tasks extension's identifier.
const tasksExtension = "io.modelcontextprotocol/tasks"

// Bounds of the polling of a task.
const (
	// DefaultTaskTimeout is the default of Options.TaskTimeout.
	DefaultTaskTimeout = 30 * time.Minute
	// minTaskPoll and maxTaskPoll bound the interval between two tasks/get
	// requests, whatever the server suggests; defaultTaskPoll applies when
	// it suggests nothing.
	minTaskPoll     = 100 * time.Millisecond
	maxTaskPoll     = 10 * time.Second
	defaultTaskPoll = 500 * time.Millisecond
	// taskCancelTimeout bounds the tasks/cancel sent for a call whose
	// context ended.
	taskCancelTimeout = 5 * time.Second
)

// TaskSupport returns the tool's execution.taskSupport: TaskSupportRequired,
// TaskSupportOptional, or TaskSupportForbidden when the tool says nothing
// (or something this client does not know). The members are matched by
// their exact names, as the tool's other members are: "TaskSupport" is
// another member, which encoding/json would have taken for taskSupport.
func (t *Tool) TaskSupport() string {
	var tool, execution map[string]json.RawMessage
	var ts string
	if json.Unmarshal(t.Raw, &tool) != nil || json.Unmarshal(tool["execution"], &execution) != nil || json.Unmarshal(execution["taskSupport"], &ts) != nil {
		return TaskSupportForbidden
	}
	switch ts {
	case TaskSupportRequired, TaskSupportOptional:
		return ts
	}
	return TaskSupportForbidden
}

// TaskState is what the server last said about a task.
type TaskState struct {
	// Status is one of TaskWorking, TaskInputRequired, TaskCompleted,
	// TaskFailed and TaskCancelled.
	Status string
	// StatusMessage describes the status, if the server said something.
	StatusMessage string
	// CreatedAt and LastUpdatedAt are the server's ISO 8601 timestamps.
	CreatedAt     string
	LastUpdatedAt string
	// TTL is how long the server keeps the task; zero when it did not say
	// or keeps it for ever. A value too large for a time.Duration is
	// clamped to the largest one (about 292 years), as is PollInterval.
	TTL time.Duration
	// PollInterval is the interval between polls the server suggests; zero
	// when it suggests none. Task.Wait polls at least every 10 seconds and
	// at most every 100 milliseconds, whatever the server suggests.
	PollInterval time.Duration
	// InputRequests is the map of requests a 2026-07-28 task in status
	// TaskInputRequired waits for, exactly as the server sent it. Task.Wait
	// answers them with the Options handlers; Task.Update answers them by
	// hand.
	InputRequests json.RawMessage
}

// Terminal reports whether the status is final.
func (s TaskState) Terminal() bool {
	return s.Status == TaskCompleted || s.Status == TaskFailed || s.Status == TaskCancelled
}

// TaskError reports a task that ended without a result: it failed, it was
// cancelled, or the server no longer knows it. Its fields hold what the
// server sent whole; Error quotes the task id and the message escaped and
// cut, as redact.Quote does, with the credentials of the connection
// scrubbed.
type TaskError struct {
	Tool   string
	TaskID string
	// Status is the task's last status; empty when the server lost it.
	Status  string
	Message string
	// Err is the server's error, if it sent one.
	Err error

	scrub func(string) string // the Session's, nil for none
}

func (e *TaskError) Error() string {
	what := fmt.Sprintf("task %s of tool %s", quoteScrubbed(e.scrub, e.TaskID), e.Tool)
	var s string
	switch e.Status {
	case "":
		s = what + ": the server no longer knows the task"
	case TaskCancelled:
		s = what + " was cancelled"
	default:
		s = what + " " + e.Status
	}
	if e.Message != "" {
		s += ": " + quoteScrubbed(e.scrub, e.Message)
	}
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s
}

func (e *TaskError) Unwrap() error { return e.Err }

// scrubFunc returns the function that scrubs the credentials of the task's
// Session from a string, or nil when it has none.
func (t *Task) scrubFunc() func(string) string {
	if t.s == nil {
		return nil
	}
	return t.s.scrub
}

// resultError returns a *ToolError for a result whose IsError flag is set,
// as ResultError does, which scrubs the credentials of the task's Session
// from its message; nil otherwise.
func (t *Task) resultError(r *Result) error {
	if r != nil && r.IsError {
		return &ToolError{Tool: t.Tool, Result: r, scrub: t.scrubFunc()}
	}
	return nil
}

// quote returns text the server sent about the task as an error string
// quotes it (see Session.quote).
func (t *Task) quote(str string) string {
	return quoteScrubbed(t.scrubFunc(), str)
}

// A Task is a tool call the server runs in the background: a 2025-11-25
// task-augmented tools/call, or a 2026-07-28 call the server answered with
// resultType "task". Its methods are safe for use by many goroutines.
type Task struct {
	// ID is the server's task id; empty when the server answered the call
	// at once instead of creating a task.
	ID string
	// Tool is the name of the tool called.
	Tool string

	s      *Session
	legacy bool
	// token is the progress token of the call that created the task, zero
	// when none was asked for.
	token int64

	// inputMu makes one wait at a time answer the task's input requests.
	inputMu sync.Mutex

	mu    sync.Mutex
	state TaskState
	input taskInput
	// last is the last progress notification about the task.
	last Progress
	// done is set once the outcome (res, err) is known.
	done bool
	res  *Result
	err  error
}

// Status returns what the server last said about the task.
func (t *Task) Status() TaskState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// taskSlot receives the Task a tools/call created, for StartToolTask.
type taskSlot struct{ task *Task }

type taskSlotKey struct{}

// errTaskStarted ends a call made for StartToolTask once its Task exists.
var errTaskStarted = errors.New("task started")

// errTaskResult is returned by decodeResult for a result of type "task".
var errTaskResult = errors.New(`result of type "task"`)

// StartToolTask calls the tool name with args (as CallTool does) as a task,
// and returns the Task without waiting for it to finish: poll it with
// Task.Get, wait with Task.Wait, stop it with Task.Cancel.
//
// A 2025-11-25 server that declares tasks.requests.tools.call runs the call
// as a task unless the tool's taskSupport forbids it, which is an error. A
// 2026-07-28 server decides by itself. When the server answers at once
// instead (as a server without tasks does), the Task has no ID and Wait
// returns that answer.
//
// A task started with a progress function in ctx (WithProgress) keeps it
// until Wait has seen the task end, or Cancel. A Session keeps the
// functions of at most 4,096 such tasks: past that, the oldest task's
// progress notifications are no longer passed to its function.
func (s *Session) StartToolTask(ctx context.Context, name string, args any) (*Task, error) {
	slot := &taskSlot{}
	res, err := s.callTool(context.WithValue(ctx, taskSlotKey{}, slot), name, args)
	if slot.task != nil {
		return slot.task, nil
	}
	var te *ToolError
	if err != nil && !errors.As(err, &te) {
		return nil, err
	}
	return &Task{Tool: name, s: s, done: true, res: res, err: err, state: TaskState{Status: TaskCompleted}}, nil
}

// toolTaskSupport returns the taskSupport of the tool name, listing the
// tools when they were not listed yet.
func (s *Session) toolTaskSupport(ctx context.Context, name string) string {
	m := s.taskSupport.Load()
	if m == nil {
		s.listMu.Lock()
		if s.taskSupport.Load() == nil {
			if _, err := s.ListTools(ctx); err != nil {
				var de *DriftError
				if !errors.As(err, &de) {
					s.log.Warn("could not list the tools to learn which must run as tasks", "tool", name, "error", s.scrub(err.Error()))
					empty := map[string]string{}
					s.taskSupport.CompareAndSwap(nil, &empty)
				}
			}
		}
		s.listMu.Unlock()
		if m = s.taskSupport.Load(); m == nil {
			return TaskSupportForbidden
		}
	}
	if ts, ok := (*m)[name]; ok {
		return ts
	}
	return TaskSupportForbidden
}

// learnTaskSupport records the taskSupport of listed tools that allow tasks.
func (s *Session) learnTaskSupport(tools []Tool) {
	m := make(map[string]string)
	for i := range tools {
		if ts := tools[i].TaskSupport(); ts != TaskSupportForbidden {
			m[tools[i].Name] = ts
		}
	}
	s.taskSupport.Store(&m)
}

// legacyTaskCall runs a call to a 2025-11-25 server that declared
// task-augmented tools/call as a task, when the tool requires it or
// StartToolTask asks for one. ok is false when the call is an ordinary one.
func (s *Session) legacyTaskCall(ctx context.Context, st *negotiated, name string, raw []byte) (res *Result, ok bool, err error) {
	slot, _ := ctx.Value(taskSlotKey{}).(*taskSlot)
	ts := s.toolTaskSupport(ctx, name)
	switch {
	case ts == TaskSupportRequired:
	case slot != nil && ts == TaskSupportOptional:
	case slot != nil:
		return nil, true, fmt.Errorf("calling %s as a task: the tool forbids tasks (its execution.taskSupport is %s or absent)", name, s.quote(ts))
	default:
		return nil, false, nil
	}
	fn := ProgressFrom(ctx)
	id := s.nextID.Add(1)
	t := &Task{Tool: name, s: s, legacy: true}
	if fn != nil {
		// The call's progress token stays valid for the task's lifetime.
		t.token = id
		s.routeTaskProgress(id, func(p Progress) {
			t.mu.Lock()
			t.last = p
			t.mu.Unlock()
			fn(p)
		})
	}
	// The answer names the task, which must be cancelled once ctx has
	// ended: cut short, the request would leave the task running on the
	// server. So the request outlives ctx by a moment.
	cctx, stop := graceContext(ctx, taskCreateGrace)
	defer stop()
	data, err := s.do(cctx, st, &request{method: "tools/call", name: name, progress: fn, id: id}, func(b []byte) []byte {
		b = append(b, `"name":`...)
		b = jsonrpc.AppendString(b, name)
		if raw != nil {
			b = append(b, `,"arguments":`...)
			b = append(b, raw...)
		}
		return append(b, `,"task":{}`...)
	})
	if err == nil {
		var w wireTask
		if err = json.Unmarshal(data, &w); err == nil && w.Task == nil {
			err = errors.New("the result holds no task")
		} else if err == nil {
			err = t.setState(w.Task)
		}
		if err != nil {
			err = fmt.Errorf("malformed CreateTaskResult: %w", err)
		}
	}
	if err != nil {
		t.forget()
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			err = ctx.Err() // the grace ended too
		}
		return nil, true, fmt.Errorf("calling %s: %w", name, err)
	}
	if err := s.trackTask(t); err != nil {
		t.forget()
		return nil, true, fmt.Errorf("calling %s: %w", name, err)
	}
	res, err = s.taskCreated(ctx, t, slot)
	return res, true, err
}

// taskCreateGrace is how long the request that creates a task may go on
// after the call's context ended, for its answer to name the task to cancel.
const taskCreateGrace = 2 * time.Second

// graceContext returns a context with ctx's values that ends grace after
// ctx does, or when stop is called.
func graceContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var timer *time.Timer
	unwatch := context.AfterFunc(ctx, func() {
		mu.Lock()
		timer = time.AfterFunc(grace, cancel)
		mu.Unlock()
	})
	return gctx, func() {
		unwatch()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel()
	}
}

// modernTaskCall takes over a 2026-07-28 call the server answered with a
// result of type "task".
func (s *Session) modernTaskCall(ctx context.Context, name string, data []byte) (*Result, error) {
	var w wireTask
	t := &Task{Tool: name, s: s}
	err := json.Unmarshal(data, &w)
	if err == nil {
		err = t.setState(&w)
	}
	if err != nil {
		return nil, fmt.Errorf("calling %s: malformed task result: %w", name, err)
	}
	if err := s.trackTask(t); err != nil {
		return nil, fmt.Errorf("calling %s: %w", name, err)
	}
	slot, _ := ctx.Value(taskSlotKey{}).(*taskSlot)
	return s.taskCreated(ctx, t, slot)
}

// taskCreated hands a new task to StartToolTask, or waits for its result,
// cancelling it when ctx ends first.
func (s *Session) taskCreated(ctx context.Context, t *Task, slot *taskSlot) (*Result, error) {
	if slot != nil {
		slot.task = t
		return nil, errTaskStarted
	}
	wctx := ctx
	if _, ok := ctx.Deadline(); !ok && s.opts.TaskTimeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, s.opts.TaskTimeout)
		defer cancel()
	}
	res, err := t.Wait(wctx)
	if err == nil || t.finished() {
		return res, err
	}
	// The wait ended before the task did: the task is of no more use.
	if cerr := t.Cancel(context.WithoutCancel(ctx)); cerr != nil {
		s.log.Debug("cancelling a task failed", "tool", t.Tool, "task", s.scrub(t.ID), "error", s.scrub(cerr.Error()))
	}
	// The wait's end is the cause, whether it came while waiting between
	// polls or during a tasks/get, whose own error would say which.
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case wctx.Err() != nil:
		err = &TimeoutError{Method: "tools/call", Name: t.Tool, Timeout: s.opts.TaskTimeout}
	}
	return nil, fmt.Errorf("calling %s: task %s cancelled: %w", t.Tool, t.quote(t.ID), err)
}

// wireTask is a task as 2025-11-25 (ttl, pollInterval) and 2026-07-28
// (ttlMs, pollIntervalMs, result, error, inputRequests) send it; Task holds
// the task of a 2025-11-25 CreateTaskResult.
type wireTask struct {
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTL            *wireMillis     `json:"ttl"`
	TTLMs          *wireMillis     `json:"ttlMs"`
	PollInterval   *wireMillis     `json:"pollInterval"`
	PollIntervalMs *wireMillis     `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result"`
	Error          json.RawMessage `json:"error"`
	InputRequests  json.RawMessage `json:"inputRequests"`
	Task           *wireTask       `json:"task"`
}

// wireMillis is a count of milliseconds a server sent. One beyond a
// float64's range (1e400) reads as ±Inf, which millis clamps as it clamps
// 1e300, instead of making the whole task malformed.
type wireMillis float64

// UnmarshalJSON reads a JSON number; anything else fails as it fails for a
// float64.
func (m *wireMillis) UnmarshalJSON(data []byte) error {
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return json.Unmarshal(data, (*float64)(m))
	}
	*m = wireMillis(f)
	return nil
}

// maxDuration is the largest time.Duration, about 292 years.
const maxDuration = time.Duration(math.MaxInt64)

// millis converts the first positive count of milliseconds in v to a
// duration. A count too large for a time.Duration is clamped to
// maxDuration: a server's huge interval must not wrap around to a short
// one.
func millis(v ...*wireMillis) time.Duration {
	for _, m := range v {
		if m == nil || !(*m > 0) {
			continue
		}
		if f := float64(*m); f < float64(maxDuration/time.Millisecond) {
			return time.Duration(f * float64(time.Millisecond))
		}
		return maxDuration
	}
	return 0
}

// setState records what the server said about the task.
func (t *Task) setState(w *wireTask) error {
	if w.TaskID == "" {
		return errors.New("no taskId")
	}
	switch w.Status {
	case TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled:
	default:
		return fmt.Errorf("task %s has unknown status %s", t.quote(w.TaskID), t.quote(w.Status))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ID == "" {
		t.ID = w.TaskID
	} else if w.TaskID != t.ID {
		return fmt.Errorf("asked about task %s, the server answered about task %s", t.quote(t.ID), t.quote(w.TaskID))
	}
	t.state = TaskState{
		Status:        w.Status,
		StatusMessage: w.StatusMessage,
		CreatedAt:     w.CreatedAt,
		LastUpdatedAt: w.LastUpdatedAt,
		TTL:           millis(w.TTLMs, w.TTL),
		PollInterval:  millis(w.PollIntervalMs, w.PollInterval),
		InputRequests: w.InputRequests,
	}
	return nil
}

// pollWait returns the wait before the next tasks/get: the interval the
// server suggests, bounded by minTaskPoll and maxTaskPoll, or
// defaultTaskPoll when it suggests none.
func pollWait(st TaskState) time.Duration {
	if st.PollInterval == 0 {
		return defaultTaskPoll
	}
	return min(max(st.PollInterval, minTaskPoll), maxTaskPoll)
}

func (t *Task) finished() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.done
}

// finish records the task's outcome and stops routing its progress, and
// returns the outcome. The outcome seen first stays: a Cancel that races a
// wait which saw the task end, or a tasks/get answered after a Cancel,
// does not replace it.
func (t *Task) finish(res *Result, err error) (*Result, error) {
	t.mu.Lock()
	if !t.done {
		t.done, t.res, t.err = true, res, err
	}
	res, err = t.res, t.err
	t.mu.Unlock()
	t.forget()
	return res, err
}

func (t *Task) forget() {
	if t.token != 0 {
		t.s.unrouteTaskProgress(t.token)
	}
	t.s.untrackTask(t)
}

// maxLiveTasks bounds the tasks a Session keeps by id to notice an id
// reused: the tasks created while it holds that many go unchecked, so that
// tasks started and never waited for do not grow it without end. It bounds
// the progress functions of running tasks too (see routeTaskProgress).
const maxLiveTasks = 4096

// routeTaskProgress passes the progress the server sends under token to fn
// until unrouteTaskProgress. Of the tasks started and never waited for or
// cancelled, the newest maxLiveTasks keep their functions: at the limit the
// oldest route is dropped, and that task's progress notifications are no
// longer passed on (Wait still passes on its status messages).
func (s *Session) routeTaskProgress(token int64, fn func(Progress)) {
	s.tasksMu.Lock()
	defer s.tasksMu.Unlock()
	s.taskProgress.Store(token, fn)
	s.progressRoutes++
	s.progressOrder = append(s.progressOrder, token)
	for s.progressRoutes > maxLiveTasks && len(s.progressOrder) > 0 {
		oldest := s.progressOrder[0]
		s.progressOrder = s.progressOrder[1:]
		if _, ok := s.taskProgress.LoadAndDelete(oldest); ok {
			s.progressRoutes--
		}
	}
	if len(s.progressOrder) > 2*s.progressRoutes+64 {
		// Most tokens in the order were unrouted since: keep the others.
		kept := make([]int64, 0, s.progressRoutes)
		for _, tok := range s.progressOrder {
			if _, ok := s.taskProgress.Load(tok); ok {
				kept = append(kept, tok)
			}
		}
		s.progressOrder = kept
	}
}

// unrouteTaskProgress stops passing on the progress sent under token.
func (s *Session) unrouteTaskProgress(token int64) {
	s.tasksMu.Lock()
	defer s.tasksMu.Unlock()
	if _, ok := s.taskProgress.LoadAndDelete(token); ok {
		s.progressRoutes--
	}
}

// trackTask records t, a task the server just created, as running. An id
// that names a task of the Session still running is an error: the two
// Task values would reach the same task on the server, so that the
// polling, the result or the cancellation of one would be the other's.
func (s *Session) trackTask(t *Task) error {
	s.tasksMu.Lock()
	defer s.tasksMu.Unlock()
	if other := s.liveTasks[t.ID]; other != nil && other != t {
		if !other.finished() && !other.Status().Terminal() {
			return fmt.Errorf("the server named the new task %s, the id of a task still running (of tool %s)", s.quote(t.ID), other.Tool)
		}
		delete(s.liveTasks, t.ID)
	}
	if s.liveTasks == nil {
		s.liveTasks = make(map[string]*Task)
	}
	if len(s.liveTasks) < maxLiveTasks {
		s.liveTasks[t.ID] = t
	}
	return nil
}

// untrackTask forgets t, whose outcome is known, or which failed to start.
func (s *Session) untrackTask(t *Task) {
	s.tasksMu.Lock()
	defer s.tasksMu.Unlock()
	if s.liveTasks[t.ID] == t {
		delete(s.liveTasks, t.ID)
	}
}

// taskRequest sends method about the task, with members after taskId, and
// returns its result. Each is bounded by Options.CallTimeout as well.
func (t *Task) taskRequest(ctx context.Context, method string, timeout time.Duration, members func(b []byte) []byte) ([]byte, error) {
	s := t.s
	if timeout == 0 {
		timeout = s.opts.CallTimeout
	}
	return s.do(ctx, s.state.Load(), &request{method: method, name: t.ID, timeout: timeout}, func(b []byte) []byte {
		b = append(b, `"taskId":`...)
		b = jsonrpc.AppendString(b, t.ID)
		if members != nil {
			b = members(b)
		}
		return b
	})
}

// Get asks the server for the task's state (tasks/get).
func (t *Task) Get(ctx context.Context) (TaskState, error) {
	if t.ID == "" {
		return t.Status(), nil
	}
	data, err := t.taskRequest(ctx, "tasks/get", 0, nil)
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) {
			return TaskState{}, &TaskError{Tool: t.Tool, TaskID: t.ID, Err: fmt.Errorf("tasks/get: %w", err), scrub: t.scrubFunc()}
		}
		return TaskState{}, fmt.Errorf("task %s of tool %s: tasks/get: %w", t.quote(t.ID), t.Tool, err)
	}
	var w wireTask
	if err := json.Unmarshal(data, &w); err != nil {
		return TaskState{}, fmt.Errorf("task %s of tool %s: malformed tasks/get result: %w", t.quote(t.ID), t.Tool, err)
	}
	if err := t.setState(&w); err != nil {
		return TaskState{}, fmt.Errorf("task %s of tool %s: malformed tasks/get result: %w", t.quote(t.ID), t.Tool, err)
	}
	st := t.Status()
	if !t.legacy && st.Terminal() {
		t.finish(t.inlined(&w))
	}
	return st, nil
}

// inlined returns the outcome a 2026-07-28 tasks/get inlines for a
// terminal task.
func (t *Task) inlined(w *wireTask) (*Result, error) {
	switch w.Status {
	case TaskCompleted:
		if len(w.Result) == 0 || jsonrpc.IsNull(w.Result) {
			return nil, &TaskError{Tool: t.Tool, TaskID: t.ID, Status: TaskCompleted, Message: "the server sent no result", scrub: t.scrubFunc()}
		}
		res, more, err := decodeResult(w.Result)
		if err == nil && more != nil {
			err = errors.New(`the result is of type "input_required"`)
		}
		if err != nil {
			return nil, fmt.Errorf("task %s of tool %s: %w", t.quote(t.ID), t.Tool, err)
		}
		return res, t.resultError(res)
	case TaskFailed:
		te := &TaskError{Tool: t.Tool, TaskID: t.ID, Status: TaskFailed, Message: w.StatusMessage, scrub: t.scrubFunc()}
		if len(w.Error) > 0 && !jsonrpc.IsNull(w.Error) {
			te.Err = t.s.decodeRPCError(w.Error)
		}
		return nil, te
	default:
		return nil, &TaskError{Tool: t.Tool, TaskID: t.ID, Status: w.Status, Message: w.StatusMessage, scrub: t.scrubFunc()}
	}
}

// Wait polls the task until it ends, at the interval the server suggests
// (within 100ms and 10s), and returns its result as CallTool would. It
// passes each new status message to the function WithProgress put in ctx,
// with the amounts of the last progress notification (zero before the
// first).
// When ctx ends first, Wait returns its error and the task goes on: Cancel
// stops it.
//
// A task that asks for input while it runs is answered by the Options
// handlers (Elicitation, Sampling, Roots): a 2025-11-25 server sends its
// requests while tasks/result waits; the input requests of a 2026-07-28 task
// are answered with tasks/update, each once, and at most maxInputRounds (10)
// times per task (then Wait fails with an *InputRoundsError), a round of
// more than maxInputRequests (64) requests failing Wait. A request no
// handler serves, or a sampling or roots handler's error, ends Wait with an
// error naming the request, the task going on; an elicitation handler's
// error declines.
func (t *Task) Wait(ctx context.Context) (*Result, error) {
	fn := ProgressFrom(ctx)
	var said string
	var timer *time.Timer
	for {
		t.mu.Lock()
		done, res, err, st, last := t.done, t.res, t.err, t.state, t.last
		t.mu.Unlock()
		if fn != nil && st.StatusMessage != "" && st.StatusMessage != said {
			said = st.StatusMessage
			fn(Progress{Progress: last.Progress, Total: last.Total, Message: said})
		}
		if done {
			return res, err
		}
		switch {
		case t.legacy && (st.Terminal() || st.Status == TaskInputRequired):
			// tasks/result waits for the end, and carries the requests
			// the server makes of the client meanwhile.
			res, err := t.result(ctx, st)
			if err != nil && ctx.Err() != nil {
				// The wait ended, not the task: it goes on, and
				// Cancel can still stop it.
				return nil, err
			}
			return t.finish(res, err)
		case st.Status == TaskInputRequired && len(st.InputRequests) > 0 && !jsonrpc.IsNull(st.InputRequests):
			// The answers reach the task with tasks/update; the next
			// tasks/get shows what it does with them.
			if err := t.answerInput(ctx, st.InputRequests); err != nil {
				return nil, err
			}
			if t.finished() {
				continue
			}
		}
		wait := pollWait(st)
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		} else {
			timer.Reset(wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
		if _, err := t.Get(ctx); err != nil {
			var te *TaskError
			if errors.As(err, &te) {
				return t.finish(nil, err)
			}
			return nil, err
		}
	}
}

// result fetches a 2025-11-25 task's outcome with tasks/result, which
// blocks until the task ends and so is bounded by ctx alone.
func (t *Task) result(ctx context.Context, st TaskState) (*Result, error) {
	data, err := t.taskRequest(ctx, "tasks/result", -1, nil)
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) {
			status := st.Status
			if status == TaskInputRequired || status == TaskWorking {
				status = TaskFailed
			}
			return nil, &TaskError{Tool: t.Tool, TaskID: t.ID, Status: status, Message: st.StatusMessage, Err: err, scrub: t.scrubFunc()}
		}
		return nil, fmt.Errorf("task %s of tool %s: tasks/result: %w", t.quote(t.ID), t.Tool, err)
	}
	res, more, err := decodeResult(data)
	if err == nil && more != nil {
		err = errors.New(`the result is of type "input_required"`)
	}
	if err != nil {
		return nil, fmt.Errorf("task %s of tool %s: tasks/result: %w", t.quote(t.ID), t.Tool, err)
	}
	if st.Status == TaskCancelled && len(res.Content) == 0 && res.StructuredContent == nil {
		return nil, &TaskError{Tool: t.Tool, TaskID: t.ID, Status: TaskCancelled, Message: st.StatusMessage, scrub: t.scrubFunc()}
	}
	return res, t.resultError(res)
}

// Cancel asks the server to cancel the task (tasks/cancel). A task that
// already ended is left as it is.
func (t *Task) Cancel(ctx context.Context) error {
	if t.ID == "" || t.finished() {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, taskCancelTimeout)
	defer cancel()
	_, err := t.taskRequest(cctx, "tasks/cancel", -1, nil)
	t.finish(nil, &TaskError{Tool: t.Tool, TaskID: t.ID, Status: TaskCancelled, Message: "cancelled by the client", scrub: t.scrubFunc()})
	if err != nil {
		return fmt.Errorf("task %s of tool %s: tasks/cancel: %w", t.quote(t.ID), t.Tool, err)
	}
	return nil
}

// Update answers the input requests of a 2026-07-28 task in status
// TaskInputRequired (tasks/update). responses is the inputResponses object,
// keyed as TaskState.InputRequests is.
func (t *Task) Update(ctx context.Context, responses json.RawMessage) error {
	if t.legacy {
		return fmt.Errorf("task %s of tool %s: tasks/update needs protocol version 2026-07-28", t.quote(t.ID), t.Tool)
	}
	if t.ID == "" {
		return fmt.Errorf("tool %s: the call ended without a task", t.Tool)
	}
	if !json.Valid(responses) || jsonrpc.TrimSpace(responses)[0] != '{' {
		return fmt.Errorf("task %s of tool %s: the input responses are not a JSON object", t.quote(t.ID), t.Tool)
	}
	raw, err := marshalArgs(responses)
	if err != nil {
		return fmt.Errorf("task %s of tool %s: input responses: %w", t.quote(t.ID), t.Tool, err)
	}
	_, err = t.taskRequest(ctx, "tasks/update", 0, func(b []byte) []byte {
		b = append(b, `,"inputResponses":`...)
		return append(b, raw...)
	})
	if err != nil {
		return fmt.Errorf("task %s of tool %s: tasks/update: %w", t.quote(t.ID), t.Tool, err)
	}
	t.answered(raw)
	return nil
}

// taskProgressFor returns the progress function of the task created by the
// request whose progress token is token.
func (s *Session) taskProgressFor(token int64) func(Progress) {
	if fn, ok := s.taskProgress.Load(token); ok {
		return fn.(func(Progress))
	}
	return nil
}
