package runtime

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// A Session is a connection to one MCP server, after version negotiation.
// It is safe for use by many goroutines at once, and it implements Caller.
type Session struct {
	conn Conn
	opts Options
	log  *slog.Logger

	// cc is what the connection declared (see ConnCapabilities);
	// cc.SetReadDeadline is nil unless it works. On a connection whose Read
	// a deadline can interrupt, a call waiting for its response reads the
	// connection itself when nobody else does, which saves handing every
	// response from one goroutine to another; readMu is the turn to read.
	cc     ConnCapabilities
	readMu sync.Mutex
	// idleTimer wakes idleReader: armed when the turn to read is freed,
	// so that no timer runs while a call holds the turn.
	idleTimer *time.Timer

	// canceler is cc.CancelRequest: set when conn ends requests by their
	// id.
	canceler func(id string)

	// toolParams holds the x-mcp-header annotations of the tools last
	// listed, by tool name; listMu serializes the listing a call makes to
	// learn them.
	toolParams atomic.Pointer[map[string]toolParams]
	listMu     sync.Mutex

	// toolsCache is the last listing ListTools may serve again (see
	// toolscache.go); toolsGen counts the list-changed notifications.
	toolsCache atomic.Pointer[toolsCache]
	toolsGen   atomic.Uint64

	// taskSupport holds the taskSupport of the tools last listed that allow
	// tasks (2025-11-25), nil until a listing and again once the server
	// says its tools changed; taskProgress the progress functions of
	// running tasks, by the progress token of the call that created them,
	// at most maxLiveTasks of them (see routeTaskProgress).
	taskSupport  atomic.Pointer[map[string]string]
	taskProgress sync.Map
	// liveTasks holds the tasks whose outcome is not known yet, by id, to
	// notice a server naming a new task with the id of one of them (see
	// trackTask); progressOrder the tokens routed to taskProgress, oldest
	// first, some of which may have been unrouted since, and progressRoutes
	// how many taskProgress holds. tasksMu guards the three.
	tasksMu        sync.Mutex
	liveTasks      map[string]*Task
	progressOrder  []int64
	progressRoutes int

	nextID atomic.Int64

	// outChain and inChain are Options.Middleware around the Session's
	// requests and around the server's; nil without middleware. info is
	// what the middleware learns of the Session.
	outChain, inChain Handler
	info              *SessionInfo
	// endInfo ends the context of info's AfterClose when the connection
	// fails; Close ends it with ctx.
	endInfo context.CancelFunc

	mu      sync.Mutex
	pending map[int64]*call
	err     error // why the Session no longer works; nil while it does

	state atomic.Pointer[negotiated]
	hsMu  sync.Mutex
	hsGen atomic.Uint64

	// eraCheck, when set, is the probe sent alongside the first requests
	// (see eracache.go); it is set before Connect returns.
	eraCheck *eraCheck

	ctx        context.Context
	cancel     context.CancelFunc
	readerDone chan struct{}
	// stopReadLoop ends the context readLoop reads with; nil when the
	// Session reads on its callers' goroutines and idleReader's.
	stopReadLoop context.CancelFunc
	dead         chan struct{} // closed when the connection has failed
	wg           sync.WaitGroup
	changed      chan struct{}

	// listenCancel ends the subscriptions/listen request, whose goroutine
	// closes listenDone.
	listenCancel context.CancelFunc
	listenDone   chan struct{}
	// listenAcked is closed, once (ackOnce), when the server has
	// acknowledged the subscriptions/listen request. It is made with the
	// Session, before the reader starts, which may read an
	// acknowledgement at any time.
	listenAcked chan struct{}
	ackOnce     sync.Once

	// served holds the server requests handlers are working on;
	// requests bounds them (see serverreq_bounds.go).
	served   served
	requests serverRequests
	// sampling holds a token for each run of the Sampling handler.
	sampling chan struct{}

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
	// provisional marks the state of an era check still running: the
	// remembered version, without what the server/discover result says.
	provisional bool
	// declared is the protocol version whose capabilities the client
	// declared in initialize, which the server may have lowered to version;
	// empty when they are those of version, as in the modern era.
	declared string
}

// declaredVersion returns the protocol version whose capabilities the client
// declared to the server, "" before one was negotiated.
func (s *Session) declaredVersion() string {
	st := s.state.Load()
	switch {
	case st == nil:
		return ""
	case st.declared != "":
		return st.declared
	}
	return st.version
}

