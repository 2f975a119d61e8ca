package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/sse"
)

// StreamableHTTP returns a Transport to the Streamable HTTP endpoint at
// rawURL, the transport of protocol 2025-03-26 and later.
//
// Every message is a POST. A request's response comes back as a JSON body or
// as an SSE stream carrying notifications and server requests before it.
// In the 2026-07-28 era each POST carries the MCP-Protocol-Version, Mcp-Method
// and Mcp-Name headers, a tools/call also the Mcp-Param-* headers of its
// x-mcp-header arguments, and closing a response stream cancels its request. In
// the legacy era the connection keeps the server's Mcp-Session-Id, opens the
// GET stream for server-initiated messages once the handshake is done,
// resumes broken streams with Last-Event-ID after the server's retry interval,
// reports a 404 on the session as ErrSessionExpired, and ends the session with
// DELETE on Close. Without a session id (a stateless server) the handshake's
// notifications/initialized goes out beside the first request after it
// rather than before it, saving that request a round trip.
func StreamableHTTP(rawURL string, opts *HTTPOptions) Transport {
	return &streamableTransport{url: rawURL, opts: opts}
}

type streamableTransport struct {
	url  string
	opts *HTTPOptions
}

func (t *streamableTransport) Connect(ctx context.Context) (Conn, error) {
	h, err := httpClientFor(t.url, t.opts)
	if err != nil {
		return nil, err
	}
	return newStreamableConn(h, t.url, nil), nil
}

// checkHTTPURL checks that rawURL is an absolute http or https URL. Its
// errors show the URL without query or credentials.
func checkHTTPURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("invalid server URL %q", redactURL(rawURL))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("invalid server URL %q: want an http:// or https:// URL", redactURL(rawURL))
	}
	return nil
}

// Header values shared by every request; net/http does not modify them.
var (
	headerJSON       = []string{"application/json"}
	headerAcceptBoth = []string{"application/json, text/event-stream"}
	headerAcceptSSE  = []string{"text/event-stream"}
)

// headerValues holds one shared header value slice for each protocol
// version and method name, the values of Mcp-Protocol-Version and
// Mcp-Method, so that a request allocates none for them.
var headerValues = func() map[string][]string {
	m := make(map[string][]string)
	for _, v := range supportedVersions {
		m[v] = []string{v}
	}
	for _, v := range []string{"tools/call", "tools/list", "server/discover", "resources/read", "resources/list",
		"prompts/get", "prompts/list", "subscriptions/listen", "tasks/get", "tasks/result", "tasks/cancel"} {
		m[v] = []string{v}
	}
	return m
}()

// sharedHeaderValue returns v as a header value slice, shared when it is a
// common one.
func sharedHeaderValue(v string) []string {
	if s, ok := headerValues[v]; ok {
		return s
	}
	return []string{v}
}

// streamableConn is a Conn over Streamable HTTP.
type streamableConn struct {
	h      *httpClient
	url    string
	in     *inbox
	ownsIn bool

	ctx    context.Context // ends with Close, and with it every stream
	cancel context.CancelFunc
	wg     sync.WaitGroup // Writes in progress and stream pumps

	mu        sync.Mutex
	closed    bool
	streams   map[string]*stream // requests not yet answered, by id; see cancelRequest
	sessionID string
	// expired is set once the server answered 404 to the session id, until
	// an initialize answer gives the next one: requests other than
	// initialize then fail with ErrSessionExpired instead of going out
	// without a session, which the server would refuse.
	expired bool
	// initializedErr is why the notifications/initialized that went out
	// beside the requests after it failed (see Write); every later Write
	// returns it.
	initializedErr error
	// initializedDone, while set, is closed once that notification has
	// been answered, or failed; Close waits for it.
	initializedDone chan struct{}
	version         string             // negotiated legacy version, from HandshakeDone
	stopGet         context.CancelFunc // ends the GET stream
	// getAnswered is closed once the server has answered the GET for
	// server messages (or it failed); nil while none was sent.
	getAnswered chan struct{}
	// getPending, while set, is the getAnswered of a session with a
	// session id that the server has not yet answered, and getPendingEnd
	// the time after which requests no longer wait for it (see
	// awaitGetStream).
	getPending    chan struct{}
	getPendingEnd time.Time
	// getGo, while set, starts the goroutine that sends the GET held back
	// until the first request after the handshake has been answered, or
	// until a request that needs the stream is sent (see HandshakeDone);
	// releaseGet calls it once, when one of those happens or getTimer
	// fires. Until then the held GET costs a timer, not a goroutine.
	getGo    func()
	getTimer *time.Timer
	// getReader is the reader of the GET stream while it is open; for
	// tests, which see through it whether the stream waits without a
	// buffer.
	getReader atomic.Pointer[sse.Reader]
	// getArmed is set once the end of a response stream will send the
	// GET held back by getGo (see Write): Close then waits for it.
	getArmed bool
	// hsStream, while set, is closed when the event stream that answered
	// initialize has ended, and with it the connection it held; the
	// message that follows waits for it (see awaitHandshakeStream): the
	// notifications/initialized, or the request after it when that goes
	// out beside it (see Write).
	hsStream chan struct{}
}

