package gemini

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/textcut"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// maxTakenIDs bounds the IDs of the calls a Live ran or refused that it
// keeps, to tell a toolCallCancellation of them from one of the
// application's calls.
const maxTakenIDs = 1024

// DefaultMaxLiveCalls is the number of function calls a Live runs at once
// when LiveOptions.MaxCalls is zero.
const DefaultMaxLiveCalls = 16

// ErrGoAway is wrapped by the error Run returns when the session ended
// after the server announced it with a goAway message. The caller may open
// a new session, resuming this one with Live.ResumptionHandle.
var ErrGoAway = errors.New("the Live API server went away")

// LiveOptions tune a Live. A nil *LiveOptions means the zero value. Tools
// are named by their MCP names.
type LiveOptions struct {
	// NonBlocking are tools to declare NON_BLOCKING: the model goes on
	// talking while they run, and hears their result when it comes (see
	// Scheduling). Tools whose execution.taskSupport is "required" are
	// NON_BLOCKING too, unless Blocking names them. On the Gemini API,
	// only the 2.5 Flash Live models take asynchronous calls
	// (https://ai.google.dev/gemini-api/docs/live-api/tools); Vertex AI
	// documents its own handling of them rather than this behavior
	// (https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/live-api/asynchronous-function-calling).
	NonBlocking []string
	// Blocking are tools whose taskSupport is "required" that are to be
	// declared blocking all the same.
	Blocking []string
	// Scheduling says, per tool, how the model takes the response of a
	// NON_BLOCKING call: genai.FunctionResponseSchedulingWhenIdle (the
	// default) once it is idle, ...Interrupt at once, ...Silent without
	// speaking of it. Blocking calls carry no scheduling.
	Scheduling map[string]genai.FunctionResponseScheduling
	// Progress streams the progress notifications of NON_BLOCKING calls
	// (MCP progress, task status) to the model, each as a response with
	// WillContinue set and the scheduling SILENT, before the final
	// response. Only the Gemini Developer API supports WillContinue:
	// genai refuses to send it to Vertex AI, so leave Progress off there.
	Progress bool
	// MaxCalls bounds the function calls running at once; zero means
	// DefaultMaxLiveCalls. A call beyond it is not run: its response says
	// so, and the model may try again.
	MaxCalls int
	// MaxSteps bounds the toolCall messages of one model turn (up to the
	// turnComplete or interrupted of its server content); zero means
	// DefaultMaxSteps. The calls of the toolCall past it are not run: their
	// responses say why.
	MaxSteps int
	// Model is the model the session was connected to, such as
	// "gemini-2.5-flash-native-audio-preview-09-2025". The images of a
	// tool's result are attached to its response only when the model
	// takes them (see TakesImages); otherwise, and when Model is empty,
	// they are described in the text as not shown, since a model that
	// does not take them refuses the whole response.
	Model string
	// AppFunctions names the functions the application declared itself in
	// the session's configuration, beside the toolset's LiveTools. Live
	// neither runs nor answers their calls: they reach Run's handle in
	// the message's ToolCall, and so do the IDs of a toolCallCancellation
	// that are not of a call Live runs, ran or refused (of its last
	// 1,024 calls); the application answers them with
	// Live.SendToolResponse. Without AppFunctions a call of a
	// function the toolset does not have is answered as unknown, so that
	// the model, which waits for the response of a blocking call, hears
	// of its mistake.
	AppFunctions []string
}

// LiveTools returns the tools to put in genai.LiveConnectConfig.Tools: the
// toolset's declarations, with Behavior NON_BLOCKING on the tools opts
// makes non-blocking. Pass the same opts to NewLive. It fails when opts
// names a tool the toolset does not have, or a scheduling Gemini does not
// know.
func (ts *Toolset) LiveTools(opts *LiveOptions) ([]*genai.Tool, error) {
	p, err := newLivePolicy(ts, opts)
	if err != nil {
		return nil, err
	}
	return p.apply(ts).tools(), nil
}

// livePolicy is what LiveOptions decide per tool.
type livePolicy struct {
	nonBlocking map[string]bool // by MCP name; false means blocking by choice
	scheduling  map[string]genai.FunctionResponseScheduling
	progress    bool
	maxCalls    int
	maxSteps    int
	model       string
	apps        map[string]bool // LiveOptions.AppFunctions
}