// Connect connects to the server t reaches, negotiates the protocol version
// (see Options.ProtocolVersion) and returns the ready Session. ctx bounds the
// connection and the negotiation, and the wait below, only; when they fail,
// the deadline of ctx bounds stopping a stdio server too. With
// Options.OnToolsChanged, in the 2026-07-28 era, Connect also waits for the
// server to acknowledge the tool list subscription, at most 10 s (see
// Options.OnToolsChanged); Connect fails when ctx ends first.
//
// Over Streamable HTTP, the process remembers the modern protocol version
// each endpoint (scheme, host and path) negotiated. A later Connect to an
// endpoint remembered as modern does not wait for the server/discover
// probe: it returns at once. Listings (tools/list, prompts/list,
// resources/list, resources/templates/list) are sent without the probe;
// the first other request, or call of ProtocolVersion, ServerInfo,
// Capabilities or Instructions, or a listing the server refuses, sends it
// and waits for its answer. When the answer shows the server is not modern
// any more, the Session forgets the endpoint's era, falls back to the
// initialize handshake, and sends again the listing the server refused.
// Sessions with an Authorizer always probe first. A pinned modern version
// (Options.ProtocolVersion) is treated as a remembered one, in a fresh
// process too; over stdio, the probe then goes out at once, ahead of every
// request, and the first listings follow it without waiting for its
// answer. A Session whose probe, sent alongside its first requests, leaves
// it with no protocol version ends, as Connect would have failed: Err says
// why.
func Connect(ctx context.Context, t Transport, opts *Options) (*Session, error) {
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s := newSession(conn, opts)
	if err := s.negotiate(ctx); err != nil {
		s.closeWithin(ctx)
		return nil, err
	}
	if s.opts.OnToolsChanged != nil {
		st, err := s.current(ctx)
		if err != nil {
			s.closeWithin(ctx)
			return nil, err
		}
		s.wg.Add(1)
		go s.changedLoop()
		if !st.legacy && st.caps.ToolsListChanged {
			lctx, cancel := context.WithCancel(s.ctx)
			s.listenCancel, s.listenDone = cancel, make(chan struct{})
			go s.listen(lctx)
			if err := s.awaitSubscription(ctx); err != nil {
				s.closeWithin(ctx)
				return nil, err
			}
		}
	}
	if s.opts.SnapshotHash != "" {
		if _, err := s.ListTools(ctx); err != nil {
			var de *DriftError
			if errors.As(err, &de) || !isToolsUnsupported(err) {
				s.closeWithin(ctx)
				return nil, err
			}
		}
	}
	return s, nil
}

func newSession(conn Conn, opts *Options) *Session {
	s := &Session{
		conn:        conn,
		pending:     make(map[int64]*call),
		readerDone:  make(chan struct{}),
		dead:        make(chan struct{}),
		changed:     make(chan struct{}, 1),
		listenAcked: make(chan struct{}),
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
	if s.opts.Sampling != nil {
		if s.opts.MaxConcurrentSampling <= 0 {
			s.opts.MaxConcurrentSampling = DefaultMaxConcurrentSampling
		}
		s.sampling = make(chan struct{}, s.opts.MaxConcurrentSampling)
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = discardLogger
	}
	s.cc = connCapabilities(conn)
	s.canceler = s.cc.CancelRequest
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.buildChain()
	if s.cc.SetReadDeadline != nil && s.cc.SetReadDeadline(time.Time{}) != nil {
		s.cc.SetReadDeadline = nil
	}
	if s.cc.SetReadDeadline != nil {
		s.idleTimer = time.NewTimer(idleReadDelay)
		go s.idleReader()
	} else {
		rctx, stop := context.WithCancel(s.ctx)
		s.stopReadLoop = stop
		go s.readLoop(rctx)
	}
	return s
}

// ProtocolVersion returns the negotiated protocol version. Like ServerInfo,
// Capabilities and Instructions, it waits for the answer to the
// server/discover probe of a Session that sent it alongside its first
// requests (to a Streamable HTTP endpoint remembered as modern, or with a
// pinned modern Options.ProtocolVersion; see Connect), within
// Options.ProbeTimeout. When that probe fails, no version was negotiated:
// it returns "", and Err says why.
func (s *Session) ProtocolVersion() string { return s.settled().version }

// ServerInfo returns the server's implementation info.
func (s *Session) ServerInfo() Implementation { return s.settled().serverInfo }

// Capabilities returns the capabilities the server declared.
func (s *Session) Capabilities() ServerCapabilities { return s.settled().caps }

// Instructions returns the server's instructions for the model, if any.
func (s *Session) Instructions() string { return s.settled().instructions }

// Done returns a channel closed when the connection has ended, by Close or
// because the server went away; Err then says why.
func (s *Session) Done() <-chan struct{} { return s.readerDone }

// Err returns nil while the Session works, and afterwards the reason it
// stopped: ErrClosed after Close, the transport's error, such as a
// *ServerExitedError, or the error of a probe sent alongside the first
// requests that left the Session with no protocol version (see Connect).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the Session: it fails calls in flight with ErrClosed, closes
// the connection (for a stdio server: stops and reaps the process) and waits
// for the Session's goroutines. It is safe to call more than once.
func (s *Session) Close() error { return s.CloseContext(context.Background()) }

// CloseContext is Close with the waits for the server bounded by ctx: a stdio
// server that has not exited when ctx ends is killed at once, instead of
// after the waits of CommandTransport.ShutdownTimeout. Pass a context with
// the deadline the whole work must meet, shutdown included; a context
// already done stops a stdio server that did not exit at once with SIGKILL.
func (s *Session) CloseContext(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		if s.err == nil {
			s.err = ErrClosed
		}
		s.mu.Unlock()
		if s.listenDone != nil {
			// End the subscription while the connection can still say so.
			s.listenCancel()
			t := time.NewTimer(2 * time.Second)
			select {
			case <-s.listenDone:
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
		s.cancel()
		if cc, ok := s.conn.(contextCloser); ok {
			s.closeErr = cc.closeContext(ctx)
		} else {
			s.closeErr = s.conn.Close()
		}
		<-s.readerDone
		s.wg.Wait()
		if s.listenDone != nil {
			<-s.listenDone
		}
	})
	return s.closeErr
}

// closeWithin closes s with its shutdown bounded by the deadline of ctx, if
// it has one, but not cut short when ctx is cancelled.
func (s *Session) closeWithin(ctx context.Context) {
	d, ok := ctx.Deadline()
	if !ok {
		s.Close()
		return
	}
	ctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), d)
	defer cancel()
	s.CloseContext(ctx)
}
