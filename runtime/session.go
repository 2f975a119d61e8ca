package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	goruntime "runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// Protocol versions a Session speaks.
const (
	// LatestProtocolVersion is the modern version a Session asks for first.
	LatestProtocolVersion = "2026-07-28"
	// LatestLegacyProtocolVersion is the version a Session asks for in the
	// initialize handshake when it falls back to the legacy era.
	LatestLegacyProtocolVersion = "2025-11-25"
)

// supportedVersions lists every version a Session speaks, newest first.
var supportedVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// SupportedProtocolVersions returns the protocol versions a Session speaks,
// newest first.
func SupportedProtocolVersions() []string {
	return append([]string(nil), supportedVersions...)
}

// isModern reports whether v belongs to the handshake-free era.
func isModern(v string) bool { return v >= LatestProtocolVersion }

func isSupported(v string) bool {
	for _, s := range supportedVersions {
		if s == v {
			return true
		}
	}
	return false
}

// Defaults for Options.
const (
	DefaultCallTimeout = 60 * time.Second
	// DefaultMaxTools is the default of Options.MaxTools.
	DefaultMaxTools = 10000
	// DefaultProbeTimeout is the default of Options.ProbeTimeout. It is long
	// because a stdio server started through go run, docker run, npx -y or
	// uvx may take many seconds before it reads its first message.
	DefaultProbeTimeout = 30 * time.Second
)

// Options configure a Session. The zero value is ready to use.
type Options struct {
	// ClientName and ClientVersion are sent as the client's implementation
	// info; they default to "mcpgen" and "dev".
	ClientName    string
	ClientVersion string

	// ProtocolVersion pins the protocol version. Empty means: ask for
	// LatestProtocolVersion and fall back to the initialize handshake for an
	// older server. A legacy version (2025-11-25 and older) skips the probe
	// and runs the handshake with that version; a modern version refuses to
	// fall back.
	ProtocolVersion string

	// ProbeTimeout bounds the wait for the answer to the server/discover
	// probe; DefaultProbeTimeout when zero, no bound (but the context's)
	// when negative. The era comes from the answer, however late: a
	// result means a modern server, an error (method not found, say) a
	// legacy one. Only a server silent for all of ProbeTimeout is judged
	// by the clock: over stdio and HTTP+SSE, where a legacy server may
	// ignore requests before initialize, it is taken for a legacy one
	// (unless ProtocolVersion pins a modern version); over Streamable
	// HTTP, where every request gets an HTTP status, Connect fails with a
	// *ProbeTimeoutError.
	ProbeTimeout time.Duration

	// CallTimeout bounds every request whose context has no deadline;
	// DefaultCallTimeout when zero, no bound when negative. For a call
	// that asked for progress (WithProgress), each notification restarts
	// the timeout, up to ten timeouts in all.
	CallTimeout time.Duration

	// MaxTools bounds the tools ListTools accepts from one server, across
	// all pages; DefaultMaxTools when zero. A longer list is an error.
	MaxTools int

	// TaskTimeout bounds the wait for a tool call the server runs as a
	// task, when the call's context has no deadline; DefaultTaskTimeout
	// when zero, no bound when negative. When it passes, the task is
	// cancelled (tasks/cancel).
	TaskTimeout time.Duration

	// Logger receives the Session's own log records, the server's log
	// notifications and, with LogTraffic, every message. Nil discards them.
	Logger *slog.Logger
	// LogTraffic logs every message in and out at debug level, with the
	// values of secret-looking members ("token", "password", ...) redacted.
	LogTraffic bool
	// CallLogLevel is the level of the record logged for each tool call
	// (debug when zero, as slog.LevelDebug is not the zero Level; use
	// ToolLogLevels to change a single tool).
	CallLogLevel *slog.Level
	// ToolLogLevels overrides the level of the call records and traffic of
	// single tools, so that a polled tool does not flood the log: set it
	// below slog.LevelDebug to silence one.
	ToolLogLevels map[string]slog.Level

	// OnToolsChanged is called, from a goroutine of its own and never
	// concurrently with itself, when the server reports that its tool list
	// changed. It may call the Session (ListTools, typically) but not
	// Close. In the 2026-07-28 era the Session opens a subscriptions/listen
	// stream for it when the server supports it.
	OnToolsChanged func()

	// DisableToolsCache makes every ListTools ask the server. By default,
	// in the 2026-07-28 era, ListTools serves a listing again while the
	// ttlMs of its result lasts (see ListTools).
	DisableToolsCache bool

	// SnapshotHash is the ToolsHash of the tool list a generated package
	// was made from (its SnapshotHash constant). When set, Connect lists the
	// server's tools and logs a warning, once per Session, if they differ:
	// to Logger, or to slog.Default() when Logger is nil (only this warning
	// does so).
	SnapshotHash string
	// FailOnDrift turns that warning into a *DriftError from Connect and
	// ListTools.
	FailOnDrift bool

	// Elicitation, Sampling and Roots answer the server's requests for
	// user input, for a completion from the client's model and for the
	// client's roots: elicitation/create, sampling/createMessage and
	// roots/list requests in the legacy era, and the input requests of a
	// 2026-07-28 result whose resultType is input_required, after which
	// the call is retried. The client declares a capability only when its
	// handler is set; without one, a legacy request gets -32601 and an
	// input request fails the call. Handlers may run concurrently.
	Elicitation ElicitationHandler
	Sampling    SamplingHandler
	Roots       RootsHandler
	// OnElicitationComplete is called with the id of a URL-mode
	// elicitation that the server reports complete (2025-11-25). It must
	// return quickly and must not call the Session.
	OnElicitationComplete func(elicitationID string)
	// HandlerTimeout bounds each run of those handlers;
	// DefaultHandlerTimeout when zero, no bound (but the call's context)
	// when negative. An elicitation that runs out of time is answered
	// with cancel.
	HandlerTimeout time.Duration
}