// newStreamableConn returns a connection that queues incoming messages in
// in, or in an inbox of its own when in is nil.
func newStreamableConn(h *httpClient, rawURL string, in *inbox) *streamableConn {
	c := &streamableConn{h: h, url: rawURL, in: in, streams: make(map[string]*stream)}
	if in == nil {
		c.in, c.ownsIn = newInbox(), true
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// logURL returns the endpoint's URL for errors and logs, without query
// or credentials. It is made when needed: most sessions never need it.
func (c *streamableConn) logURL() string { return redactURL(c.url) }

// ConnCapabilities declares what Streamable HTTP does: in the 2026-07-28
// era closing a request's response stream is its cancellation, the
// server answers every POST with a status, and tool arguments travel in
// Mcp-Param-* headers too.
func (c *streamableConn) ConnCapabilities() ConnCapabilities {
	return streamableCapabilities(c.h, c.cancelRequest)
}

// streamableCapabilities are the ConnCapabilities of a Streamable HTTP
// connection made with h, which ends a request by its id with cancel.
func streamableCapabilities(h *httpClient, cancel func(id string)) ConnCapabilities {
	return ConnCapabilities{
		CancelRequest:       cancel,
		CancelsByClosing:    true,
		SendsParamHeaders:   true,
		AnswersEveryRequest: true,
		ScrubSecrets:        h.scrub,
		AuthGeneration:      h.authGen.Load,
	}
}

func (c *streamableConn) Read(ctx context.Context) ([]byte, error) { return c.in.read(ctx) }

// Write POSTs m and returns once the response status and headers are in. A
// JSON response is queued for Read before Write returns; an SSE response is
// read by a goroutine. Until the response has arrived, ctx ending closes the
// stream (in the 2026-07-28 era, that cancels the request).
//
// The notifications/initialized of a session without a session id is the
// exception. A stateless server cannot tell one client's messages from
// another's, so it cannot hold a request until the notification has
// arrived: Write returns at once, and the POST goes out beside the requests
// that follow, which saves the first listing of a session a round trip.
// The notification does not wait for the end of initialize's event stream;
// the request after it does, and takes the connection that stream held.
// Should the notification fail, Read returns why, which ends the Session
// as a failed handshake would have, and so does every later Write. Close
// waits for the notification, however soon after the handshake it comes.
// Sign-in needs the caller's context, so with an Authorizer the
// notification waits for its answer as any message does.
func (c *streamableConn) Write(ctx context.Context, m *OutMessage) error {
	if !isModern(m.ProtocolVersion) && m.Method == "notifications/initialized" && c.h.auth == nil {
		c.mu.Lock()
		beside := !c.closed && c.sessionID == ""
		var done chan struct{}
		if beside {
			c.wg.Add(1)
			done = make(chan struct{})
			c.initializedDone = done
		}
		c.mu.Unlock()
		if beside {
			go c.writeInitialized(context.WithoutCancel(ctx), m, done)
			return nil
		}
	}
	return c.write(ctx, m, false)
}

// writeInitialized sends the notifications/initialized that Write sent
// on its own. When it fails, it keeps why for the Writes after it and
// hands it to Read, which ends the Session. A failure because the
// connection closed is no news to either.
func (c *streamableConn) writeInitialized(ctx context.Context, m *OutMessage, done chan struct{}) {
	defer c.wg.Done()
	err := c.write(ctx, m, true)
	close(done)
	if err == nil || errors.Is(err, ErrClosed) || c.ctx.Err() != nil {
		return
	}
	err = fmt.Errorf("sending notifications/initialized: %w", err)
	c.mu.Lock()
	closed := c.closed
	c.initializedErr = err
	c.mu.Unlock()
	if closed {
		return
	}
	c.h.log.Warn("notifications/initialized failed: the session ends", "url", c.logURL(), "error", err)
	c.in.put(c.ctx, item{err: err})
}

// write sends m as Write describes; beside is set for a
// notifications/initialized sent beside the requests after it.
func (c *streamableConn) write(ctx context.Context, m *OutMessage, beside bool) error {
	modern := isModern(m.ProtocolVersion)
	c.mu.Lock()
	if c.closed && !beside {
		// A notification sent beside goes out all the same: Close
		// waits for it (see closeContext).
		c.mu.Unlock()
		return ErrClosed
	}
	if err := c.initializedErr; err != nil && !beside {
		c.mu.Unlock()
		return err
	}
	var sid string
	if !modern && m.Method != "initialize" {
		if c.expired {
			c.mu.Unlock()
			return ErrSessionExpired
		}
		sid = c.sessionID
	}
	pending, until := c.getPending, c.getPendingEnd
	pushes := pending != nil && !modern && !causesNoPush(m.Method)
	// notifications/initialized, when it goes out beside the first
	// listing, leaves releasing the GET to the listing's answer.
	held, armed := c.getGo != nil && m.Method != "notifications/initialized", c.getArmed
	if held && pushes {
		// The stream must be in place before this request: the GET goes
		// now, and the request waits for its answer from now on.
		until = time.Now().Add(getOpenWait)
		c.getPendingEnd = until
	}
	// The message after the handshake waits for the end of initialize's
	// event stream: the notification, or the first request when the
	// notification goes out beside it. An answer to a request the server
	// sent on that stream does not, since the stream may wait for it.
	hs := c.hsStream
	if !modern && !beside && (m.Method == "notifications/initialized" || m.IsRequest() && m.Method != "initialize") {
		c.hsStream = nil
	} else {
		hs = nil
	}
	c.wg.Add(1)
	c.mu.Unlock()
	// releaseAfter is set while the GET held back goes out once this
	// request has been answered: when its answer is an event stream,
	// once that stream has ended (see pump).
	releaseAfter := false
	if held {
		if pushes {
			c.releaseGet()
		} else if !armed {
			releaseAfter = true
			defer func() {
				if releaseAfter {
					c.releaseGet()
				}
			}()
		}
	}
	handedOff := false
	defer func() {
		if !handedOff {
			c.wg.Done()
		}
	}()
	if hs != nil {
		c.awaitHandshakeStream(hs)
	}

	// The request lives in a context of the connection's, which the
	// caller's context and cancelRequest cancel until the response has
	// arrived. Once it has, the stream is read to its end even though the
	// caller's context ends, so that the HTTP connection can be reused.
	if pushes {
		if err := c.awaitGetStream(ctx, pending, until); err != nil {
			return err
		}
	}
	rctx, rcancel := context.WithCancel(c.ctx)
	s := &stream{ctx: rctx, cancel: rcancel, conn: c}
	if ctx.Done() != nil {
		s.stop = context.AfterFunc(ctx, rcancel)
	}
	if m.IsRequest() {
		s.id = m.ID
		c.mu.Lock()
		c.streams[m.ID] = s
		c.mu.Unlock()
	}
	if c.h.auth != nil {
		// A sign-in this request needs is bounded by the caller.
		rctx = withSignInContext(rctx, signInContext(ctx))
	}

	req, err := c.h.newRequest(rctx, http.MethodPost, c.url, m.Data)
	if err != nil {
		s.release()
		return err
	}
	hd := req.Header
	hd["Content-Type"] = headerJSON
	hd["Accept"] = headerAcceptBoth
	if m.ProtocolVersion != "" {
		hd["Mcp-Protocol-Version"] = sharedHeaderValue(m.ProtocolVersion)
	}
	if modern {
		if m.Method != "" {
			hd["Mcp-Method"] = sharedHeaderValue(m.Method)
		}
		if m.Name != "" {
			hd["Mcp-Name"] = []string{encodeHeaderValue(m.Name)}
		}
		for _, p := range m.ParamHeaders {
			hd.Set("Mcp-Param-"+p.Name, encodeHeaderValue(p.Value))
		}
	} else if sid != "" {
		hd["Mcp-Session-Id"] = []string{sid}
	}

	resp, err := c.h.do(req)
	if err != nil {
		s.release()
		switch {
		case errors.Is(err, errAuthorizedLate):
			return err
		case ctx.Err() != nil:
			return fmt.Errorf("POST %s: %w", c.logURL(), ctx.Err())
		case c.ctx.Err() != nil:
			return ErrClosed
		}
		return err
	}

	switch status := resp.StatusCode; {
	case status == http.StatusNotFound && sid != "":
		drain(resp.Body)
		s.release()
		c.expire(sid)
		return ErrSessionExpired
	case status == http.StatusAccepted || status == http.StatusNoContent:
		drain(resp.Body)
		s.release()
		if m.IsRequest() {
			// A request is answered with JSON or an event stream: without
			// either, it would wait out its timeout for a response that
			// cannot come.
			return fmt.Errorf("POST %s: the server answered the request with HTTP %d, which %w", c.logURL(), status, errNoResponse)
		}
		return nil
	case status >= 200 && status < 300:
		if m.Method == "initialize" {
			c.setSession(resp.Header.Get("Mcp-Session-Id"))
		}
		switch mt := mediaType(resp.Header.Get("Content-Type")); mt {
		case "text/event-stream":
			var done chan struct{}
			if m.Method == "initialize" {
				done = make(chan struct{})
				c.mu.Lock()
				c.hsStream = done
				c.mu.Unlock()
			}
			release := false
			if releaseAfter {
				// The GET goes out once this stream has ended: it then
				// takes the connection the stream held, where sent
				// now it would open another beside it.
				c.mu.Lock()
				release = c.getGo != nil && !c.getArmed
				c.getArmed = c.getArmed || release
				c.mu.Unlock()
				releaseAfter = false
			}
			handedOff = true
			go c.pump(s, resp, m.ID, m.ProtocolVersion, done, release)
			return nil
		case "application/json", "":
			data, err := readBody(resp, c.h.maxSize)
			s.release()
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("POST %s: %w", c.logURL(), ctx.Err())
				}
				return fmt.Errorf("POST %s: reading the response: %w", c.logURL(), err)
			}
			if len(jsonrpc.TrimSpace(data)) == 0 {
				if m.IsRequest() {
					return fmt.Errorf("POST %s: the JSON answer is empty: it %w", c.logURL(), errNoResponse)
				}
				return nil // an empty 200, as some servers answer notifications
			}
			if !c.in.put(ctx, item{data: data}) {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return ErrClosed
			}
			if m.IsRequest() && !holdsResponseFor(data, m.ID) {
				// A JSON answer is the request's only one: without the
				// response in it, the request would wait out its timeout.
				return fmt.Errorf("POST %s: the JSON answer %w", c.logURL(), errNoResponse)
			}
			return nil
		default:
			drain(resp.Body)
			s.release()
			return fmt.Errorf("POST %s: unexpected response content type %s", c.logURL(), c.h.quote(mt))
		}
	default:
		body := readErrorBody(resp)
		s.release()
		if rpcResponseFor(body, m.ID) {
			// A JSON-RPC error in an HTTP error status, as modern servers
			// send for -32022 or -32601: the request's answer.
			if !c.in.put(ctx, item{data: body}) {
				return ErrClosed
			}
			return nil
		}
		return c.h.statusError(http.MethodPost, c.url, status, body)
	}
}

