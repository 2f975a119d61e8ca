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
}

// ConnCapabilities declares those of Streamable HTTP. They hold after a
// switch to HTTP+SSE too: the probe, to which AnswersEveryRequest applies,
// is always POSTed as Streamable HTTP (the switch comes later, on
// initialize), and HTTP+SSE only speaks the legacy era, in which the
// Session always sends notifications/cancelled and no Mcp-Param-* headers.
func (c *autoConn) ConnCapabilities() ConnCapabilities {
	return streamableCapabilities(c.h)
}

func (c *autoConn) Read(ctx context.Context) ([]byte, error) { return c.in.read(ctx) }

func (c *autoConn) Write(ctx context.Context, m *OutMessage) error {
	c.mu.Lock()
	cur, settled, closed := c.cur, c.settled, c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
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
	sc, serr := dialSSE(ctx, c.h, c.url, c.in)
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
	return sc.Write(ctx, m)
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

func (c *autoConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	cur := c.cur
	c.mu.Unlock()
	err := cur.Close()
	c.in.close()
	return err
}