// Implementation names an MCP client or server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Title   string `json:"title,omitempty"`
}

// ServerCapabilities are the capabilities a server declared.
type ServerCapabilities struct {
	// Tools reports the tools capability; ToolsListChanged its listChanged
	// flag.
	Tools            bool
	ToolsListChanged bool
	Prompts          bool
	Resources        bool
	Logging          bool
	Completions      bool
	// ToolTasks reports that the server runs tools/call as tasks: the
	// 2025-11-25 tasks.requests.tools.call capability, or the 2026-07-28
	// extension io.modelcontextprotocol/tasks.
	ToolTasks bool
	// Raw is the capabilities object as the server sent it.
	Raw json.RawMessage
}

func parseCapabilities(raw json.RawMessage) ServerCapabilities {
	var c struct {
		Tools *struct {
			ListChanged bool `json:"listChanged"`
		} `json:"tools"`
		Prompts     json.RawMessage `json:"prompts"`
		Resources   json.RawMessage `json:"resources"`
		Logging     json.RawMessage `json:"logging"`
		Completions json.RawMessage `json:"completions"`
	}
	_ = json.Unmarshal(raw, &c)
	present := func(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }
	caps := ServerCapabilities{
		Prompts:     present(c.Prompts),
		Resources:   present(c.Resources),
		Logging:     present(c.Logging),
		Completions: present(c.Completions),
		ToolTasks:   toolTasksCap(raw),
		Raw:         raw,
	}
	if c.Tools != nil {
		caps.Tools = true
		caps.ToolsListChanged = c.Tools.ListChanged
	}
	return caps
}

// How a Session uses its Conn, for those who write one:
//
//   - OutMessage: Method and ID are set on requests, Method alone on
//     notifications, ID alone on responses to server requests. Name is the
//     tool of a tools/call. ProtocolVersion is set on every message of the
//     2026-07-28 era, and on every message after initialize in the legacy
//     era (not on initialize itself).
//   - Data is only read during Write, unless the Conn is one of this
//     package's that say otherwise; a resend after ErrSessionExpired passes
//     the same message again.
//   - The context given to Write for a request ends when the request does:
//     on its response, its cancellation or its timeout.
//   - A Write error is the request's error, except ErrSessionExpired, which
//     makes the Session run the handshake again and resend once, and an
//     *HTTPError or *RPCError on the server/discover probe, which means a
//     legacy server.
//   - Read may return a *MessageTooLargeError and keep working; any other
//     error ends the Session.
//   - HandshakeDone is called after notifications/initialized is sent.

// CancelsByClosing is implemented by connections on which abandoning a
// request's response stream cancels the request, as Streamable HTTP does in
// the 2026-07-28 era. When CancelsByClosing reports true, the Session does
// not send notifications/cancelled in that era: cancelling the context it
// gave to Write is the cancellation. In the legacy era the Session always
// sends notifications/cancelled.
type CancelsByClosing interface {
	CancelsByClosing() bool
}