// setSession records the session id from an initialize response.
func (c *streamableConn) setSession(id string) {
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			c.h.log.Warn("ignored an invalid Mcp-Session-Id from the server", "url", c.logURL())
			id = ""
			break
		}
	}
	c.mu.Lock()
	c.sessionID, c.expired = id, false
	c.mu.Unlock()
}

// releaseGet lets a GET held back by getGo go out. It starts the GET's
// goroutine under c.mu, and only while the connection's context is alive,
// so that Close, which cancels that context under c.mu before it waits for
// the connection's goroutines, waits for this one too.
func (c *streamableConn) releaseGet() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if start := c.takeHeldGet(); start != nil && c.ctx.Err() == nil {
		start()
	}
}

// takeHeldGet returns the starter of the held GET, if any, and forgets it
// and stops its timer. c.mu must be held.
func (c *streamableConn) takeHeldGet() func() {
	start := c.getGo
	c.getGo = nil
	if c.getTimer != nil {
		c.getTimer.Stop()
		c.getTimer = nil
	}
	return start
}

// expire forgets the session id sid after the server answered 404 to it, and
// stops the GET stream that belonged to it. Until an initialize answer
// gives a new session, Write fails other requests with ErrSessionExpired.
func (c *streamableConn) expire(sid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessionID != sid {
		return
	}
	c.sessionID, c.expired = "", true
	if c.stopGet != nil {
		c.stopGet()
		c.stopGet = nil
	}
}

