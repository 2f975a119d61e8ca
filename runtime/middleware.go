package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// A Handler sends one request and returns its response, or runs the
// handler of one request the server sent.
type Handler func(ctx context.Context, req *Request) (*Response, error)

// A Middleware wraps the Handler of every request a Session sends and of
// every request the server sends it (Request.FromServer), including the
// input requests of a 2026-07-28 result: it may look at the request, add
// _meta members (Request.SetMeta), start work whose context the request
// then carries, and look at the response or error. Middleware listed in
// Options.Middleware runs in order, the first outermost. With none, a
// Session does no work for it.
//
// A Middleware runs on the goroutine that sends the request, or that
// answers the server's. A request the Session sends again under another
// protocol version, or after a session expired, passes through it once; a
// tools/call whose result asks for input passes through it once per round,
// and the input requests of a round get the context it handed on. A
// legacy server's request names no call: its context is that of the call
// in flight when there is exactly one.
//
// A Middleware that calls next more than once sends the request again
// each time, under a new id after the first (Request.ID names the first):
// a session uses an id once. One that returns neither a response nor an
// error fails the request, and so does one that returns a result that is
// not JSON for a server's request; a panic in the Middleware of a server's
// request is answered as an error, as a handler's panic is.
//
// Session.ProtocolVersion, ServerInfo, Capabilities and Instructions wait
// for a server/discover probe sent alongside the first requests; a
// Middleware handling that probe (Request.Method "server/discover") that
// called them would wait for itself. Request.Session.ProtocolVersion does
// not wait.
type Middleware func(next Handler) Handler

// A Request is a request as a Middleware sees it.
type Request struct {
	// Method is the JSON-RPC method.
	Method string
	// Name is the tool of a tools/call, the prompt of a prompts/get, the
	// URI of a resources/read or resources/subscribe, and the task id of a
	// task request; empty otherwise.
	Name string
	// ID is the JSON-RPC id: the Session's for its requests, the server's
	// (as JSON text) for a server's request, and empty for the input
	// requests of a 2026-07-28 result, which have none.
	ID string
	// ProtocolVersion is the protocol version the request is sent under;
	// empty before the version is negotiated.
	ProtocolVersion string
	// FromServer marks a request the server sent the client.
	FromServer bool
	// Session describes the Session and its connection.
	Session *SessionInfo

	params  []byte // the members of a request's params
	raw     []byte // a server request's params
	meta    []byte // members added with SetMeta
	session *Session
}

// Params returns the request's params as a JSON object, without the _meta
// members the Session adds. It is computed at each call.
func (r *Request) Params() json.RawMessage {
	if r.FromServer {
		return r.raw
	}
	b := make([]byte, 0, len(r.params)+2)
	b = append(b, '{')
	b = append(b, r.params...)
	return append(b, '}')
}

// RedactedParams returns Params as the traffic log writes them: the values
// of secret-looking members replaced and the connection's credentials
// removed (see Options.LogTraffic).
func (r *Request) RedactedParams() string {
	return r.session.scrub(redactJSON(r.Params()))
}

// RedactedName returns Name with the connection's credentials removed, as
// the traffic log writes it: a tool name or a resource URI comes from the
// server, which may have put there a credential it received.
func (r *Request) RedactedName() string {
	return r.session.scrub(r.Name)
}

// RedactedID returns ID as a string, as the jsonrpc.request.id attribute of
// OpenTelemetry spells it: a server's id that is a JSON string without its
// quotes and escapes, with the connection's credentials removed, since the
// server chose it.
func (r *Request) RedactedID() string {
	id := r.ID
	if r.FromServer && strings.HasPrefix(id, `"`) {
		var str string
		if json.Unmarshal([]byte(id), &str) == nil {
			id = str
		}
	}
	return r.session.scrub(id)
}

// SetMeta adds the member key with the string value to the request's
// params._meta, in either protocol era, replacing nothing the Session
// sends. It has no effect on a request from the server.
func (r *Request) SetMeta(key, value string) {
	if len(r.meta) > 0 {
		r.meta = append(r.meta, ',')
	}
	r.meta = jsonrpc.AppendString(r.meta, key)
	r.meta = append(r.meta, ':')
	r.meta = jsonrpc.AppendString(r.meta, value)
}

// A Response is the outcome of a Request that did not fail.
type Response struct {
	// Result is the JSON-RPC result.
	Result json.RawMessage
	// IsError reports a tool call result whose isError is set: that of a
	// tools/call, of a tasks/result, or inlined by a tasks/get.
	IsError bool

	session *Session
}

// RedactedResult returns Result as the traffic log writes it (see
// Request.RedactedParams).
func (r *Response) RedactedResult() string {
	return r.session.scrub(redactJSON(r.Result))
}