// A Session is a connection to one MCP server, after version negotiation.
// It is safe for use by many goroutines at once, and it implements Caller.
type Session struct {
	conn Conn
	opts Options
	log  *slog.Logger

	// directWrite is set for connections whose Write does not use its
	// context once it returns, so that a call needs no context of its own.
	directWrite bool
	// reuseData is set for connections that are done with OutMessage.Data
	// when Write returns, so that its buffer can be reused. An HTTP client
	// may still be sending a request body after the response has arrived.
	reuseData        bool
	cancelsByClosing bool
	// answersEveryPOST is set for Streamable HTTP connections, on which a
	// probe left unanswered shows a slow server, never a legacy one.
	answersEveryPOST bool
	// scrubber removes the connection's credentials from logs and errors;
	// nil when the connection holds none.
	scrubber secretScrubber
	// timedWriter is set for connections that bound a Write by a timeout
	// themselves (stdio, HTTP+SSE).
	timedWriter timedWriter
	// rd is set for connections whose Read a deadline can interrupt. On
	// them a call waiting for its response reads the connection itself
	// when nobody else does, which saves handing every response from one
	// goroutine to another; readMu is the turn to read.
	rd     deadlineReader
	readMu sync.Mutex

	// paramHeaders is set for connections that send Mcp-Param-* headers
	// (Streamable HTTP). toolParams holds the x-mcp-header annotations of
	// the tools last listed, by tool name; listMu serializes the listing a
	// call makes to learn them.
	paramHeaders bool
	toolParams   atomic.Pointer[map[string]toolParams]
	listMu       sync.Mutex

	// toolsCache is the last listing ListTools may serve again (see
	// toolscache.go); toolsGen counts the list-changed notifications, and
	// authCtx is the connection when its credentials can change.
	toolsCache atomic.Pointer[toolsCache]
	toolsGen   atomic.Uint64
	authCtx    authContexter

	// taskSupport holds the taskSupport of the tools last listed that allow
	// tasks (2025-11-25); taskProgress the progress functions of running
	// tasks, by the progress token of the call that created them.
	taskSupport  atomic.Pointer[map[string]string]
	taskProgress sync.Map

	nextID atomic.Int64

	mu      sync.Mutex
	pending map[int64]*call
	err     error // why the Session no longer works; nil while it does

	state atomic.Pointer[negotiated]
	hsMu  sync.Mutex
	hsGen atomic.Uint64

	ctx        context.Context
	cancel     context.CancelFunc
	readerDone chan struct{}
	dead       chan struct{} // closed when the connection has failed
	wg         sync.WaitGroup
	changed    chan struct{}

	// listenCancel ends the subscriptions/listen request, whose goroutine
	// closes listenDone.
	listenCancel context.CancelFunc
	listenDone   chan struct{}

	// served holds the server requests handlers are working on.
	served served

	driftOnce sync.Once
	closeOnce sync.Once
	closeErr  error
}

// negotiated is what the handshake or the probe settled.
type negotiated struct {
	version      string
	legacy       bool
	serverInfo   Implementation
	caps         ServerCapabilities
	instructions string
	// meta is the pre-encoded content of a modern request's _meta object.
	meta []byte
}

// directWriter is implemented by this package's connections whose Write
// ignores its context after returning.
type directWriter interface{ writeIgnoresContext() }

// dataReleaser is implemented by this package's connections that do not
// use OutMessage.Data once Write has returned.
type dataReleaser interface{ releasesData() }

// paramHeaderSender is implemented by this package's connections that send
// OutMessage.ParamHeaders.
type paramHeaderSender interface{ sendsParamHeaders() }

// postAnswerer is implemented by this package's Streamable HTTP
// connections, on which the server answers every request with an HTTP
// status: a legacy server refuses server/discover at once rather than
// ignoring it.
type postAnswerer interface{ answersEveryPOST() }

// deadlineReader is implemented by this package's connections whose Read
// returns an error matching os.ErrDeadlineExceeded once the time set with
// setReadDeadline has passed, without losing any part of a message.
type deadlineReader interface{ setReadDeadline(t time.Time) error }

// Connect connects to the server t reaches, negotiates the protocol version
// (see Options.ProtocolVersion) and returns the ready Session. ctx bounds the
// connection and the negotiation only.
func Connect(ctx context.Context, t Transport, opts *Options) (*Session, error) {
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s := newSession(conn, opts)
	if err := s.negotiate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.opts.OnToolsChanged != nil {
		s.wg.Add(1)
		go s.changedLoop()
		st := s.state.Load()
		if !st.legacy && st.caps.ToolsListChanged {
			lctx, cancel := context.WithCancel(s.ctx)
			s.listenCancel, s.listenDone = cancel, make(chan struct{})
			go s.listen(lctx)
		}
	}
	if s.opts.SnapshotHash != "" {
		if _, err := s.ListTools(ctx); err != nil {
			var de *DriftError
			if errors.As(err, &de) || !isToolsUnsupported(err) {
				s.Close()
				return nil, err
			}
		}
	}
	return s, nil
}

