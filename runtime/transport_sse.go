package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/internal/origin"
	"github.com/mcpgen/mcpgen/runtime/internal/sse"
)

// SSE returns a Transport to a server speaking the legacy HTTP+SSE transport
// of protocol 2024-11-05, whose SSE stream is at rawURL (often ending in
// /sse; Home Assistant's is /mcp_server/sse).
//
// Connect GETs rawURL and waits, at most HTTPOptions.EndpointTimeout, for the
// endpoint event naming the URL to POST messages to, which must have the
// stream's origin. When the connection carries credentials (a bearer token,
// headers, an Authorizer), the endpoint must also be on rawURL's host, and
// over https when rawURL is: a stream redirected elsewhere is refused, as
// the redirect did not take the credentials there. Every message is then
// POSTed there, and every message from the server, responses included,
// arrives on the stream. The stream ending ends the connection.
func SSE(rawURL string, opts *HTTPOptions) Transport {
	return &sseTransport{url: rawURL, opts: opts}
}

type sseTransport struct {
	url  string
	opts *HTTPOptions
}

func (t *sseTransport) Connect(ctx context.Context) (Conn, error) {
	h, err := httpClientFor(t.url, t.opts)
	if err != nil {
		return nil, err
	}
	return dialSSE(ctx, h, t.url, nil)
}