func (c *streamableConn) session() (string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID, c.version
}

// HandshakeDone opens the GET stream for server-initiated messages, once a
// legacy handshake has negotiated version. A server that offers none answers
// 405, which is fine, and is not asked again for a while (see
// noGetStream).
//
// The GET goes out once the first request after the handshake has been
// answered (at most getDeferMax later), so that it costs that request
// neither a round trip nor a second connection opened beside it; a
// client's first request is most often a listing, which cannot make the
// server send anything on the stream. When the server gave a session id,
// a request that could (a tool call, say) sends the GET at once instead
// and waits for the server's answer to it, at most getOpenWait (see
// awaitGetStream), since a server drops what it sends to a stream that is
// not open yet. Without a session id (a stateless server), the server
// cannot tell this client's GET stream from another's, so it cannot send
// there what a later request of this client causes, and nothing waits.
// What a server sends on its own before the first answer, while no stream
// is open, it could as well have sent before a GET sent beside that
// request arrived: the ordering between them was never assured.
func (c *streamableConn) HandshakeDone(version string) {
	if isModern(version) {
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.version = version
	if c.stopGet != nil {
		c.stopGet()
		c.stopGet = nil
	}
	if offersNoGetStream(c.eraKey()) {
		c.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.stopGet = cancel
	opened := make(chan struct{})
	c.getAnswered = opened
	c.takeHeldGet() // an earlier handshake's
	c.getGo = func() {
		c.wg.Add(1)
		go c.listen(ctx, version, opened)
	}
	c.getTimer = time.AfterFunc(getDeferMax, c.releaseGet)
	c.getPending = nil
	if c.sessionID != "" {
		c.getPending, c.getPendingEnd = opened, time.Now().Add(getDeferMax+getOpenWait)
	}
	c.mu.Unlock()
}

// awaitHandshakeStream waits until the event stream that answered
// initialize, hs, has ended, at most handshakeStreamWait. Servers end it
// right after the response, and the connection it held is then free for
// the message after the handshake and the requests after it; sent before,
// that message would find it busy and open another, which a fresh
// process pays for with a dial, and the server with a connection to
// serve.
func (c *streamableConn) awaitHandshakeStream(hs chan struct{}) {
	select {
	case <-hs:
		return
	default:
	}
	t := time.NewTimer(handshakeStreamWait)
	defer t.Stop()
	select {
	case <-hs:
	case <-t.C:
	case <-c.ctx.Done():
	}
}

// causesNoPush reports whether a message with method cannot make the
// server send anything on the GET stream: a listing or a ping only reads,
// so it need not wait for the stream to be in place.
func causesNoPush(method string) bool {
	switch method {
	case "", "ping", "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		return true
	}
	return false
}

// awaitGetStream waits until the server has answered the GET stream's
// request, pending, or until, whichever comes first: a server sends what
// a request causes outside its response, such as list_changed or a
// request of its own, on the GET stream, and drops it while that stream
// is not open yet.
func (c *streamableConn) awaitGetStream(ctx context.Context, pending chan struct{}, until time.Time) error {
	select {
	case <-pending:
	default:
		if d := time.Until(until); d > 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-pending:
			case <-t.C:
			case <-ctx.Done():
				return fmt.Errorf("POST %s: %w", c.logURL(), ctx.Err())
			case <-c.ctx.Done():
				return ErrClosed
			}
		}
	}
	c.mu.Lock()
	if c.getPending == pending {
		c.getPending = nil
	}
	c.mu.Unlock()
	return nil
}