func newSession(conn Conn, opts *Options) *Session {
	s := &Session{
		conn:       conn,
		pending:    make(map[int64]*call),
		readerDone: make(chan struct{}),
		dead:       make(chan struct{}),
		changed:    make(chan struct{}, 1),
	}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.ClientName == "" {
		s.opts.ClientName = "mcpgen"
	}
	if s.opts.ClientVersion == "" {
		s.opts.ClientVersion = "dev"
	}
	if s.opts.ProbeTimeout == 0 {
		s.opts.ProbeTimeout = DefaultProbeTimeout
	}
	if s.opts.CallTimeout == 0 {
		s.opts.CallTimeout = DefaultCallTimeout
	}
	if s.opts.MaxTools <= 0 {
		s.opts.MaxTools = DefaultMaxTools
	}
	if s.opts.TaskTimeout == 0 {
		s.opts.TaskTimeout = DefaultTaskTimeout
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	_, s.directWrite = conn.(directWriter)
	_, s.reuseData = conn.(dataReleaser)
	s.scrubber, _ = conn.(secretScrubber)
	s.timedWriter, _ = conn.(timedWriter)
	_, s.paramHeaders = conn.(paramHeaderSender)
	_, s.answersEveryPOST = conn.(postAnswerer)
	s.authCtx, _ = conn.(authContexter)
	if c, ok := conn.(CancelsByClosing); ok {
		s.cancelsByClosing = c.CancelsByClosing()
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if d, ok := conn.(deadlineReader); ok && d.setReadDeadline(time.Time{}) == nil {
		s.rd = d
		go s.idleReader()
	} else {
		go s.readLoop()
	}
	return s
}

// ProtocolVersion returns the negotiated protocol version.
func (s *Session) ProtocolVersion() string { return s.state.Load().version }

// ServerInfo returns the server's implementation info.
func (s *Session) ServerInfo() Implementation { return s.state.Load().serverInfo }

// Capabilities returns the capabilities the server declared.
func (s *Session) Capabilities() ServerCapabilities { return s.state.Load().caps }

// Instructions returns the server's instructions for the model, if any.
func (s *Session) Instructions() string { return s.state.Load().instructions }

// Done returns a channel closed when the connection has ended, by Close or
// because the server went away; Err then says why.
func (s *Session) Done() <-chan struct{} { return s.readerDone }

// Err returns nil while the Session works, and afterwards the reason it
// stopped: ErrClosed after Close, or the transport's error, such as a
// *ServerExitedError.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the Session: it fails calls in flight with ErrClosed, closes
// the connection (for a stdio server: stops and reaps the process) and waits
// for the Session's goroutines. It is safe to call more than once.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		if s.err == nil {
			s.err = ErrClosed
		}
		s.mu.Unlock()
		if s.listenDone != nil {
			// End the subscription while the connection can still say so.
			s.listenCancel()
			select {
			case <-s.listenDone:
			case <-time.After(2 * time.Second):
			}
		}
		s.cancel()
		s.closeErr = s.conn.Close()
		<-s.readerDone
		s.wg.Wait()
		if s.listenDone != nil {
			<-s.listenDone
		}
	})
	return s.closeErr
}

// call is one request in flight. Calls are pooled with their channel and
// timer.
type call struct {
	id       int64
	ch       chan reply
	timer    *time.Timer
	progress func(Progress)
	// progressAt is the time of the last progress notification, in Unix
	// nanoseconds; zero before the first.
	progressAt atomic.Int64
	tool       string
	msg        OutMessage
	// promoted is set, under Session.mu, when the turn to read has been
	// sent to this call on ch and it has not taken it yet; passive calls
	// never get it.
	promoted bool
	passive  bool

	// wtimer ends, through wcancel, a Write that outlives the call's
	// timeout; wfired records that it did. It is created with the call
	// and reused, so that arming it allocates nothing.
	wtimer  *time.Timer
	wmu     sync.Mutex
	wcancel context.CancelFunc
	wfired  bool
}

// writeTimedOut runs when a call's Write outlives its timeout.
func (c *call) writeTimedOut() {
	c.wmu.Lock()
	c.wfired = true
	if c.wcancel != nil {
		c.wcancel()
	}
	c.wmu.Unlock()
}

// disarmWrite stops wtimer after Write returned and reports whether it
// fired. When it fired, it waits for writeTimedOut to finish, so that a late
// run cannot reach the next request to use the call.
func (c *call) disarmWrite() bool {
	stopped := c.wtimer.Stop()
	for {
		c.wmu.Lock()
		fired := c.wfired
		if stopped || fired {
			c.wcancel = nil
			c.wmu.Unlock()
			return fired
		}
		c.wmu.Unlock()
		goruntime.Gosched()
	}
}

type reply struct {
	result []byte
	err    error
	// promote hands the waiting call the turn to read, instead of its
	// response.
	promote bool
}

var callPool = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	c := &call{ch: make(chan reply, 1), timer: t}
	c.wtimer = time.AfterFunc(time.Hour, c.writeTimedOut)
	c.wtimer.Stop()
	return c
}}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledBuf = 64 << 10

func putBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledBuf {
		*bp = (*bp)[:0]
		bufPool.Put(bp)
	}
}

// request is one request to send: the method, the Mcp-Name value and how
// to send it.
type request struct {
	method   string
	name     string
	timeout  time.Duration // 0: Options.CallTimeout applies; <0: none
	progress func(Progress)
	// noCancel marks requests that must not be cancelled with a
	// notification (initialize, and the probe of a possibly legacy server).
	noCancel bool
	// noResend marks requests not retried after a session expiry.
	noResend bool
	// passive marks requests that wait indefinitely and so never take the
	// turn to read (subscriptions/listen).
	passive bool
	// params are the Mcp-Param-* headers of a tools/call.
	params []ParamHeader
	// id is the request's id, when the caller chose it; 0 takes the next.
	id int64
}