func newLivePolicy(ts *Toolset, opts *LiveOptions) (*livePolicy, error) {
	if ts == nil {
		return nil, errors.New("gemini live: toolset is nil")
	}
	if opts == nil {
		opts = &LiveOptions{}
	}
	p := &livePolicy{
		nonBlocking: map[string]bool{},
		scheduling:  map[string]genai.FunctionResponseScheduling{},
		progress:    opts.Progress,
		maxCalls:    opts.MaxCalls,
		maxSteps:    opts.MaxSteps,
		model:       opts.Model,
	}
	if p.maxCalls <= 0 {
		p.maxCalls = DefaultMaxLiveCalls
	}
	if p.maxSteps <= 0 {
		p.maxSteps = DefaultMaxSteps
	}
	known := func(field, name string) error {
		if _, ok := ts.tools.DeclaredName(name); !ok {
			return fmt.Errorf("gemini live: %s names %q, which is not a tool of the toolset", field, name)
		}
		return nil
	}
	for _, n := range opts.NonBlocking {
		if err := known("NonBlocking", n); err != nil {
			return nil, err
		}
		p.nonBlocking[n] = true
	}
	for _, n := range opts.Blocking {
		if err := known("Blocking", n); err != nil {
			return nil, err
		}
		if p.nonBlocking[n] {
			return nil, fmt.Errorf("gemini live: %q is both in NonBlocking and in Blocking", n)
		}
		p.nonBlocking[n] = false
	}
	for n, s := range opts.Scheduling {
		if err := known("Scheduling", n); err != nil {
			return nil, err
		}
		switch s {
		case genai.FunctionResponseSchedulingSilent, genai.FunctionResponseSchedulingWhenIdle, genai.FunctionResponseSchedulingInterrupt:
		default:
			return nil, fmt.Errorf("gemini live: the scheduling of %q is %q; want SILENT, WHEN_IDLE or INTERRUPT", n, s)
		}
		p.scheduling[n] = s
	}
	for _, n := range opts.AppFunctions {
		if p.apps == nil {
			p.apps = map[string]bool{}
		}
		p.apps[n] = true
	}
	if err := p.checkApps(ts); err != nil {
		return nil, err
	}
	return p, nil
}

// checkApps fails when ts declares one of the application's functions.
func (p *livePolicy) checkApps(ts *Toolset) error {
	for n := range p.apps {
		if _, ok := ts.tools.Lookup(n); ok || ts.search != nil && n == ts.search.Name {
			return fmt.Errorf("gemini live: AppFunctions names %q, which the toolset declares", n)
		}
	}
	return nil
}

// isNonBlocking reports whether calls of the MCP tool t are NON_BLOCKING.
func (p *livePolicy) isNonBlocking(t *runtime.Tool) bool {
	if nb, ok := p.nonBlocking[t.Name]; ok {
		return nb
	}
	return t.TaskSupport() == runtime.TaskSupportRequired
}

// liveToolset is a Toolset with what the policy makes of each tool.
type liveToolset struct {
	ts          *Toolset
	nonBlocking map[string]bool // by declared name
	// meanings refuses the first call of a declared name that named
	// another MCP tool in the toolset before.
	meanings *provider.Meanings
	// removed are the scheduling of the NON_BLOCKING functions of the
	// declarations the model had before Update sent these, by declared
	// name, that ts no longer declares: a call the model made before it
	// took the new declarations in is answered as unknown, NON_BLOCKING
	// still.
	removed map[string]genai.FunctionResponseScheduling
}

// shiftedCall returns the response refusing the first call of a declared
// name that named another tool before, and nil for any other call. The
// refusal tells the model what the name means now, so a call after it
// runs the tool the name declares.
func (lt *liveToolset) shiftedCall(fc *genai.FunctionCall) *genai.FunctionResponse {
	why, ok := lt.meanings.Refusal(fc.Name)
	if !ok {
		return nil
	}
	return notRunResponse(fc, why)
}

