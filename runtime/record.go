package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// RecordOptions configure a Recorder.
type RecordOptions struct {
	// Source describes the server in the recording's header, such as its
	// URL or command line. It is redacted as the messages are.
	Source string
	// Secrets are credentials to replace by "[REDACTED]" wherever they
	// appear, as they are or JSON-escaped: tokens, header values, the
	// values of environment variables given to the server. Values shorter
	// than 8 bytes cannot be told apart from other text and are not
	// replaced.
	Secrets []string
}

// A Recorder is a Transport that records every JSON-RPC message its
// connections carry, in both directions, to a txtar archive that
// NewReplayTransport serves back. It writes each message as it crosses the
// connection, one file per message, so that it holds none of them in
// memory; see the recording format in docs/testing.md.
//
// Credentials never reach the recording: those the wrapped transport's
// connections know (a bearer token, header values, secrets in the URL;
// see ConnCapabilities.ScrubSecrets), RecordOptions.Secrets and those added
// with AddSecrets are replaced by "[REDACTED]" in every message and in the
// header. HTTP headers are not recorded at all.
//
// A write to the archive that fails does not disturb the session: the
// recording stops, and Err reports why.
type Recorder struct {
	t Transport

	mu      sync.Mutex
	w       io.Writer
	source  string
	secrets []string
	red     *redact.Set
	seq     int
	started bool
	err     error
	// methods holds the method of each request in flight, by direction
	// ("client " or "server ") and id, to name its response; at most
	// maxRecordedInFlight, beyond which a response is named "none".
	methods map[string]string
}

// maxRecordedInFlight bounds the requests in flight whose methods a
// Recorder keeps, so that requests never answered do not grow it.
const maxRecordedInFlight = 4096

// inFlight notes the method of a request in flight. r.mu is held.
func (r *Recorder) inFlight(key, method string) {
	if len(r.methods) < maxRecordedInFlight {
		r.methods[key] = method
	}
}

// Record returns a Recorder that records the connections of t to w.
func Record(t Transport, w io.Writer, opts *RecordOptions) *Recorder {
	r := &Recorder{t: t, w: w, methods: map[string]string{}}
	if opts != nil {
		r.source = opts.Source
		r.secrets = append(r.secrets, opts.Secrets...)
	}
	r.red = redact.New(r.secrets...)
	return r
}

// AddSecrets adds credentials to replace in the messages recorded from now
// on, such as a token an Authorizer obtained during the session. A value
// it already holds is not added again, so that a credential added on each
// request does not grow the Recorder.
func (r *Recorder) AddSecrets(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	for _, v := range values {
		if v != "" && !slices.Contains(r.secrets, v) {
			r.secrets = append(r.secrets, v)
			added = true
		}
	}
	if added {
		r.red = redact.New(r.secrets...)
	}
}

// Err returns the first error writing the recording, or nil.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Connect connects the wrapped transport and returns a connection whose
// messages are recorded.
func (r *Recorder) Connect(ctx context.Context) (Conn, error) {
	conn, err := r.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &recordConn{Conn: conn, r: r}
	c.cc = connCapabilities(conn)
	if ww := c.cc.WriteWithin; ww != nil {
		c.cc.WriteWithin = func(ctx context.Context, m *OutMessage, d time.Duration) error {
			c.r.client(m, c.cc.ScrubSecrets)
			return c.r.writeResult(m, ww(ctx, m, d), c.cc.ScrubSecrets)
		}
	}
	r.mu.Lock()
	r.header(c.cc.ScrubSecrets)
	r.mu.Unlock()
	return c, nil
}

// recordConn is a Conn whose messages a Recorder records. It declares the
// capabilities of the Conn it wraps, except that it leaves out the era
// cache, so that every recording holds the whole version negotiation.
type recordConn struct {
	Conn
	r  *Recorder
	cc ConnCapabilities
}

func (c *recordConn) ConnCapabilities() ConnCapabilities { return c.cc }

func (c *recordConn) Write(ctx context.Context, m *OutMessage) error {
	// The message is recorded before it is sent, so that its response,
	// which a transport may deliver before Write returns, comes after it.
	c.r.client(m, c.cc.ScrubSecrets)
	return c.r.writeResult(m, c.Conn.Write(ctx, m), c.cc.ScrubSecrets)
}

func (c *recordConn) Read(ctx context.Context) ([]byte, error) {
	data, err := c.Conn.Read(ctx)
	if err == nil {
		c.r.server(data, c.cc.ScrubSecrets)
	}
	return data, err
}

// HandshakeDone passes the end of a legacy handshake on to the wrapped Conn.
func (c *recordConn) HandshakeDone(protocolVersion string) {
	if h, ok := c.Conn.(HandshakeNotifier); ok {
		h.HandshakeDone(protocolVersion)
	}
}