// do sends r under st and waits for its result, which is a slice of the
// message the connection delivered. members, when not nil, appends the
// members of params other than _meta; it is a parameter of its own, apart
// from r, so that it does not escape. A modern request the server rejects
// with -32022 is sent once more, with a version both sides speak (see
// versionRetry); the probe settles its version itself.
func (s *Session) do(ctx context.Context, st *negotiated, r *request, members func(b []byte) []byte) ([]byte, error) {
	res, err := s.send(ctx, st, r, members)
	if err != nil && !st.legacy && r.method != "server/discover" {
		if next := s.versionRetry(st, err); next != nil {
			return s.send(ctx, next, r, members)
		}
	}
	return res, err
}

// send sends r under st once and waits for its result, as do describes.
func (s *Session) send(ctx context.Context, st *negotiated, r *request, members func(b []byte) []byte) ([]byte, error) {
	c := callPool.Get().(*call)
	id := r.id
	if id == 0 {
		id = s.nextID.Add(1)
	}
	c.id, c.progress, c.tool, c.passive = id, r.progress, r.name, r.passive

	bp := bufPool.Get().(*[]byte)
	b := jsonrpc.AppendRequestHead((*bp)[:0], id, r.method)
	n := len(b)
	if members != nil {
		b = members(b)
	}
	b = s.appendMeta(b, st, len(b) > n, r.progress != nil, id)
	// The newline past Data lets a line-framed connection write the
	// message with one call.
	b = append(b, '}', '}', '\n')
	*bp = b
	c.msg = OutMessage{Data: b[:len(b)-1], Method: r.method, ID: strconv.FormatInt(id, 10), Name: r.name, ProtocolVersion: st.version, ParamHeaders: r.params}

	timeout := r.timeout
	if timeout == 0 {
		timeout = s.opts.CallTimeout
	}
	if _, ok := ctx.Deadline(); ok && r.timeout == 0 {
		timeout = -1 // the caller's deadline rules
	}
	wctx := ctx
	var timerC <-chan time.Time
	var cancel context.CancelFunc
	var start time.Time
	if !s.directWrite {
		// The context given to Write ends with the request, and with its
		// timeout while Write runs.
		wctx, cancel = context.WithCancel(ctx)
		defer cancel()
	}
	if timeout > 0 {
		// The timer is armed only if the call waits for its response
		// (readFor bounds a call that reads by its read deadline); the
		// time the write took counts.
		start = time.Now()
	}

	s.mu.Lock()
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		putBuf(bp)
		s.release(c)
		return nil, err
	}
	s.pending[id] = c
	s.mu.Unlock()

	if s.opts.LogTraffic {
		s.traceOut(&c.msg, r.name)
	}
	// Write may block on the server (a stdio server that reads no input, a
	// POST never answered) or read the whole response (a JSON body over
	// Streamable HTTP): the timeout must end it too, or a server could
	// hold the call forever.
	var err error
	timedOut := false
	switch {
	case timeout > 0 && s.timedWriter != nil:
		err = s.timedWriter.writeWithin(wctx, &c.msg, timeout)
		timedOut = errors.Is(err, errWriteTimeout)
	case timeout > 0 && cancel != nil:
		c.wmu.Lock()
		c.wcancel, c.wfired = cancel, false
		c.wmu.Unlock()
		c.wtimer.Reset(timeout)
		err = s.write(wctx, &c.msg, st, r.noResend)
		timedOut = c.disarmWrite()
	default:
		err = s.write(wctx, &c.msg, st, r.noResend)
	}
	if s.reuseData {
		putBuf(bp)
	}
	c.msg.Data = nil
	if err != nil {
		if rep, ok := s.abandon(c); ok && rep.err != nil {
			err = rep.err // the connection died; its error says more
		}
		s.release(c)
		if timedOut && ctx.Err() == nil {
			return nil, &TimeoutError{Method: r.method, Name: r.name, Timeout: timeout}
		}
		return nil, s.writeError(err)
	}

	if s.rd != nil && !r.passive && s.readMu.TryLock() {
		rep := s.readFor(ctx, c, st, r, timeout, start)
		s.release(c)
		return rep.result, rep.err
	}
	if timeout > 0 {
		c.timer.Reset(timeout - time.Since(start))
		timerC = c.timer.C
	}
	var rep reply
wait:
	for {
		select {
		case rep = <-c.ch:
			if rep.promote {
				s.mu.Lock()
				c.promoted = false
				s.mu.Unlock()
				rep = s.readFor(ctx, c, st, r, timeout, start)
			}
			break wait
		case <-wctx.Done():
			rep.err = s.cancelCall(ctx, c, st, r, timeout, false)
			break wait
		case <-timerC:
			if d := progressExtension(c, start, timeout); d > 0 {
				c.timer.Reset(d)
				continue
			}
			if cancel != nil {
				cancel()
			}
			rep.err = s.cancelCall(ctx, c, st, r, timeout, false)
			break wait
		}
	}
	s.release(c)
	return rep.result, rep.err
}

// progressTimeoutFactor bounds how far progress notifications can stretch a
// call's timeout: to this many times the timeout in all.
const progressTimeoutFactor = 10

