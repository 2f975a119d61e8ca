package runtime

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

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
	// ctx is the caller's context, kept only when middleware may need it
	// (see serverRequestContext).
	ctx context.Context
	// promoted is set, under Session.mu, when the turn to read has been
	// sent to this call on ch and it has not taken it yet; passive calls
	// never get it.
	promoted bool
	passive  bool

	// wtimer ends a Write that outlives the call's timeout, through
	// wcancel or, on a connection that ends requests by id, through
	// wconn; wfired records that it did. It is created with the call and
	// reused, so that arming it allocates nothing.
	wtimer  *time.Timer
	wmu     sync.Mutex
	wcancel context.CancelFunc
	wconn   func(id string)
	wfired  bool
}

// writeTimedOut runs when a call's Write outlives its timeout.
func (c *call) writeTimedOut() {
	c.wmu.Lock()
	c.wfired = true
	if c.wcancel != nil {
		c.wcancel()
	}
	if c.wconn != nil {
		c.wconn(c.msg.ID)
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
			c.wcancel, c.wconn = nil, nil
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
	// meta holds the _meta members a Middleware added.
	meta []byte
	// inner is the context the middleware handed on, set once it has run:
	// the input requests its result asks for see its values (a span, say).
	inner context.Context
	// written, when set, is called once Write has returned without error.
	written func()
}

// causeContext returns ctx with the values of the context the middleware
// handed on for r, for the handlers of the input requests r's result asked
// for; ctx when there is no middleware.
func (r *request) causeContext(ctx context.Context) context.Context {
	if r.inner == nil {
		return ctx
	}
	return withValuesOf(ctx, r.inner)
}

// do sends r under st and waits for its result, which is a slice of the
// message the connection delivered. members, when not nil, appends the
// members of params other than _meta; it is a parameter of its own, apart
// from r, so that it does not escape. A modern request the server rejects
// with -32022 is sent once more, with a version both sides speak (see
// versionRetry); the probe settles its version itself.
func (s *Session) do(ctx context.Context, st *negotiated, r *request, members func(b []byte) []byte) ([]byte, error) {
	if s.outChain != nil {
		return s.doIntercepted(ctx, st, r, members)
	}
	return s.doDirect(ctx, st, r, members)
}

// doDirect is do without the middleware.
func (s *Session) doDirect(ctx context.Context, st *negotiated, r *request, members func(b []byte) []byte) ([]byte, error) {
	if st.provisional {
		return s.doProvisional(ctx, st, r, members)
	}
	return s.doSettled(ctx, st, r, members)
}

// doProvisional sends r while an era check runs (see eraCheck): a listing
// at once under st, and any other request once the check has ended. A
// listing that fails waits for the check too, and is sent again under what
// the check settled when that is another era.
func (s *Session) doProvisional(ctx context.Context, st *negotiated, r *request, members func(b []byte) []byte) ([]byte, error) {
	if !sendsBeforeEraCheck(r.method) {
		cur, err := s.current(ctx)
		if err != nil {
			return nil, err
		}
		return s.doSettled(ctx, cur, r, members)
	}
	res, err := s.doSettled(ctx, st, r, members)
	if err == nil {
		return res, nil
	}
	cur, cerr := s.current(ctx)
	if cerr != nil {
		return nil, cerr
	}
	if !cur.legacy {
		return res, err
	}
	s.log.Debug("sending again under the era the probe settled", "method", r.method, "version", cur.version)
	return s.doSettled(ctx, cur, r, members)
}

// doSettled sends r under st, as do describes.
func (s *Session) doSettled(ctx context.Context, st *negotiated, r *request, members func(b []byte) []byte) ([]byte, error) {
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
	if err := s.awaitProbeWritten(ctx, r); err != nil {
		return nil, err
	}
	c := callPool.Get().(*call)
	id := r.id
	if id == 0 {
		id = s.nextID.Add(1)
	}
	c.id, c.progress, c.tool, c.passive = id, r.progress, r.name, r.passive
	if s.inChain != nil {
		c.ctx = ctx
	}

	bp := bufPool.Get().(*[]byte)
	b := jsonrpc.AppendRequestHead((*bp)[:0], id, r.method)
	n := len(b)
	if members != nil {
		b = members(b)
	}
	b = s.appendMeta(b, st, len(b) > n, r.progress != nil, id, r.meta)
	b = withNewline(append(b, '}', '}'))
	*bp = b
	data := b
	if !s.cc.ReleasesData {
		// The connection may use Data after Write returns (an HTTP client
		// may still be sending the body): it gets a copy of its own, of
		// the message's size, and the pooled buffer is reused at once.
		data = append(make([]byte, 0, len(data)), data...)
		putBuf(bp)
		bp = nil
	}
	c.msg = OutMessage{Data: data, Method: r.method, ID: strconv.FormatInt(id, 10), Name: r.name, ProtocolVersion: st.version, ParamHeaders: r.params}

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
	switch {
	case s.canceler != nil:
		// The connection ends the request by its id, when the call ends
		// and when its timeout passes while Write runs: Write gets the
		// caller's context as it is, and no context is made per call.
		defer s.canceler(c.msg.ID)
	case !s.cc.WriteIgnoresContext:
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
		if bp != nil {
			putBuf(bp)
		}
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
	case timeout > 0 && s.cc.WriteWithin != nil:
		err = s.cc.WriteWithin(wctx, &c.msg, timeout)
		timedOut = errors.Is(err, ErrWriteTimeout)
	case timeout > 0 && (cancel != nil || s.canceler != nil):
		c.wmu.Lock()
		c.wcancel, c.wconn, c.wfired = cancel, s.canceler, false
		c.wmu.Unlock()
		c.wtimer.Reset(timeout)
		err = s.write(wctx, &c.msg, st, r.noResend)
		timedOut = c.disarmWrite()
	default:
		err = s.write(wctx, &c.msg, st, r.noResend)
	}
	if err == nil && r.written != nil {
		r.written()
	}
	if bp != nil {
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

	if s.cc.SetReadDeadline != nil && !r.passive && s.readMu.TryLock() {
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
			if s.canceler != nil {
				s.canceler(c.msg.ID)
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
	c.ctx = nil
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
	if raced || r.noCancel || (!st.legacy && s.cc.CancelsByClosing) {
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
	m := &OutMessage{Data: withNewline(data), Method: method, ProtocolVersion: st.version}
	if s.opts.LogTraffic {
		s.traceOut(m, "")
	}
	return s.write(ctx, m, st, true)
}

// withNewline returns data with a newline just past its end, where a stdio
// connection looks for one, so that the line goes out in one write: a line
// written in two parts makes the server read, and wait, twice.
func withNewline(data []byte) []byte {
	data = append(data, '\n')
	return data[:len(data)-1]
}

// newlinePast reports whether withNewline left a newline just past the end
// of data.
func newlinePast(data []byte) bool {
	return cap(data) > len(data) && data[:len(data)+1][len(data)] == '\n'
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
// triple, a progress token when asked, and the members extra a Middleware
// added.
func (s *Session) appendMeta(b []byte, st *negotiated, comma, progress bool, id int64, extra []byte) []byte {
	if st.legacy && !progress && len(extra) == 0 {
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
	if len(extra) > 0 {
		if !st.legacy || progress {
			b = append(b, ',')
		}
		b = append(b, extra...)
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