// apply works out which of ts's tools are non-blocking.
func (p *livePolicy) apply(ts *Toolset) *liveToolset {
	lt := &liveToolset{ts: ts, nonBlocking: map[string]bool{}, meanings: provider.NewMeanings(nil, ts.tools)}
	for declared, e := range ts.tools.Entries() {
		if p.isNonBlocking(&e.Tool) {
			lt.nonBlocking[declared] = true
		}
	}
	return lt
}

// tools returns the declarations as one genai.Tool, the non-blocking ones
// copied with their Behavior set; nil for an empty toolset. In deferred
// mode they are those of the tools found so far (see Toolset.Declarations).
func (lt *liveToolset) tools() []*genai.Tool {
	all := lt.ts.Declarations()
	if len(all) == 0 {
		return nil
	}
	decls := make([]*genai.FunctionDeclaration, len(all))
	for i, d := range all {
		decls[i] = d
		if lt.nonBlocking[d.Name] {
			nd := *d
			nd.Behavior = genai.BehaviorNonBlocking
			decls[i] = &nd
		}
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}
}

// liveConn is what a Live uses of a *genai.Session.
type liveConn interface {
	Receive() (*genai.LiveServerMessage, error)
	SendToolResponse(genai.LiveToolResponseInput) error
	SendContextUpdate(genai.LiveClientContextUpdate) error
	SendClientContent(genai.LiveClientContentInput) error
	SendRealtimeInput(genai.LiveRealtimeInput) error
	Close() error
}

// A Live runs the function calls of a Gemini Live session through a
// Toolset: the session is the caller's, who sends the audio or text and
// plays or prints what the model says; the Live answers the model's tool
// calls, as Chat does for request/response conversations.
//
// The calls of a toolCall message run concurrently, each checked, confirmed
// and called as Toolset.Handle does, and each response goes back in a
// toolResponse message of its own, with its call's ID, as soon as it is
// ready. A call that repeats the ID of one still running is not run, and
// gets no response of its own. A toolCallCancellation cancels the calls it
// names: their contexts
// end, so the MCP request is cancelled (notifications/cancelled, or
// tasks/cancel for a task), and no response is sent for them. Confirmation
// questions (Toolset.SetConfirmation) are asked one at a time, but a
// question, however long the user takes, holds up neither the other calls
// nor the session's messages.
//
// A genai.Session allows one writer at a time: while Run runs, send through
// the Live's SendClientContent and SendRealtimeInput, never through the
// session's own methods.
type Live struct {
	conn   liveConn
	policy *livePolicy

	cur     atomic.Pointer[liveToolset]
	declMu  sync.Mutex // held by Update
	lastDcl []byte     // the JSON of the declarations the model has

	writeMu sync.Mutex // one writer on the session at a time

	mu       sync.Mutex // guards what follows
	running  bool
	inflight map[string]*liveCall // by call ID (or a key of our own for a call without one)
	seq      uint64
	failed   error // the first error writing to the session
	handle   string
	goAway   *genai.LiveServerGoAway
	// taken are the IDs of the last maxTakenIDs calls Live ran or
	// refused, kept when the application has functions of its own.
	taken idSet

	steps      int            // toolCall messages of the current model turn; Run's goroutine only
	wg         sync.WaitGroup // the calls' goroutines
	noProgress atomic.Bool    // set once a WillContinue response failed to go out
}

// liveCall is a function call in flight.
type liveCall struct {
	call   *genai.FunctionCall
	seq    uint64
	cancel context.CancelFunc

	// over is set once the call is answered or cancelled: nothing more
	// is sent for it. It is set without mu when the call is cancelled,
	// so that a cancellation never waits for a progress response still
	// being written.
	over     atomic.Bool
	mu       sync.Mutex // held while a progress response goes out
	progress bool       // a WillContinue response went out
}

// NewLive returns a Live that answers the tool calls of session through ts.
// opts must be those given to ts.LiveTools for the session's configuration.
func NewLive(session *genai.Session, ts *Toolset, opts *LiveOptions) (*Live, error) {
	if session == nil {
		return nil, errors.New("gemini live: session is nil")
	}
	return newLive(session, ts, opts)
}