// progressExtension returns how much longer a call whose timeout has passed
// may wait: one that gets progress notifications waits until a timeout after
// the last one, within progressTimeoutFactor timeouts from its start. It
// returns zero or less when the call has waited long enough.
func progressExtension(c *call, start time.Time, timeout time.Duration) time.Duration {
	last := c.progressAt.Load()
	if last == 0 || start.IsZero() {
		return 0
	}
	until := time.Unix(0, last).Add(timeout)
	if hard := start.Add(progressTimeoutFactor * timeout); until.After(hard) {
		until = hard
	}
	return time.Until(until)
}

// release returns c to the pool.
func (s *Session) release(c *call) {
	c.timer.Stop()
	c.progress = nil
	c.progressAt.Store(0)
	c.msg = OutMessage{}
	callPool.Put(c)
}

// abandon removes c from the pending calls. When the reader or a failing
// connection got to c first, it waits for the reply already on its way and
// returns it with ok set. A turn to read sent to c goes on to another call.
func (s *Session) abandon(c *call) (reply, bool) {
	s.mu.Lock()
	_, pending := s.pending[c.id]
	delete(s.pending, c.id)
	promoted := c.promoted
	c.promoted = false
	s.mu.Unlock()
	if promoted {
		<-c.ch
		s.passRead(c)
	}
	if pending {
		return reply{}, false
	}
	return <-c.ch, true
}

// cancelCall abandons a call whose context ended or whose timeout passed,
// tells the server where the era and transport want a notification, and
// returns the error the caller gets. reading is set when c holds the turn
// to read, which it then passes on.
func (s *Session) cancelCall(ctx context.Context, c *call, st *negotiated, r *request, timeout time.Duration, reading bool) error {
	_, raced := s.abandon(c)
	if reading {
		s.passRead(c)
	}
	var err error
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	default:
		err = &TimeoutError{Method: r.method, Name: r.name, Timeout: timeout}
	}
	if raced || r.noCancel || (!st.legacy && s.cancelsByClosing) {
		return err
	}
	reason := "timeout"
	if ctx.Err() != nil {
		reason = ctx.Err().Error()
	}
	s.notifyCancelled(ctx, st, c.id, reason)
	return err
}

// notifyCancelled sends notifications/cancelled for request id.
func (s *Session) notifyCancelled(ctx context.Context, st *negotiated, id int64, reason string) {
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	b := jsonrpc.AppendNotificationHead(nil, "notifications/cancelled")
	b = append(b, `"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"reason":`...)
	b = jsonrpc.AppendString(b, reason)
	b = append(b, '}', '}')
	if err := s.notify(nctx, st, "notifications/cancelled", b); err != nil {
		s.log.Debug("sending notifications/cancelled failed", "request", id, "error", err)
	}
}

// notify sends the complete notification data.
func (s *Session) notify(ctx context.Context, st *negotiated, method string, data []byte) error {
	m := &OutMessage{Data: data, Method: method, ProtocolVersion: st.version}
	if s.opts.LogTraffic {
		s.traceOut(m, "")
	}
	return s.write(ctx, m, st, true)
}

// write sends m, and when a Streamable HTTP session has expired, runs the
// handshake again and resends m once.
func (s *Session) write(ctx context.Context, m *OutMessage, st *negotiated, noResend bool) error {
	gen := s.hsGen.Load()
	err := s.conn.Write(ctx, m)
	if err == nil || noResend || !st.legacy || !errors.Is(err, ErrSessionExpired) {
		return err
	}
	s.log.Info("server session expired; initializing again")
	if err := s.rehandshake(ctx, gen); err != nil {
		return fmt.Errorf("initializing again after the session expired: %w", err)
	}
	m.ProtocolVersion = s.state.Load().version
	return s.conn.Write(ctx, m)
}

// writeError prefers the Session's own reason, such as a server exit the
// reader already saw, to the error a write into a dead connection returned.
func (s *Session) writeError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil && !errors.Is(s.err, ErrClosed) {
		return s.err
	}
	return err
}

// appendMeta appends the _meta member of a request's params: the modern
// triple, and a progress token when asked.
func (s *Session) appendMeta(b []byte, st *negotiated, comma, progress bool, id int64) []byte {
	if st.legacy && !progress {
		return b
	}
	if comma {
		b = append(b, ',')
	}
	b = append(b, `"_meta":{`...)
	if !st.legacy {
		b = append(b, st.meta...)
		if progress {
			b = append(b, ',')
		}
	}
	if progress {
		b = append(b, `"progressToken":`...)
		b = strconv.AppendInt(b, id, 10)
	}
	return append(b, '}')
}

// modernMeta encodes the _meta members every modern request carries.
func (s *Session) modernMeta(version string) []byte {
	b := []byte(`"io.modelcontextprotocol/protocolVersion":`)
	b = jsonrpc.AppendString(b, version)
	b = append(b, `,"io.modelcontextprotocol/clientCapabilities":`...)
	b = append(b, s.clientCapabilities(version)...)
	b = append(b, `,"io.modelcontextprotocol/clientInfo":{"name":`...)
	b = jsonrpc.AppendString(b, s.opts.ClientName)
	b = append(b, `,"version":`...)
	b = jsonrpc.AppendString(b, s.opts.ClientVersion)
	return append(b, '}')
}