// sseConn is a Conn over legacy HTTP+SSE.
type sseConn struct {
	h           *httpClient
	logURL      string // the stream's URL, redacted
	endpoint    string
	logEndpoint string
	in          *inbox
	ownsIn      bool

	ctx       context.Context // the stream's; ends with Close
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// errNotSSEEndpoint marks a URL that answered GET with something other than
// an SSE stream opening with an endpoint event.
var errNotSSEEndpoint = errors.New("not an HTTP+SSE endpoint")

// dialSSE opens the SSE stream at rawURL and waits for its endpoint event.
// Incoming messages go to in, or to an inbox of the connection's own when in
// is nil. ctx bounds the wait only.
func dialSSE(ctx context.Context, h *httpClient, rawURL string, in *inbox) (*sseConn, error) {
	c := &sseConn{h: h, logURL: redactURL(rawURL), in: in}
	if in == nil {
		c.in, c.ownsIn = newInbox(), true
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	fail := func(err error) (*sseConn, error) {
		c.cancel()
		return nil, err
	}

	// Until the endpoint arrives, ctx and the endpoint timeout end the
	// stream; afterwards only Close does.
	wait, waitCancel := context.WithTimeout(ctx, h.endWait)
	defer waitCancel()
	stop := context.AfterFunc(wait, c.cancel)
	waitErr := func(err error) error {
		if wait.Err() == nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("GET %s: no endpoint event within %v", c.logURL, h.endWait)
	}

	req, err := h.newRequest(c.ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fail(err)
	}
	req.Header["Accept"] = headerAcceptSSE
	resp, err := h.do(req)
	if err != nil {
		return fail(waitErr(err))
	}
	if resp.StatusCode/100 != 2 {
		return fail(h.statusError(http.MethodGet, rawURL, resp.StatusCode, readErrorBody(resp)))
	}
	if mt := mediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		drain(resp.Body)
		return fail(fmt.Errorf("GET %s: %w: the response is %s, not an SSE stream", c.logURL, errNotSSEEndpoint, h.quote(mt)))
	}
	r := sse.NewReader(resp.Body, h.maxSize)
	var ev sse.Event
	for {
		ev, err = r.Next()
		if err != nil {
			resp.Body.Close()
			r.Release()
			return fail(waitErr(fmt.Errorf("GET %s: reading the endpoint event: %w", c.logURL, err)))
		}
		if len(ev.Data) > 0 {
			break
		}
	}
	if ev.Type != "endpoint" {
		resp.Body.Close()
		r.Release()
		return fail(fmt.Errorf("GET %s: %w: the first event is %s, not endpoint", c.logURL, errNotSSEEndpoint, h.quote(ev.Type)))
	}
	base := resp.Request.URL
	ep, err := base.Parse(strings.TrimSpace(string(ev.Data)))
	if err != nil || !strings.EqualFold(ep.Scheme, base.Scheme) || !origin.SameHost(ep, base) {
		resp.Body.Close()
		r.Release()
		return fail(fmt.Errorf("GET %s: refusing the endpoint %s: it is not on the stream's origin", c.logURL, h.quote(redactURL(string(ev.Data)))))
	}
	if (len(h.header) > 0 || h.auth != nil) && !keepsCredentials(req.URL, ep) {
		// The stream was redirected where the redirect policy sent no
		// credentials; the POSTs must not take them there either.
		resp.Body.Close()
		r.Release()
		return fail(fmt.Errorf("GET %s: refusing the endpoint %s: the stream was redirected to another host (or from https), where the credentials are not sent", c.logURL, h.quote(redactURL(ep.String()))))
	}
	if !stop() {
		resp.Body.Close()
		r.Release()
		return fail(waitErr(context.Canceled))
	}
	c.endpoint = ep.String()
	c.logEndpoint = redactURL(c.endpoint)
	c.wg.Add(1)
	go c.pump(r, resp)
	return c, nil
}

// pump queues the messages of the stream until it ends, which ends the
// connection.
func (c *sseConn) pump(r *sse.Reader, resp *http.Response) {
	defer c.wg.Done()
	defer r.Release()
	defer resp.Body.Close()
	for {
		ev, err := r.Next()
		if err != nil {
			var tl *sse.TooLargeError
			if errors.As(err, &tl) {
				if !c.in.put(c.ctx, item{err: &MessageTooLargeError{Limit: tl.Limit, Prefix: tl.Prefix, Suffix: tl.Suffix}}) {
					return
				}
				continue
			}
			if c.ctx.Err() == nil {
				c.in.put(c.ctx, item{err: streamLostError(c.logURL, err)})
			}
			return
		}
		switch {
		case len(ev.Data) == 0:
		case ev.Type == "" || ev.Type == "message":
			if !c.in.put(c.ctx, item{data: ev.Data}) {
				return
			}
		default:
			c.h.log.Debug("ignored an SSE event", "url", c.logURL, "event", ev.Type)
		}
	}
}

func streamLostError(logURL string, err error) error {
	if err == nil || err == io.EOF {
		return fmt.Errorf("the SSE stream from %s ended", logURL)
	}
	return fmt.Errorf("the SSE stream from %s broke: %w", logURL, err)
}

func (c *sseConn) Read(ctx context.Context) ([]byte, error) { return c.in.read(ctx) }

// Write POSTs m to the endpoint. ctx bounds the POST only: the answer comes
// on the stream.
func (c *sseConn) Write(ctx context.Context, m *OutMessage) error {
	if c.ctx.Err() != nil {
		return ErrClosed
	}
	req, err := c.h.newRequest(ctx, http.MethodPost, c.endpoint, m.Data)
	if err != nil {
		return err
	}
	req.Header["Content-Type"] = headerJSON
	resp, err := c.h.do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return c.h.statusError(http.MethodPost, c.endpoint, resp.StatusCode, readErrorBody(resp))
	}
	drain(resp.Body)
	return nil
}

// ConnCapabilities declares that Write is done with its context once it
// returns; a POST's body may still be on its way, so Data is not released.
func (c *sseConn) ConnCapabilities() ConnCapabilities {
	return ConnCapabilities{
		WriteIgnoresContext: true,
		WriteWithin:         c.writeWithin,
		ScrubSecrets:        c.h.scrub,
	}
}

// Close ends the stream and waits for the connection's goroutine.
func (c *sseConn) Close() error {
	c.closeOnce.Do(func() {
		c.cancel()
		if c.ownsIn {
			c.in.close()
		}
		c.wg.Wait()
	})
	return nil
}