func newLive(conn liveConn, ts *Toolset, opts *LiveOptions) (*Live, error) {
	p, err := newLivePolicy(ts, opts)
	if err != nil {
		return nil, err
	}
	lt := p.apply(ts)
	decl, err := json.Marshal(lt.tools())
	if err != nil {
		return nil, fmt.Errorf("gemini live: encoding the declarations: %w", err)
	}
	l := &Live{conn: conn, policy: p, lastDcl: decl, inflight: map[string]*liveCall{}}
	l.cur.Store(lt)
	return l, nil
}

// A LiveError is what Run returns: why the session ended, and the calls it
// cancelled.
type LiveError struct {
	// Err is the cause: the context's error, ErrGoAway (wrapped), the
	// error of the session's connection, or the error the message
	// handler returned.
	Err error
	// Cancelled are the calls that were running when the session ended, in
	// the order they arrived. Their contexts were cancelled, and with them
	// their MCP requests; no response was sent for them.
	Cancelled []*genai.FunctionCall
}

func (e *LiveError) Error() string {
	s := "gemini live: " + e.Err.Error()
	if len(e.Cancelled) > 0 {
		names := make([]string, len(e.Cancelled))
		for i, c := range e.Cancelled {
			names[i] = fmt.Sprintf("%s (%s)", c.Name, c.ID)
		}
		s += fmt.Sprintf("; %d calls in flight were cancelled: %s", len(names), strings.Join(names, ", "))
	}
	return s
}

func (e *LiveError) Unwrap() error { return e.Err }