// SessionInfo describes a Session and its connection for Middleware.
type SessionInfo struct {
	// Transport is "pipe" for a child process over stdio, "tcp" for the
	// HTTP transports and empty for any other Conn, as the network.transport
	// attribute of OpenTelemetry spells it.
	Transport string
	// ServerAddress and ServerPort are the host and port of an HTTP
	// server; empty and 0 otherwise.
	ServerAddress string
	ServerPort    int
	// Started is when the Session was created.
	Started time.Time

	s   *Session
	end context.Context // ends with the Session or its connection
}

// SessionID returns the Mcp-Session-Id of a Streamable HTTP session, empty
// when there is none, with the connection's credentials removed as from
// everything else the server chose: a server may make the id of a
// credential it received.
func (i *SessionInfo) SessionID() string {
	if sc, ok := i.s.conn.(interface{ currentSessionID() string }); ok {
		return i.s.scrub(sc.currentSessionID())
	}
	return ""
}

// AfterClose arranges for f to run, on a goroutine of its own, once the
// Session has been closed or its connection has ended. The returned stop
// function cancels that, as context.AfterFunc's does.
func (i *SessionInfo) AfterClose(f func()) (stop func() bool) {
	return context.AfterFunc(i.end, f)
}

// ProtocolVersion returns the protocol version the Session negotiated;
// empty before it has. Unlike Session.ProtocolVersion, it does not wait for
// a probe.
func (i *SessionInfo) ProtocolVersion() string {
	if st := i.s.state.Load(); st != nil && !st.provisional {
		return st.version
	}
	return ""
}

// Err returns nil while the Session works, and afterwards the reason it
// stopped, as Session.Err does: ErrClosed after Close.
func (i *SessionInfo) Err() error {
	return i.s.Err()
}

// newSessionInfo describes s for its middleware.
func newSessionInfo(s *Session) *SessionInfo {
	i := &SessionInfo{Started: time.Now(), s: s}
	i.end, s.endInfo = context.WithCancel(s.ctx)
	if ep, ok := s.conn.(interface{ netEndpoint() (string, string) }); ok {
		var rawURL string
		i.Transport, rawURL = ep.netEndpoint()
		if u, err := url.Parse(rawURL); err == nil && u.Host != "" {
			i.ServerAddress = u.Hostname()
			port := u.Port()
			if port == "" {
				port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
			}
			i.ServerPort, _ = strconv.Atoi(port)
			if ip := net.ParseIP(i.ServerAddress); ip != nil {
				i.ServerAddress = ip.String()
			}
		}
	}
	return i
}

// buildChain composes the middleware of s's Options around the Session's
// own handlers.
func (s *Session) buildChain() {
	if len(s.opts.Middleware) == 0 {
		return
	}
	s.info = newSessionInfo(s)
	out := Handler(s.sendIntercepted)
	in := Handler(s.serveIntercepted)
	for i := len(s.opts.Middleware) - 1; i >= 0; i-- {
		out = s.opts.Middleware[i](out)
		in = s.opts.Middleware[i](in)
	}
	s.outChain, s.inChain = out, in
}

// interceptedKey carries the negotiated state and the request of an
// intercepted sending through the middleware to sendIntercepted.
type interceptedKey struct{}

// intercepted is a sending on its way through the middleware. It holds
// copies, not the caller's request and params function, so that those do
// not escape to the heap on the path without middleware.
type intercepted struct {
	st     *negotiated
	r      request
	params []byte // the members of params, encoded once
	inner  context.Context
	// sent is set by the first sending; a Middleware that calls next
	// again sends the request under a new id.
	sent atomic.Bool
}

// doIntercepted sends r through the middleware.
func (s *Session) doIntercepted(ctx context.Context, st *negotiated, r *request, members func(b []byte) []byte) ([]byte, error) {
	if r.id == 0 {
		r.id = s.nextID.Add(1)
	}
	ic := &intercepted{st: st, r: *r}
	if members != nil {
		ic.params = members(nil)
	}
	req := &Request{Method: r.method, Name: r.name, ID: strconv.FormatInt(r.id, 10), ProtocolVersion: st.version, Session: s.info, params: ic.params, session: s}
	res, err := s.outChain(context.WithValue(ctx, interceptedKey{}, ic), req)
	r.inner = ic.inner
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errMiddlewareNoResponse(r.method)
	}
	return res.Result, nil
}

// sendIntercepted is the innermost Handler of the Session's requests.
func (s *Session) sendIntercepted(ctx context.Context, req *Request) (*Response, error) {
	ic := ctx.Value(interceptedKey{}).(*intercepted)
	r := ic.r
	if ic.sent.Swap(true) {
		r.id = 0 // sent again: the next id
	} else {
		ic.inner = ctx
	}
	r.meta = req.meta
	var members func(b []byte) []byte
	if len(ic.params) > 0 {
		members = func(b []byte) []byte { return append(b, ic.params...) }
	}
	res, err := s.doDirect(ctx, ic.st, &r, members)
	if err != nil {
		return nil, err
	}
	resp := &Response{Result: res, session: s}
	switch r.method {
	case "tools/call", "tasks/result":
		resp.IsError = isErrorSet(res)
	case "tasks/get":
		// A 2026-07-28 tasks/get inlines the result of a task that ended.
		resp.IsError = isErrorSet(objectMember(res, "result"))
	}
	return resp, nil
}