// TimeoutError reports a request that got no response in time. It matches
// context.DeadlineExceeded with errors.Is.
type TimeoutError struct {
	Method  string
	Name    string // the tool, for tools/call
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	what := e.Method
	if e.Name != "" {
		what += " " + e.Name
	}
	return what + ": no response within " + e.Timeout.String()
}

// Is makes a TimeoutError match context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// readLoop reads every message from the connection until it ends.
func (s *Session) readLoop() {
	defer close(s.readerDone)
	for s.dispatch(s.conn.Read(s.ctx)) {
	}
}

// dispatch acts on what one Read returned, and reports whether the
// connection still works.
func (s *Session) dispatch(data []byte, err error) bool {
	if err == nil {
		s.handle(data)
		return true
	}
	var tl *MessageTooLargeError
	if errors.As(err, &tl) {
		s.tooLarge(tl)
		return true
	}
	var re *RequestError
	if errors.As(err, &re) {
		s.requestFailed(re)
		return true
	}
	s.fail(err)
	return false
}

// fail ends the Session after the connection failed, and fails every call in
// flight with the reason.
func (s *Session) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		var se *ServerExitedError
		if !errors.As(err, &se) && !errors.Is(err, ErrClosed) {
			err = fmt.Errorf("connection to the server lost: %w", err)
		}
		s.err = err
		s.log.Warn("connection to the server ended", "error", err)
	}
	select {
	case <-s.dead:
	default:
		close(s.dead)
	}
	err = s.err
	pending := s.pending
	s.pending = make(map[int64]*call)
	s.mu.Unlock()
	for _, c := range pending {
		c.ch <- reply{err: err}
	}
}

// tooLarge fails the one request an oversize message answered.
func (s *Session) tooLarge(e *MessageTooLargeError) {
	raw, ok := jsonrpc.FindID(e.Prefix, e.Suffix)
	id, isInt := jsonrpc.Int(raw)
	if !ok || !isInt {
		s.log.Warn("dropped an oversize message from the server", "limit", e.Limit)
		return
	}
	s.deliver(id, raw, reply{err: e})
}

// requestFailed fails the one request whose response stream broke, such as
// a modern Streamable HTTP stream cut before its response; the connection
// itself stays usable.
func (s *Session) requestFailed(e *RequestError) {
	id, ok := jsonrpc.Int([]byte(e.ID))
	if !ok {
		s.log.Warn("a response stream failed for an unknown request", "id", e.ID, "error", e.Err)
		return
	}
	s.deliver(id, []byte(e.ID), reply{err: e})
}

// deliver hands rep to the call with the given id.
func (s *Session) deliver(id int64, rawID []byte, rep reply) {
	s.mu.Lock()
	c := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if c == nil {
		if id > 0 && id <= s.nextID.Load() {
			s.log.Debug("ignored a response to a request no longer waiting", "id", string(rawID))
		} else {
			s.log.Warn("ignored a response with an unknown id", "id", string(rawID))
		}
		return
	}
	c.ch <- rep
}

// handle dispatches one message or batch from the server.
func (s *Session) handle(data []byte) {
	if jsonrpc.IsBatch(data) {
		if err := jsonrpc.Batch(data, func(m []byte) error { s.handleOne(m); return nil }); err != nil {
			s.log.Warn("ignored the rest of a malformed batch from the server", "error", err)
		}
		return
	}
	s.handleOne(data)
}

func (s *Session) handleOne(data []byte) {
	m, err := jsonrpc.Decode(data)
	if err != nil {
		s.malformed(data, err)
		return
	}
	switch m.Kind {
	case jsonrpc.KindResponse:
		id, ok := jsonrpc.Int(m.ID)
		if s.opts.LogTraffic {
			s.traceIn(data, s.pendingTool(id))
		}
		if !ok {
			s.log.Warn("ignored a response with an unknown id", "id", string(m.ID))
			return
		}
		var rep reply
		if m.Error != nil && !jsonrpc.IsNull(m.Error) {
			e := decodeRPCError(m.Error)
			if s.scrubber != nil {
				e.Message = s.scrub(e.Message)
				if len(e.Data) > 0 {
					e.Data = []byte(s.scrub(string(e.Data)))
				}
			}
			rep.err = e
		} else {
			rep.result = m.Result
		}
		s.deliver(id, m.ID, rep)
	case jsonrpc.KindRequest:
		if s.opts.LogTraffic {
			s.traceIn(data, "")
		}
		s.wg.Add(1)
		go s.serveRequest(bytes.Clone(m.ID), m.Method, bytes.Clone(m.Params))
	case jsonrpc.KindNotification:
		if s.opts.LogTraffic {
			s.traceIn(data, "")
		}
		s.notification(m.Method, m.Params)
	}
}