// netEndpoint passes the wrapped Conn's endpoint on to Middleware, so that
// recording leaves SessionInfo as it is.
func (c *recordConn) netEndpoint() (string, string) {
	if ep, ok := c.Conn.(interface{ netEndpoint() (string, string) }); ok {
		return ep.netEndpoint()
	}
	return "", ""
}

// currentSessionID passes the wrapped Conn's session id on to Middleware.
func (c *recordConn) currentSessionID() string {
	if sc, ok := c.Conn.(interface{ currentSessionID() string }); ok {
		return sc.currentSessionID()
	}
	return ""
}

func (c *recordConn) closeContext(ctx context.Context) error {
	if cc, ok := c.Conn.(contextCloser); ok {
		return cc.closeContext(ctx)
	}
	return c.Conn.Close()
}

// writeResult records the HTTP status that answered the request m instead
// of a JSON-RPC message, and returns err.
func (r *Recorder) writeResult(m *OutMessage, err error, scrub func(string) string) error {
	var he *HTTPError
	if err == nil || !m.IsRequest() || !errors.As(err, &he) {
		return err
	}
	b, merr := json.Marshal(recordedHTTPError{Method: m.Method, ID: json.RawMessage(m.ID), HTTPMethod: he.Method, StatusCode: he.StatusCode, Body: string(he.Body)})
	if merr != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.methods, "client "+m.ID)
	r.add(fromServer, kindHTTPError, m.Method, b, scrub)
	return err
}

// client records a message the client sends.
func (r *Recorder) client(m *OutMessage, scrub func(string) string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case m.IsRequest():
		r.inFlight("client "+m.ID, m.Method)
		r.add(fromClient, kindRequest, m.Method, m.Data, scrub)
	case m.Method != "":
		r.add(fromClient, kindNotification, m.Method, m.Data, scrub)
	default:
		method := r.methods["server "+m.ID]
		delete(r.methods, "server "+m.ID)
		r.add(fromClient, kindResponse, method, m.Data, scrub)
	}
}

// server records what one Read returned: a message or a batch.
func (r *Recorder) server(data []byte, scrub func(string) string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	one := func(msg []byte) error {
		m, err := jsonrpc.Decode(msg)
		if err != nil || !json.Valid(msg) {
			// Kept as a JSON string, which a replay sends as it came.
			q, _ := json.Marshal(string(msg))
			r.add(fromServer, kindInvalid, "", q, scrub)
			return nil
		}
		id := string(bytes.TrimSpace(m.ID))
		switch m.Kind {
		case jsonrpc.KindRequest:
			// The Session never answers a request whose id is longer
			// than maxReplyIDSize: keeping its id would hold what the
			// server chose, up to the size of a message, for good.
			if len(id) <= maxReplyIDSize {
				r.inFlight("server "+id, m.Method)
			}
			r.add(fromServer, kindRequest, m.Method, msg, scrub)
		case jsonrpc.KindNotification:
			r.add(fromServer, kindNotification, m.Method, msg, scrub)
		default:
			method := r.methods["client "+id]
			delete(r.methods, "client "+id)
			r.add(fromServer, kindResponse, method, msg, scrub)
		}
		return nil
	}
	if !jsonrpc.IsBatch(data) {
		_ = one(data)
		return
	}
	n := 0
	err := jsonrpc.Batch(data, func(msg []byte) error {
		n++
		return one(msg)
	})
	if err != nil && n == 0 {
		_ = one(data) // a malformed batch, kept as it came
	}
}

// header writes the recording's comment, once, with the credentials scrub
// and r's secrets name replaced. r.mu is held.
func (r *Recorder) header(scrub func(string) string) {
	if r.started || r.err != nil {
		return
	}
	r.started = true
	var b strings.Builder
	b.WriteString(recordingHeader + "\n")
	if r.source != "" {
		src := strings.ReplaceAll(r.source, "\n", " ")
		if scrub != nil {
			src = scrub(src)
		}
		fmt.Fprintf(&b, "server: %s\n", r.red.String(src))
	}
	_, r.err = io.WriteString(r.w, b.String())
}

// add writes one message to the recording, its credentials replaced, in
// its name too: a server chooses the method of its requests and
// notifications. r.mu is held.
func (r *Recorder) add(from, kind, method string, msg []byte, scrub func(string) string) {
	r.header(scrub)
	if r.err != nil {
		return
	}
	r.seq++
	text := string(msg)
	if scrub != nil {
		text = scrub(text)
		method = scrub(method)
	}
	text = r.red.String(text)
	var b bytes.Buffer
	b.Grow(len(text) + len(text)/4 + 64)
	fmt.Fprintf(&b, "-- %s --\n", recordingName(r.seq, from, kind, r.red.String(method)))
	b.Write(indentMessage([]byte(text)))
	_, r.err = r.w.Write(b.Bytes())
}