// Run reads the session's messages until it ends, runs the function calls,
// and passes every other message to handle, which may be nil: the server's
// content (text, audio, transcriptions, turnComplete), usage, goAway and
// sessionResumptionUpdate. A message that holds a toolCall or a
// toolCallCancellation reaches handle without them, and only when
// something else is left, but for the calls of the application's own
// functions and their cancellations (LiveOptions.AppFunctions), which
// reach it for the application to answer.
//
// handle is a callback rather than a channel so that the order of the
// messages and the pace of reading stay the caller's to see: Run calls it
// in its own goroutine, one message at a time, and reads the next message
// when it returns. Tool calls never wait for it, nor it for them; it should
// hand audio to a player rather than play it. An error from handle ends
// Run.
//
// Run ends when ctx ends, when the session ends (after a goAway, the error
// wraps ErrGoAway), when writing to the session fails, or when handle
// fails. It then closes the session, cancels the calls still running and
// waits for them to return; it always returns a *LiveError, which lists
// those calls. Run may be called once.
func (l *Live) Run(ctx context.Context, handle func(*genai.LiveServerMessage) error) error {
	l.mu.Lock()
	if l.running {
		l.mu.Unlock()
		return &LiveError{Err: errors.New("Run was already called")}
	}
	l.running = true
	l.mu.Unlock()
	if handle == nil && len(l.policy.apps) > 0 {
		l.conn.Close()
		return &LiveError{Err: errors.New("LiveOptions.AppFunctions needs a handle to pass their calls to")}
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Receive cannot be interrupted but by closing the session.
	stop := context.AfterFunc(runCtx, func() { l.conn.Close() })
	defer stop()
	var cause error
	for {
		msg, err := receive(l.conn)
		if err != nil {
			cause = l.endCause(ctx, err)
			break
		}
		if err := l.dispatch(runCtx, msg, handle); err != nil {
			cause = err
			break
		}
	}
	l.conn.Close()
	cancelled := l.cancelAll()
	cancel()
	l.wg.Wait()
	return &LiveError{Err: cause, Cancelled: cancelled}
}

// endCause says why Receive failed with err.
func (l *Live) endCause(ctx context.Context, err error) error {
	l.mu.Lock()
	failed, goAway := l.failed, l.goAway
	l.mu.Unlock()
	switch {
	case failed != nil:
		return failed
	case ctx.Err() != nil:
		return ctx.Err()
	case goAway != nil:
		return fmt.Errorf("%w (it gave %v notice), and the session ended: %v", ErrGoAway, goAway.TimeLeft, err)
	}
	return fmt.Errorf("receiving from the session: %w", err)
}

// dispatch handles one message of the session.
func (l *Live) dispatch(ctx context.Context, msg *genai.LiveServerMessage, handle func(*genai.LiveServerMessage) error) error {
	if msg == nil {
		return nil
	}
	var appCalls *genai.LiveServerToolCall
	var appCancel *genai.LiveServerToolCallCancellation
	if c := msg.ToolCallCancellation; c != nil {
		if ids := l.notRunning(c.IDs); len(ids) > 0 {
			appCancel = &genai.LiveServerToolCallCancellation{IDs: ids}
		}
		l.cancelCalls(c.IDs)
	}
	if c := msg.ToolCall; c != nil {
		calls := c.FunctionCalls
		if len(l.policy.apps) > 0 {
			var apps []*genai.FunctionCall
			calls, apps = l.policy.splitCalls(calls)
			if len(apps) > 0 {
				appCalls = &genai.LiveServerToolCall{FunctionCalls: apps}
			}
		}
		if len(calls) > 0 {
			l.start(ctx, calls)
		}
	}
	if u := msg.SessionResumptionUpdate; u != nil && u.Resumable && u.NewHandle != "" {
		l.mu.Lock()
		l.handle = u.NewHandle
		l.mu.Unlock()
	}
	if msg.GoAway != nil {
		l.mu.Lock()
		l.goAway = msg.GoAway
		l.mu.Unlock()
	}
	if sc := msg.ServerContent; sc != nil && (sc.TurnComplete || sc.Interrupted) {
		l.steps = 0
	}
	if handle == nil {
		return nil
	}
	if msg.ToolCall != nil || msg.ToolCallCancellation != nil {
		rest := *msg
		rest.ToolCall, rest.ToolCallCancellation = appCalls, appCancel
		if reflect.ValueOf(rest).IsZero() {
			return nil
		}
		msg = &rest
	}
	return handle(msg)
}

// splitCalls splits the calls of a toolCall message into those Live runs
// and those of the application's functions.
func (p *livePolicy) splitCalls(calls []*genai.FunctionCall) (own, apps []*genai.FunctionCall) {
	for _, fc := range calls {
		if fc != nil && p.apps[fc.Name] {
			apps = append(apps, fc)
		} else {
			own = append(own, fc)
		}
	}
	return own, apps
}

// notRunning returns the IDs of a cancellation that are not of a call Live
// runs, for the application when it has functions of its own.
func (l *Live) notRunning(ids []string) []string {
	if len(l.policy.apps) == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, id := range ids {
		if l.inflight[id] == nil && !l.taken.has(id) {
			out = append(out, id)
		}
	}
	return out
}

// took records the ID of a call Live runs or refuses, when the application
// has functions of its own. l.mu must be held.
func (l *Live) took(id string) {
	if len(l.policy.apps) > 0 {
		l.taken.add(id, maxTakenIDs)
	}
}

// idSet holds the IDs added last, up to a bound.
type idSet struct {
	ids   map[string]bool
	order []string // oldest first
}

// add adds id, dropping the oldest ID once the set holds max; it ignores
// the empty ID.
func (s *idSet) add(id string, max int) {
	if id == "" || s.ids[id] {
		return
	}
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	if len(s.order) >= max {
		delete(s.ids, s.order[0])
		s.order = s.order[1:]
	}
	s.ids[id] = true
	s.order = append(s.order, id)
}

func (s *idSet) has(id string) bool { return s.ids[id] }

// start runs the calls of one toolCall message, each in a goroutine of its
// own.
func (l *Live) start(ctx context.Context, calls []*genai.FunctionCall) {
	l.steps++
	lt := l.cur.Load()
	refuse := func(fc *genai.FunctionCall, why string) {
		l.mu.Lock()
		l.took(fc.ID)
		l.mu.Unlock()
		resp := errorResponse(fc, toolcall.NotRun(fc.Name, why))
		l.schedule(lt, resp)
		l.send(resp)
	}
	if l.steps > l.policy.maxSteps {
		why := fmt.Sprintf("the model turn reached its limit of %d tool call messages first", l.policy.maxSteps)
		for _, fc := range calls {
			if fc != nil && !l.isRunning(fc.ID) {
				refuse(fc, why)
			}
		}
		return
	}
	for _, fc := range calls {
		if fc == nil {
			continue
		}
		l.mu.Lock()
		switch {
		case fc.ID != "" && l.inflight[fc.ID] != nil:
			// The running call answers this ID, once: a response of
			// the duplicate's own, even a refusal, would pass for that
			// answer.
			l.mu.Unlock()
			continue
		case len(l.inflight) >= l.policy.maxCalls:
			n := len(l.inflight)
			l.mu.Unlock()
			refuse(fc, fmt.Sprintf("%d calls are running already; try again when one has answered", n))
			continue
		}
		l.seq++
		key := fc.ID
		if key == "" {
			key = fmt.Sprintf("\x00%d", l.seq)
		}
		cctx, cancel := context.WithCancel(ctx)
		c := &liveCall{call: fc, seq: l.seq, cancel: cancel}
		l.inflight[key] = c
		l.took(fc.ID)
		l.wg.Add(1)
		l.mu.Unlock()
		go l.run(cctx, key, c, lt)
	}
}

// isRunning reports whether a call with this ID is running: the response
// to the ID is that call's.
func (l *Live) isRunning(id string) bool {
	if id == "" {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inflight[id] != nil
}

// run runs one call and sends its response, unless it was cancelled.
func (l *Live) run(ctx context.Context, key string, c *liveCall, lt *liveToolset) {
	defer l.wg.Done()
	defer c.cancel()
	nonBlocking := lt.nonBlocking[c.call.Name]
	if nonBlocking && l.policy.progress {
		ctx = runtime.WithProgress(ctx, func(p runtime.Progress) { l.sendProgress(c, p) })
	}
	resp := lt.shiftedCall(c.call)
	if resp == nil {
		resp = lt.ts.Handle(withImagesFor(ctx, l.policy.model), c.call)
	}
	if lt.ts.search != nil {
		// A search, or a call of a deferred tool not found yet, may
		// have changed the declarations: the model gets them before
		// the response that names them.
		if err := l.refresh(lt); err != nil {
			l.fail(err)
		}
	}
	l.schedule(lt, resp)
	l.mu.Lock()
	mine := l.inflight[key] == c
	if mine {
		delete(l.inflight, key)
	}
	l.mu.Unlock()
	if !mine {
		return // cancelled: the model wants no response
	}
	c.mu.Lock()
	c.over.Store(true)
	if c.progress {
		resp.WillContinue = genai.Ptr(false)
	}
	c.mu.Unlock()
	l.send(resp)
}

// sendProgress sends p as a WillContinue response of c.
func (l *Live) sendProgress(c *liveCall, p runtime.Progress) {
	if l.noProgress.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over.Load() {
		return
	}
	report := map[string]any{"progress": p.Progress}
	if p.Total > 0 {
		report["total"] = p.Total
	}
	if p.Message != "" {
		report["message"] = cutProgressMessage(p.Message)
	}
	resp := &genai.FunctionResponse{ID: c.call.ID, Name: c.call.Name, Response: map[string]any{"output": report},
		WillContinue: genai.Ptr(true), Scheduling: genai.FunctionResponseSchedulingSilent}
	l.writeMu.Lock()
	err := l.conn.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: []*genai.FunctionResponse{resp}})
	l.writeMu.Unlock()
	if err != nil {
		// Vertex AI refuses WillContinue; a broken connection shows
		// again when the final response goes out.
		l.noProgress.Store(true)
		return
	}
	c.progress = true
}