// pendingTool returns the tool of the pending call id, for logging.
func (s *Session) pendingTool(id int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.pending[id]; c != nil {
		return c.tool
	}
	return ""
}

// malformed handles a message that is not valid JSON-RPC: if its id can be
// read and names a call in flight, that call fails; otherwise it is logged
// and dropped.
func (s *Session) malformed(data []byte, err error) {
	if raw, ok := jsonrpc.FindID(data, data); ok {
		if id, isInt := jsonrpc.Int(raw); isInt && s.isPending(id) {
			s.deliver(id, raw, reply{err: fmt.Errorf("invalid response from the server: %v", err)})
			return
		}
	}
	s.log.Warn("ignored a malformed message from the server", "error", err, "message", snippet([]byte(s.scrub(string(data)))))
}

func (s *Session) isPending(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending[id] != nil
}

// snippet returns the start of data for a log record.
func snippet(data []byte) string {
	const max = 200
	if len(data) > max {
		return string(data[:max]) + "..."
	}
	return string(data)
}

func decodeRPCError(raw []byte) *RPCError {
	var e RPCError
	if err := json.Unmarshal(raw, &e); err != nil {
		return &RPCError{Code: CodeInternalError, Message: "malformed error response: " + snippet(raw)}
	}
	if len(e.Data) > 0 {
		e.Data = append(json.RawMessage(nil), e.Data...)
	}
	return &e
}

// serveRequest answers a request from the server: ping, the requests the
// Options' handlers serve, and -32601 for everything else.
func (s *Session) serveRequest(id []byte, method string, params []byte) {
	defer s.wg.Done()
	if s.serveHandled(id, method, params) {
		return
	}
	var b []byte
	if method == "ping" {
		b = jsonrpc.AppendResult(nil, id, []byte("{}"))
	} else {
		b = jsonrpc.AppendError(nil, id, CodeMethodNotFound, "method not found: "+method)
	}
	s.writeResponse(id, method, b)
}

// writeResponse sends b, the response to the server's request id.
func (s *Session) writeResponse(id []byte, method string, b []byte) {
	st := s.state.Load()
	if st == nil {
		st = &negotiated{legacy: true}
	}
	m := &OutMessage{Data: b, ID: string(id), ProtocolVersion: st.version}
	if s.opts.LogTraffic {
		s.traceOut(m, "")
	}
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	if err := s.conn.Write(ctx, m); err != nil {
		s.log.Debug("answering a server request failed", "method", method, "error", err)
	}
}

// notification handles a notification from the server.
func (s *Session) notification(method string, params []byte) {
	switch method {
	case "notifications/progress":
		s.progress(params)
	case "notifications/tools/list_changed":
		s.invalidateTools()
		select {
		case s.changed <- struct{}{}:
		default:
		}
	case "notifications/message":
		s.serverLog(params)
	case "notifications/subscriptions/acknowledged":
		s.log.Debug("subscription acknowledged", "notifications", snippet(params))
	case "notifications/cancelled":
		s.serverCancelled(params)
	case "notifications/elicitation/complete":
		s.elicitationComplete(params)
	default:
		s.log.Debug("ignored a notification", "method", method)
	}
}

// serverCancelled handles a notifications/cancelled from the server. In the
// 2026-07-28 era it ends a subscriptions/listen request (any request of ours
// it names fails). In the legacy era it names a request the server sent:
// a handler working on it is cancelled.
func (s *Session) serverCancelled(params []byte) {
	if st := s.state.Load(); st == nil || st.legacy {
		// A legacy server cancels only requests it sent.
		if s.cancelServed(params) {
			return
		}
		s.log.Debug("the server cancelled a request", "params", snippet(params))
		return
	}
	var id int64
	var ok bool
	_ = jsonrpc.ObjectEach(params, func(key []byte, escaped bool, v []byte) error {
		if jsonrpc.KeyIs(key, escaped, "requestId") {
			id, ok = jsonrpc.Int(v)
		}
		return nil
	})
	if !ok || !s.isPending(id) {
		s.log.Debug("the server cancelled a request", "params", snippet(params))
		return
	}
	s.deliver(id, nil, reply{err: errors.New("the server cancelled the request")})
}

// changedLoop runs OnToolsChanged for list-changed notifications, one at a
// time, coalescing those that arrive meanwhile.
func (s *Session) changedLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.readerDone:
			return
		case <-s.changed:
			s.opts.OnToolsChanged()
		}
	}
}

// listen keeps a 2026-07-28 subscriptions/listen request open for tool list
// changes until the Session closes or the server ends it.
func (s *Session) listen(ctx context.Context) {
	defer close(s.listenDone)
	st := s.state.Load()
	_, err := s.do(ctx, st, &request{method: "subscriptions/listen", timeout: -1, noResend: true, passive: true}, func(b []byte) []byte {
		return append(b, `"notifications":{"toolsListChanged":true}`...)
	})
	if err != nil && ctx.Err() == nil {
		s.log.Warn("the tool list subscription ended", "error", err)
	}
}
