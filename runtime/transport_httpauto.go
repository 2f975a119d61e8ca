package runtime

import (
	"context"
	"errors"
	"net/http"
	"sync"
)

// HTTP returns a Transport to the MCP server at rawURL that finds out which
// HTTP transport the server speaks, as the backward-compatibility section of
// the Streamable HTTP specification describes.
//
// It starts as Streamable HTTP: the Session's server/discover probe and, for
// a legacy server, its initialize request are POSTed to rawURL. A server that
// answers one of them with a 2xx, or with a JSON-RPC message in an error
// status, speaks Streamable HTTP, and the connection stays with it.
//
// When the POST of initialize fails with HTTP 400, 404 or 405 and no
// JSON-RPC message (after the probe failed the same way, which made the
// Session fall back to the handshake), the connection GETs rawURL with
// Accept: text/event-stream. If the first event is endpoint, the server
// speaks the legacy HTTP+SSE transport of 2024-11-05: the connection switches
// to it and sends the initialize request over it, so that the Session sees
// nothing but an answer to its initialize. If not, Write returns the POST's
// *HTTPError, as Streamable HTTP would.
//
// A 401 or 403 is an *AuthError and never leads to the switch: it says
// nothing about the transport.
func HTTP(rawURL string, opts *HTTPOptions) Transport {
	return &autoTransport{url: rawURL, opts: opts}
}

type autoTransport struct {
	url  string
	opts *HTTPOptions
}

func (t *autoTransport) Connect(ctx context.Context) (Conn, error) {
	h, err := httpClientFor(t.url, t.opts)
	if err != nil {
		return nil, err
	}
	in := newInbox()
	return &autoConn{h: h, url: t.url, in: in, cur: newStreamableConn(h, t.url, in)}, nil
}

// autoConn is a Conn that starts as Streamable HTTP and may switch to
// HTTP+SSE once, before the transport is settled. Both queue their messages
// in the same inbox, so a Read blocked across the switch is not disturbed.
type autoConn struct {
	h   *httpClient
	url string
	in  *inbox

	mu      sync.Mutex
	cur     Conn
	settled bool // the transport is known; no more switching
	closed  bool
	// writes ends, by request id, what cur cannot end by id: the switch
	// to HTTP+SSE a Write may make before the transport is settled, and
	// Writes over HTTP+SSE.
	writes map[string]context.CancelFunc
}

// ConnCapabilities declares those of Streamable HTTP. They hold after a
// switch to HTTP+SSE too: the probe, to which AnswersEveryRequest applies,
// is always POSTed as Streamable HTTP (the switch comes later, on
// initialize), and HTTP+SSE only speaks the legacy era, in which the
// Session always sends notifications/cancelled and no Mcp-Param-* headers.
func (c *autoConn) ConnCapabilities() ConnCapabilities {
	return streamableCapabilities(c.h, c.cancelRequest)
}

func (c *autoConn) Read(ctx context.Context) ([]byte, error) { return c.in.read(ctx) }

func (c *autoConn) Write(ctx context.Context, m *OutMessage) error {
	c.mu.Lock()
	cur, settled, closed := c.cur, c.settled, c.closed
	_, byID := cur.(*streamableConn)
	// sctx is the context of what cur cannot end by id. Streamable HTTP
	// gets ctx itself: its response stream outlives Write.
	sctx := ctx
	if !closed && m.IsRequest() && (!settled || !byID) {
		var cancel context.CancelFunc
		sctx, cancel = context.WithCancel(ctx)
		if c.writes == nil {
			c.writes = make(map[string]context.CancelFunc)
		}
		c.writes[m.ID] = cancel
		defer c.endWrite(m.ID)
	}
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if !byID {
		return cur.Write(sctx, m)
	}
	err := cur.Write(ctx, m)
	if settled {
		return err
	}
	if err == nil {
		c.settle()
		return nil
	}
	var he *HTTPError
	if m.Method != "initialize" || !errors.As(err, &he) {
		return err
	}
	var ae *AuthError
	if errors.As(err, &ae) {
		return err
	}
	switch he.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
	default:
		return err
	}
	sc, serr := dialSSE(sctx, c.h, c.url, c.in)
	if serr != nil {
		c.h.log.Debug("the server speaks neither Streamable HTTP nor HTTP+SSE", "url", redactURL(c.url), "error", serr)
		return err
	}
	c.h.log.Debug("the server speaks the legacy HTTP+SSE transport", "url", redactURL(c.url))
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		sc.Close()
		return ErrClosed
	}
	old := c.cur
	c.cur, c.settled = sc, true
	c.mu.Unlock()
	old.Close()
	return sc.Write(sctx, m)
}

// eraKey returns the endpoint's key in the era cache while the connection
// speaks Streamable HTTP, as streamableConn does.
func (c *autoConn) eraKey() string {
	c.mu.Lock()
	cur := c.cur
	c.mu.Unlock()
	if k, ok := cur.(eraKeyer); ok {
		return k.eraKey()
	}
	return ""
}

// endWrite forgets the Write of request id, and ends its context.
func (c *autoConn) endWrite(id string) {
	c.mu.Lock()
	cancel := c.writes[id]
	delete(c.writes, id)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// cancelRequest ends request id: its Write, when the connection made a
// context for it, and its response stream over Streamable HTTP.
func (c *autoConn) cancelRequest(id string) {
	c.mu.Lock()
	cur := c.cur
	cancel := c.writes[id]
	delete(c.writes, id)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if sc, ok := cur.(*streamableConn); ok {
		sc.cancelRequest(id)
	}
}

func (c *autoConn) settle() {
	c.mu.Lock()
	c.settled = true
	c.mu.Unlock()
}

// HandshakeDone passes the news on to Streamable HTTP, which opens its GET
// stream.
func (c *autoConn) HandshakeDone(version string) {
	c.mu.Lock()
	cur := c.cur
	c.mu.Unlock()
	if n, ok := cur.(HandshakeNotifier); ok {
		n.HandshakeDone(version)
	}
}

func (c *autoConn) Close() error { return c.closeContext(context.Background()) }

// closeContext is Close with the waits of the connection in use ending
// when ctx does.
func (c *autoConn) closeContext(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	cur := c.cur
	c.mu.Unlock()
	var err error
	if cc, ok := cur.(contextCloser); ok {
		err = cc.closeContext(ctx)
	} else {
		err = cur.Close()
	}
	c.in.close()
	return err
}