// Close ends every stream, ends the session with DELETE when the server gave
// one, and waits for the connection's goroutines.
func (c *streamableConn) Close() error { return c.closeContext(context.Background()) }

// closeContext is Close with its waits for the server, for the answer to a
// notifications/initialized sent beside the requests after it, to a GET in
// flight and to the DELETE, ending when ctx does.
func (c *streamableConn) closeContext(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	sid, version := c.sessionID, c.version
	answered, held := c.getAnswered, c.getGo
	initialized := c.initializedDone
	if held != nil && !c.getArmed {
		answered = nil // the GET was never sent, and nothing will send it
		c.takeHeldGet()
	}
	c.mu.Unlock()
	if initialized != nil {
		// A session closed right after its first listing would
		// otherwise cancel the notifications/initialized sent beside it.
		t := time.NewTimer(initializedWait)
		select {
		case <-initialized:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	if answered != nil {
		// A short session would otherwise cancel its GET before the
		// server's answer, and never learn a 405 (see noGetStream). A
		// GET that waits for the end of a response stream goes out
		// once that has ended, which servers do right after the
		// response.
		t := time.NewTimer(getAnswerWait)
		select {
		case <-answered:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	// Under c.mu, so that releaseGet starts no goroutine once Wait below
	// may have begun; a GET still held (one a stream's end was to release)
	// is dropped with its timer.
	c.mu.Lock()
	c.cancel()
	c.takeHeldGet()
	c.mu.Unlock()
	if c.ownsIn {
		c.in.close()
	}
	if sid != "" {
		c.deleteSession(ctx, sid, version)
	}
	c.wg.Wait()
	return nil
}

// deleteSession ends the session sid with DELETE, within deleteTimeout and
// until ctx ends.
func (c *streamableConn) deleteSession(ctx context.Context, sid, version string) {
	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	req, err := c.h.newRequest(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	req.Header["Mcp-Session-Id"] = []string{sid}
	if version != "" {
		req.Header["Mcp-Protocol-Version"] = []string{version}
	}
	resp, err := c.h.do(req)
	if err != nil {
		c.h.log.Debug("ending the session failed", "url", c.logURL(), "error", err)
		return
	}
	drain(resp.Body)
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusMethodNotAllowed {
		c.h.log.Debug("ending the session failed", "url", c.logURL(), "status", resp.StatusCode)
	}
}

// openGet opens an SSE stream with GET: the stream for server-initiated
// messages, or with lastID the resumption of a broken stream.
func (c *streamableConn) openGet(ctx context.Context, lastID, version string) (*http.Response, error) {
	req, err := c.h.newRequest(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header["Accept"] = headerAcceptSSE
	sid, _ := c.session()
	if sid != "" {
		req.Header["Mcp-Session-Id"] = []string{sid}
	}
	if version != "" {
		req.Header["Mcp-Protocol-Version"] = []string{version}
	}
	if lastID != "" {
		req.Header["Last-Event-Id"] = []string{lastID}
	}
	var resp *http.Response
	if key := c.eraKey(); lastID == "" && key != "" && !offersGetStream(key) {
		// Nothing is known of the endpoint's answer yet: see
		// getStreamOffered.
		resp, err = c.h.do(req)
	} else {
		resp, err = c.h.doStream(req)
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, c.h.statusError(http.MethodGet, c.url, resp.StatusCode, readErrorBody(resp))
	}
	if mt := mediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		drain(resp.Body)
		return nil, fmt.Errorf("GET %s: unexpected response content type %s", c.logURL(), c.h.quote(mt))
	}
	return resp, nil
}

// eraKey returns the endpoint's key in the era cache; "" with an
// Authorizer, whose sign-in the probe should run alone.
func (c *streamableConn) eraKey() string {
	if c.h.auth != nil {
		return ""
	}
	return endpointKey(c.url)
}

// cancelRequest ends the request id, while it is being sent or its
// response stream is read, before the response has arrived: in the
// 2026-07-28 era that cancels it at the server.
func (c *streamableConn) cancelRequest(id string) {
	c.mu.Lock()
	s := c.streams[id]
	if s != nil {
		delete(c.streams, id)
	}
	c.mu.Unlock()
	if s != nil {
		s.cancel()
	}
}

// stream is the life of one request's response stream.
type stream struct {
	ctx    context.Context // ends with Close, the caller's context, cancelRequest or cancel
	cancel context.CancelFunc
	// stop stops the caller's context from ending ctx; nil when that
	// context never ends.
	stop func() bool
	// conn and id are the connection and the id under which
	// cancelRequest finds the stream; id is empty for a notification or a
	// response, which it never ends.
	conn *streamableConn
	id   string
	// delivered is set once a message of the stream has been queued.
	delivered bool
}

// detach stops the caller's context and cancelRequest from ending s. It
// reports false when one of them already has.
func (s *stream) detach() bool {
	attached := true
	if s.id != "" {
		c := s.conn
		c.mu.Lock()
		attached = c.streams[s.id] == s
		if attached {
			delete(c.streams, s.id)
		}
		c.mu.Unlock()
	}
	if s.stop != nil && !s.stop() {
		attached = false
	}
	return attached
}

func (s *stream) release() {
	s.detach()
	s.cancel()
}

// pump reads the SSE stream that answers the POST of request id (empty for
// a notification or a response) and queues its messages. When the stream
// breaks before the response in the legacy era, it resumes it with GET and
// Last-Event-ID. A request whose response cannot come any more is failed
// with a *RequestError.
//
// When the pump ends, it closes done, if set, and with release set lets
// the GET held back by getGo go out.
func (c *streamableConn) pump(s *stream, resp *http.Response, id, version string, done chan struct{}, release bool) {
	defer c.wg.Done()
	if release {
		defer c.releaseGet()
	}
	if done != nil {
		defer close(done)
	}
	defer s.release()
	r := sse.NewReader(resp.Body, c.h.maxSize)
	defer r.Release()
	body := resp.Body
	failures := 0
	for {
		done, got, err := c.readStream(s, r, body, id)
		if done || id == "" || s.ctx.Err() != nil {
			return
		}
		if got {
			failures = 0
		}
		if isModern(version) || r.LastID() == "" {
			c.failRequest(s.ctx, id, streamEndError(c.logURL(), err))
			return
		}
		c.h.log.Debug("resuming a broken response stream", "url", c.logURL(), "request", id)
		for {
			if failures >= maxResumeAttempts {
				c.failRequest(s.ctx, id, fmt.Errorf("the response stream from %s broke and %d attempts to resume it failed: %w", c.logURL(), failures, err))
				return
			}
			// A server that ends each resumed stream at once with a
			// retry of 0 would otherwise have the connection spin.
			if !sleep(s.ctx, max(retryDelay(r, failures), minGetRetry)) {
				return
			}
			failures++
			resp, err = c.openGet(s.ctx, r.LastID(), version)
			if err == nil {
				break
			}
			if s.ctx.Err() != nil {
				return
			}
			var he *HTTPError
			if errors.As(err, &he) && he.StatusCode != http.StatusTooManyRequests && he.StatusCode < 500 {
				c.failRequest(s.ctx, id, fmt.Errorf("resuming the response stream: %w", err))
				return
			}
		}
		body = resp.Body
		r.Reset(body)
	}
}

// streamEndError describes a response stream that ended without the
// response.
func streamEndError(logURL string, err error) error {
	if err == nil || err == io.EOF {
		return fmt.Errorf("the response stream from %s ended before the response", logURL)
	}
	return fmt.Errorf("the response stream from %s broke before the response: %w", logURL, err)
}

// failRequest hands Read a *RequestError for request id.
func (c *streamableConn) failRequest(ctx context.Context, id string, err error) {
	c.in.put(ctx, item{err: &RequestError{ID: id, Err: err}})
}

// readStream queues the messages of one SSE stream and closes body. done
// reports that the stream delivered the response to request id (or failed
// it); got that it carried at least one event. err is why the stream ended.
func (c *streamableConn) readStream(s *stream, r *sse.Reader, body io.ReadCloser, id string) (done, got bool, err error) {
	defer body.Close()
	for {
		ev, err := r.Next()
		if err != nil {
			var tl *sse.TooLargeError
			if !errors.As(err, &tl) {
				return false, got, err
			}
			got = true
			e := &MessageTooLargeError{Limit: tl.Limit, Prefix: tl.Prefix, Suffix: tl.Suffix}
			if id != "" {
				// The request gets the error; its stream is of no more use.
				c.in.put(s.ctx, item{err: &RequestError{ID: id, Err: e}})
				return true, got, nil
			}
			if !c.in.put(s.ctx, item{err: e}) {
				return false, got, s.ctx.Err()
			}
			s.delivered = true
			continue
		}
		got = true
		if len(ev.Data) == 0 || (ev.Type != "" && ev.Type != "message") {
			continue // a priming event, or an event type MCP does not use
		}
		isResponse := id != "" && isResponseTo(ev.Data, id)
		// The stream is detached before the response is queued: a caller
		// ends its context as soon as it has the response, and that must
		// not tear down the connection while drainStream reads the end.
		if isResponse && !s.detach() {
			return true, got, nil // the caller's context ended first: nobody waits for it
		}
		if !c.in.put(s.ctx, item{data: ev.Data}) {
			return false, got, s.ctx.Err()
		}
		s.delivered = true
		if isResponse {
			c.drainStream(s, r, body)
			return true, got, nil
		}
	}
}

// drainStream reads what follows the response, briefly: servers end the
// stream right after it, and a stream read to its end lets the HTTP
// connection be reused, where one abandoned would be torn down. s is
// already detached.
func (c *streamableConn) drainStream(s *stream, r *sse.Reader, body io.ReadCloser) {
	t := startGrace(s.cancel)
	defer t.stop()
	for {
		ev, err := r.Next()
		if err != nil {
			return
		}
		if len(ev.Data) > 0 && (ev.Type == "" || ev.Type == "message") {
			if !c.in.put(s.ctx, item{data: ev.Data}) {
				return
			}
		}
	}
}

// isResponseTo reports whether data is, or is a batch holding, the response
// to the request whose id is id.
func isResponseTo(data []byte, id string) bool {
	if jsonrpc.IsBatch(data) {
		found := false
		_ = jsonrpc.Batch(data, func(m []byte) error {
			found = found || isResponseTo(m, id)
			return nil
		})
		return found
	}
	m, err := jsonrpc.Decode(data)
	return err == nil && m.Kind == jsonrpc.KindResponse && sameID(m.ID, id)
}

// listen keeps the GET stream of a legacy session open: it queues what the
// server sends on it and reopens it when it ends, after the server's retry
// interval, until ctx ends or attempts keep failing. The wait doubles with
// each stream in a row that delivered no message (see getRetryDelay), and
// after maxResumeAttempts streams in a row that carried no event at all,
// or failed to open, the GET stream is given up; requests go on without
// it. A stream that carried only a priming event is a server polling
// with nothing to send, which the 2025-11-25 protocol allows: it is
// reopened, at the longer wait. A stream that stayed open getStreamLived
// or longer counts as neither, whatever it carried: a proxy that ends idle
// streams ends healthy ones. It closes opened once the server has
// answered the first GET, or that GET failed.
func (c *streamableConn) listen(ctx context.Context, version string, opened chan struct{}) {
	defer c.wg.Done()
	once := sync.OnceFunc(func() { close(opened) })
	defer once()
	if ctx.Err() != nil {
		return
	}
	// The goroutine that starts this one has usually just queued the
	// answer the GET was held back for, readying the Session's reader.
	// The scheduler runs the goroutine readied last first, so the GET's
	// setup would run before that answer reaches its caller; yielding
	// lets the answer go first.
	goruntime.Gosched()
	var r *sse.Reader
	defer func() {
		if r != nil {
			c.getReader.Store(nil)
			r.Release()
		}
	}()
	failures := 0 // streams in a row without an event, or failed GETs
	empty := 0    // streams in a row without a message, or failed GETs
	for {
		lastID := ""
		if r != nil {
			lastID = r.LastID()
		}
		resp, err := c.openGet(ctx, lastID, version)
		var he *HTTPError
		if errors.As(err, &he) && he.StatusCode == http.StatusMethodNotAllowed {
			noGetStream.put(c.eraKey(), time.Now()) // before once: Close may be waiting
		}
		once()
		if ctx.Err() != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return
		}
		got, delivered, lived := false, false, false
		if err != nil {
			if errors.As(err, &he) && he.StatusCode != http.StatusTooManyRequests && he.StatusCode < 500 {
				c.h.log.Debug("the server offers no GET stream", "url", c.logURL(), "status", he.StatusCode)
				return
			}
			c.h.log.Debug("opening the GET stream failed", "url", c.logURL(), "error", err)
		} else {
			noGetStream.forget(c.eraKey())
			getStreamOffered.put(c.eraKey(), struct{}{})
			if r == nil {
				r = sse.NewReader(resp.Body, c.h.maxSize)
				// The stream waits most of its life: it holds no buffer
				// while it does.
				r.ReleaseWhileIdle()
				c.getReader.Store(r)
			} else {
				r.Reset(resp.Body)
			}
			s := &stream{ctx: ctx}
			openedAt := time.Now()
			_, got, err = c.readStream(s, r, resp.Body, "")
			delivered = s.delivered
			lived = time.Since(openedAt) >= getStreamLived
			if ctx.Err() != nil {
				return
			}
			c.h.log.Debug("the GET stream ended", "url", c.logURL(), "error", err)
		}
		if got || lived {
			failures = 0
		} else if failures++; failures >= maxResumeAttempts {
			c.h.log.Warn("gave up on the GET stream for server messages", "url", c.logURL(), "error", err)
			return
		}
		if delivered || lived {
			empty = 0
		} else {
			empty++
		}
		if !sleep(ctx, getRetryDelay(r, empty)) {
			return
		}
	}
}

// getRetryDelay returns the wait before the GET stream is opened again
// after empty streams in a row delivered no message: the server's retry
// interval, or defaultRetry when r is nil or holds none, at least
// minGetRetry, so that a server ending the stream at once with a retry of
// 0 does not have the connection spin. It doubles with each such stream,
// up to maxRetry.
func getRetryDelay(r *sse.Reader, empty int) time.Duration {
	d := defaultRetry
	if r != nil {
		d = retryDelay(r, 0)
	}
	return min(max(d, minGetRetry)<<min(empty, 10), maxRetry)
}

// A graceTimer ends a drained stream that outlives afterResponseGrace.
// Timers are pooled, so that draining the stream of every response
// allocates none.
type graceTimer struct {
	t      *time.Timer
	mu     sync.Mutex
	cancel context.CancelFunc
}

var gracePool sync.Pool

// startGrace calls cancel once afterResponseGrace has passed, unless the
// returned timer is stopped first.
func startGrace(cancel context.CancelFunc) *graceTimer {
	g, _ := gracePool.Get().(*graceTimer)
	if g == nil {
		g = &graceTimer{}
		g.t = time.AfterFunc(time.Hour, g.fire)
		g.t.Stop()
	}
	g.mu.Lock()
	g.cancel = cancel
	g.mu.Unlock()
	g.t.Reset(afterResponseGrace)
	return g
}

func (g *graceTimer) fire() {
	g.mu.Lock()
	cancel := g.cancel
	g.cancel = nil
	g.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// stop stops g. A timer that already fired, whose fire may still be
// running, is left to the garbage collector rather than reused.
func (g *graceTimer) stop() {
	if g.t.Stop() {
		g.mu.Lock()
		g.cancel = nil
		g.mu.Unlock()
		gracePool.Put(g)
	}
}