// cutProgressMessage cuts msg to maxProgressMessage bytes, at a rune's
// start, and says so.
func cutProgressMessage(msg string) string {
	if len(msg) <= maxProgressMessage {
		return msg
	}
	cut := textcut.Prefix(msg, maxProgressMessage)
	return cut + fmt.Sprintf(" [cut: the first %d of %d bytes]", len(cut), len(msg))
}

// send sends one function response; a failure ends Run.
func (l *Live) send(resp *genai.FunctionResponse) {
	l.writeMu.Lock()
	err := l.conn.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: []*genai.FunctionResponse{resp}})
	l.writeMu.Unlock()
	if err != nil {
		l.fail(fmt.Errorf("sending the response to %s (%s): %w", resp.Name, resp.ID, err))
	}
}

// fail records the first error writing to the session and closes it, which
// ends Run.
func (l *Live) fail(err error) {
	l.mu.Lock()
	if l.failed == nil {
		l.failed = err
	}
	l.mu.Unlock()
	l.conn.Close()
}

// cancelCalls cancels the calls with the given IDs that are still running.
func (l *Live) cancelCalls(ids []string) {
	for _, id := range ids {
		l.mu.Lock()
		c := l.inflight[id]
		delete(l.inflight, id)
		l.mu.Unlock()
		if c != nil {
			c.end()
		}
	}
}