// isErrorSet reports whether the tool call result res has isError set.
func isErrorSet(res []byte) bool {
	set := false
	_ = jsonrpc.ObjectEach(res, func(key []byte, escaped bool, v []byte) error {
		if jsonrpc.KeyIs(key, escaped, "isError") {
			set = string(v) == "true"
		}
		return nil
	})
	return set
}

// serveIntercepted is the innermost Handler of the server's requests.
func (s *Session) serveIntercepted(ctx context.Context, req *Request) (*Response, error) {
	res, err, _ := s.answerDirect(ctx, req.Method, req.raw)
	if err != nil {
		return nil, err
	}
	return &Response{Result: res, session: s}, nil
}

// answerServerRequest runs the handler for a server's elicitation,
// sampling or roots request, through the middleware when there is some,
// and returns the result, or nil and the error to answer with. ok is false
// for a method no handler serves. id is the server's request id, nil for
// an input request.
func (s *Session) answerServerRequest(ctx context.Context, id []byte, method string, params []byte) (result []byte, err error, ok bool) {
	if s.inChain == nil || !s.hasHandler(method) {
		return s.answerDirect(ctx, method, params)
	}
	req := &Request{Method: method, ID: string(id), FromServer: true, Session: s.info, raw: params, session: s}
	if st := s.state.Load(); st != nil {
		req.ProtocolVersion = st.version
	}
	res, err := s.serveChain(ctx, req)
	if err != nil {
		return nil, err, true
	}
	return res.Result, nil, true
}

// serveChain runs the middleware of a server's request. A legacy server's
// request runs on a goroutine of the Session's, so a panic in a Middleware
// becomes the error the server is answered with, as a handler's does.
func (s *Session) serveChain(ctx context.Context, req *Request) (res *Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("%s middleware panicked: %v", req.Method, p)
		}
	}()
	res, err = s.inChain(ctx, req)
	switch {
	case err != nil:
	case res == nil:
		err = errMiddlewareNoResponse(req.Method)
	case !json.Valid(res.Result):
		// The result goes into the answer as it is.
		res, err = nil, fmt.Errorf("%s: a middleware returned a result that is not JSON", req.Method)
	}
	return res, err
}

// errMiddlewareNoResponse is the error of a request whose Middleware returned
// neither a response nor an error.
func errMiddlewareNoResponse(method string) error {
	return fmt.Errorf("%s: a middleware returned no response and no error", method)
}

// valuesFrom is a context that ends with Context and has the values of
// values: a server request's handler ends with the Session, and sees the
// values (a span, say) of the call it came with.
type valuesFrom struct {
	context.Context
	values context.Context
}

func (v valuesFrom) Value(key any) any { return v.values.Value(key) }

// withValuesOf returns a context that ends with ctx and has the values of
// values. values is seen through context.WithoutCancel, which hides its
// cancellation from the context package, so that context.Cause and the
// contexts derived from the result follow ctx alone.
func withValuesOf(ctx, values context.Context) context.Context {
	return valuesFrom{Context: ctx, values: context.WithoutCancel(values)}
}

// serverRequestContext returns the context for the handler of a legacy
// server request: s.ctx, with the values of the call in flight when there
// is exactly one, which must be the call the request came with.
func (s *Session) serverRequestContext() context.Context {
	if s.inChain == nil {
		return s.ctx
	}
	var only context.Context
	s.mu.Lock()
	for _, c := range s.pending {
		if c.passive || c.ctx == nil {
			continue
		}
		if only != nil {
			only = nil
			break
		}
		only = c.ctx
	}
	s.mu.Unlock()
	if only == nil {
		return s.ctx
	}
	return withValuesOf(s.ctx, only)
}

// What the transports tell SessionInfo: the network.transport value and the
// server's URL, and the session id of Streamable HTTP.

func (c *stdioConn) netEndpoint() (string, string)      { return "pipe", "" }
func (c *streamableConn) netEndpoint() (string, string) { return "tcp", c.url }
func (c *sseConn) netEndpoint() (string, string)        { return "tcp", c.endpoint }
func (c *autoConn) netEndpoint() (string, string)       { return "tcp", c.url }

func (c *streamableConn) currentSessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

func (c *autoConn) currentSessionID() string {
	c.mu.Lock()
	cur := c.cur
	c.mu.Unlock()
	if sc, ok := cur.(*streamableConn); ok {
		return sc.currentSessionID()
	}
	return ""
}