// cancelAll cancels every call still running and returns them in the order
// they arrived.
func (l *Live) cancelAll() []*genai.FunctionCall {
	l.mu.Lock()
	calls := make([]*liveCall, 0, len(l.inflight))
	for k, c := range l.inflight {
		calls = append(calls, c)
		delete(l.inflight, k)
	}
	l.mu.Unlock()
	slices.SortFunc(calls, func(a, b *liveCall) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]*genai.FunctionCall, len(calls))
	for i, c := range calls {
		c.end()
		out[i] = c.call
	}
	return out
}

// end stops c: nothing more is sent for it, and its context ends. It does
// not wait for a progress response of c being written.
func (c *liveCall) end() {
	c.over.Store(true)
	c.cancel()
}

// schedule sets the scheduling of resp, the final response of a call, when
// its tool is NON_BLOCKING: the one LiveOptions.Scheduling gives the tool,
// WHEN_IDLE by default. A refused call's response carries it too.
func (l *Live) schedule(lt *liveToolset, resp *genai.FunctionResponse) {
	if !lt.nonBlocking[resp.Name] {
		if s, ok := lt.removed[resp.Name]; ok {
			resp.Scheduling = s
		}
		return
	}
	resp.Scheduling = genai.FunctionResponseSchedulingWhenIdle
	mcpName, _ := lt.ts.tools.MCPName(resp.Name)
	if s, ok := l.policy.scheduling[mcpName]; ok {
		resp.Scheduling = s
	}
}

func errorResponse(fc *genai.FunctionCall, msg string) *genai.FunctionResponse {
	return &genai.FunctionResponse{ID: fc.ID, Name: fc.Name, Response: map[string]any{"error": msg}}
}

// Update makes ts the toolset of the calls that start from now on (calls
// in flight keep theirs) and, when its declarations differ from those the
// model has, sends them with one contextUpdate message, which replaces the
// session's tools. It reports whether it sent them. The opts given to
// NewLive apply to ts too; tools they name that ts does not have are
// ignored.
//
// Call it when the server's tool list changed: from
// runtime.Options.OnToolsChanged, with a Toolset built from the new
// listing, or after listing the tools again once a cached listing expired.
// Set ts's confirmation before: its questions are asked in turn with those
// of the calls still running, one at a time. When both toolsets are in
// deferred mode, ts takes over the tools found so far that it has (see
// DeclarationOptions.Search), and those that calls still running on the
// previous toolset find; the others are no longer declared. Update fails
// when ts declares one of LiveOptions.AppFunctions.
//
// A name the model was given for one MCP tool does not silently run
// another: when ts declares a name of the previous toolset for another
// tool (a rewritten name such as a_b, once the server lists a tool of that
// name too), the first call of that name is refused, saying that the name
// now means another tool and which name the tool it named has now. A later
// call of the name runs the tool ts declares under it. A call of a
// NON_BLOCKING function that ts no longer declares, which the model made
// before it took the new declarations in, is answered as unknown with the
// scheduling the function had.
//
// In deferred mode the Live also sends the declarations itself, with a
// contextUpdate message, whenever a search finds tools the model has not
// been given yet, before the search's response.
func (l *Live) Update(ts *Toolset) (bool, error) {
	if ts == nil {
		return false, errors.New("gemini live: toolset is nil")
	}
	if err := l.policy.checkApps(ts); err != nil {
		return false, err
	}
	l.declMu.Lock()
	defer l.declMu.Unlock()
	if old := l.cur.Load(); old != nil && old.ts != ts {
		ts.tools.KeepFound(old.ts.tools)
		ts.tools.ShareConfirmTurn(old.ts.tools)
	}
	lt := l.policy.apply(ts)
	old := l.cur.Load()
	if old != nil {
		lt.meanings = provider.NewMeanings(old.meanings, ts.tools)
	}
	tools := lt.tools()
	decl, err := json.Marshal(tools)
	if err != nil {
		return false, fmt.Errorf("gemini live: encoding the declarations: %w", err)
	}
	if bytes.Equal(decl, l.lastDcl) {
		if old != nil {
			lt.removed = old.removed
		}
		l.cur.Store(lt)
		return false, nil
	}
	if old != nil {
		lt.removed = l.removedBy(old, lt)
	}
	if tools == nil {
		tools = []*genai.Tool{}
	}
	l.writeMu.Lock()
	err = l.conn.SendContextUpdate(genai.LiveClientContextUpdate{Tools: &genai.LiveClientContextUpdateTools{Tools: tools}})
	l.writeMu.Unlock()
	if err != nil {
		return false, fmt.Errorf("gemini live: sending the new tools: %w", err)
	}
	l.cur.Store(lt)
	l.lastDcl = decl
	return true, nil
}

// removedBy returns the scheduling of the NON_BLOCKING functions of old
// that lt does not declare, by declared name, nil when there are none.
func (l *Live) removedBy(old, lt *liveToolset) map[string]genai.FunctionResponseScheduling {
	var removed map[string]genai.FunctionResponseScheduling
	for declared, nb := range old.nonBlocking {
		if _, ok := lt.ts.tools.Lookup(declared); !nb || ok {
			continue
		}
		if removed == nil {
			removed = map[string]genai.FunctionResponseScheduling{}
		}
		resp := &genai.FunctionResponse{Name: declared}
		l.schedule(old, resp)
		removed[declared] = resp.Scheduling
	}
	return removed
}

// refresh sends the declarations of the current toolset with one
// contextUpdate message when they differ from those the model has, after a
// call run by lt may have found tools. When Update has made another toolset
// current meanwhile, that one takes over what lt found. The declarations
// are read under declMu, so that of two refreshes the one sent last is the
// newer.
func (l *Live) refresh(lt *liveToolset) error {
	l.declMu.Lock()
	defer l.declMu.Unlock()
	cur := l.cur.Load()
	if cur.ts != lt.ts {
		cur.ts.tools.KeepFound(lt.ts.tools)
	}
	tools := cur.tools()
	decl, err := json.Marshal(tools)
	if err != nil {
		return fmt.Errorf("gemini live: encoding the declarations: %w", err)
	}
	if bytes.Equal(decl, l.lastDcl) {
		return nil
	}
	if tools == nil {
		tools = []*genai.Tool{}
	}
	l.writeMu.Lock()
	err = l.conn.SendContextUpdate(genai.LiveClientContextUpdate{Tools: &genai.LiveClientContextUpdateTools{Tools: tools}})
	l.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("gemini live: sending the tools found: %w", err)
	}
	l.lastDcl = decl
	return nil
}

// ResumptionHandle returns the handle of the last sessionResumptionUpdate
// that said the session could be resumed, or "" when none did. Open the
// next session with it in genai.LiveConnectConfig.SessionResumption.
func (l *Live) ResumptionHandle() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.handle
}

// SendClientContent sends turns of text or other content to the model, as
// genai.Session.SendClientContent does, taking its turn with the tool
// responses.
func (l *Live) SendClientContent(in genai.LiveClientContentInput) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	return l.conn.SendClientContent(in)
}

// SendToolResponse sends the responses to calls of the application's own
// functions (LiveOptions.AppFunctions), as genai.Session.SendToolResponse
// does, taking its turn with the responses Live sends.
func (l *Live) SendToolResponse(in genai.LiveToolResponseInput) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	return l.conn.SendToolResponse(in)
}

// SendRealtimeInput sends audio, video or text input, as
// genai.Session.SendRealtimeInput does, taking its turn with the tool
// responses.
func (l *Live) SendRealtimeInput(in genai.LiveRealtimeInput) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	return l.conn.SendRealtimeInput(in)
}
