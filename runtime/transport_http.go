package runtime

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/internal/origin"
	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/internal/textcut"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/sse"
)

// HTTPOptions configure the HTTP transports: StreamableHTTP, SSE and HTTP.
// The zero value is ready to use.
type HTTPOptions struct {
	// Header holds headers sent with every request, such as an API key.
	// Like the bearer token, they are not sent on after a redirect to
	// another host. Their values, and the credential after the scheme of
	// an Authorization value (or of a header whose name looks secret), are
	// kept out of errors and logs like the token.
	Header http.Header

	// BearerEnv names an environment variable holding a bearer token, sent
	// as "Authorization: Bearer <token>" on every request. Connect fails when
	// the variable is unset or empty. The token never appears in errors or
	// logs, as sent or JSON-escaped, unless it is shorter than 8 bytes: so
	// short a secret cannot be told apart from ordinary text, and is not
	// looked for. The same holds for header
	// values and the password and query values of the URL.
	BearerEnv string

	// Client is the HTTP client requests go through. Nil means a client
	// shared by every connection of the process, which keeps connections
	// alive between calls. Its Timeout should be zero: streams stay open for
	// as long as a call runs.
	Client *http.Client

	// Logger receives the transport's records: streams opened, resumed and
	// lost. Nil discards them.
	Logger *slog.Logger

	// MaxMessageSize limits one incoming JSON body or SSE event;
	// DefaultMaxMessageSize when zero.
	MaxMessageSize int

	// EndpointTimeout bounds the wait for the endpoint event of the legacy
	// HTTP+SSE transport; DefaultEndpointTimeout when zero.
	EndpointTimeout time.Duration

	// Authorizer, when set, supplies every request's credentials and
	// answers the server's 401 and 403 responses, for example by running
	// an OAuth authorization (see the package runtime/auth). It cannot be
	// combined with BearerEnv or an Authorization header.
	Authorizer Authorizer
}

// DefaultEndpointTimeout is how long the legacy HTTP+SSE transport waits for
// the server's endpoint event.
const DefaultEndpointTimeout = 10 * time.Second

// RequestError reports a failure that ends one request only, such as a
// Streamable HTTP response stream that broke before it delivered the response
// and could not be resumed. Conn.Read returns it; the Session fails the
// request with the given id and goes on reading.
type RequestError struct {
	ID  string // the request id as JSON text, as in OutMessage.ID
	Err error
}

func (e *RequestError) Error() string { return "request " + e.ID + ": " + e.Err.Error() }

func (e *RequestError) Unwrap() error { return e.Err }

// Tuning of the HTTP transports.
const (
	// maxResumeAttempts bounds the consecutive failed attempts to resume a
	// broken stream or to reopen the GET stream.
	maxResumeAttempts = 5
	// defaultRetry is the reconnection delay when the server set none.
	defaultRetry = time.Second
	// minGetRetry is the least delay before the GET stream is reopened,
	// or a broken response stream resumed.
	minGetRetry = 100 * time.Millisecond
	// maxRetry caps a server's retry interval and our backoff.
	maxRetry = 30 * time.Second
	// maxErrorBody is how much of an HTTP error body is read, to find a
	// JSON-RPC error in it.
	maxErrorBody = 64 << 10
	// maxErrorBodyShown is how much of it an HTTPError keeps.
	maxErrorBodyShown = 2 << 10
	// afterResponseGrace is how long a stream may go on after it delivered
	// the response before it is closed; servers end it right away, and
	// reading to the end lets the HTTP connection be reused.
	afterResponseGrace = 2 * time.Second
	// getOpenWait bounds how long, after the GET that opens the stream
	// for server-initiated messages went out, a request that could make
	// the server send there waits for the server's answer to it.
	getOpenWait = 3 * time.Second
	// getDeferMax bounds how long the GET of a session without a
	// session id waits for the first request after the handshake.
	getDeferMax = time.Second
	// getAnswerWait bounds how long Close waits for the server's answer
	// to a GET for server messages that is in flight.
	getAnswerWait = 200 * time.Millisecond
	// deleteTimeout bounds the DELETE that ends a session on Close.
	deleteTimeout = 3 * time.Second
	// initializedWait bounds how long Close waits for the answer to a
	// notifications/initialized sent beside the first listing, as the
	// DELETE's bound does for a stateful session.
	initializedWait = 3 * time.Second
)

// getStreamLived is how long a GET stream for server messages must have
// stayed open for its end to count as neither a failure nor an empty
// stream: proxies end streams idle for a while (nginx after 60 s), and a
// session whose server has nothing to say must keep its stream through
// them. A variable for tests.
var getStreamLived = 10 * time.Second

// handshakeStreamWait bounds how long notifications/initialized waits for
// the end of the event stream that answered initialize (see
// awaitHandshakeStream). A variable for tests.
var handshakeStreamWait = 20 * time.Millisecond

// sharedHTTPClient is the client used when HTTPOptions.Client is nil.
var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t}
})

// sharedStreamClient is the client of the long-lived GET streams of
// server messages when HTTPOptions.Client is nil. Its connections carry
// one request, a GET with a few headers, and then a stream that waits most
// of its life: small buffers, instead of net/http's 4 KiB for writing and
// for reading, make such a session cheap to hold. A large event still
// reads whole (bufio passes reads larger than its buffer through).
var sharedStreamClient = sync.OnceValue(func() *http.Client {
	t := sharedHTTPClient().Transport.(*http.Transport).Clone()
	t.WriteBufferSize = 512
	t.ReadBufferSize = 1 << 10
	return &http.Client{Transport: t}
})

// httpClient is what the HTTP transports share: the client with its redirect
// policy, the headers of every request and the secret to keep out of errors.
type httpClient struct {
	client  *http.Client
	stream  *http.Client // for the GET streams of server messages
	header  http.Header  // user headers and Authorization, canonical keys
	secrets []string     // values never to show: the token, header values
	env     string       // BearerEnv, for error hints
	hasAuth bool
	auth    Authorizer
	log     *slog.Logger
	maxSize int
	endWait time.Duration
	// authGen counts the credentials the Authorizer obtained after a
	// refusal: each starts a new authorization context.
	authGen atomic.Uint64
	// red holds secrets and the Authorizer's latest credentials, as the
	// scrubbing functions use them.
	red atomic.Pointer[redact.Set]
	// authMu guards authCreds, the Authorization values the Authorizer
	// set, newest last, at most maxAuthCredentials.
	authMu    sync.Mutex
	authCreds []string
}

// maxAuthCredentials is how many of the Authorizer's latest Authorization
// values are scrubbed: the current one and those a server may still echo
// after a refresh, without growing for a connection that refreshes for days.
const maxAuthCredentials = 4

// httpClientFor checks rawURL and returns the client every HTTP transport
// uses to reach it, with the URL's own credentials registered as secrets.
func httpClientFor(rawURL string, opts *HTTPOptions) (*httpClient, error) {
	if err := checkHTTPURL(rawURL); err != nil {
		return nil, err
	}
	h, err := newHTTPClient(opts)
	if err != nil {
		return nil, err
	}
	h.addURLSecrets(rawURL)
	h.red.Store(redact.New(h.secrets...))
	return h, nil
}

func newHTTPClient(opts *HTTPOptions) (*httpClient, error) {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	h := &httpClient{
		header:  make(http.Header, len(o.Header)+1),
		env:     o.BearerEnv,
		log:     o.Logger,
		maxSize: o.MaxMessageSize,
		endWait: o.EndpointTimeout,
		auth:    o.Authorizer,
	}
	if h.log == nil {
		h.log = discardLogger
	}
	if h.maxSize <= 0 {
		h.maxSize = DefaultMaxMessageSize
	}
	if h.endWait <= 0 {
		h.endWait = DefaultEndpointTimeout
	}
	userKeys := make(map[string]bool, len(o.Header))
	for k, vs := range o.Header {
		ck := http.CanonicalHeaderKey(k)
		h.header[ck] = append([]string(nil), vs...)
		userKeys[ck] = true
		for _, v := range vs {
			// The credential after "Bearer " or "Basic " of an
			// Authorization-like header is a secret of its own; the
			// words of other values are not.
			if redact.SecretName(ck) {
				h.secrets = append(h.secrets, redact.Forms(v)...)
			} else {
				h.secrets = append(h.secrets, v)
			}
		}
	}
	if o.BearerEnv != "" {
		token := strings.TrimSpace(os.Getenv(o.BearerEnv))
		if token == "" {
			return nil, fmt.Errorf("bearer token variable %s is not set", o.BearerEnv)
		}
		h.header["Authorization"] = []string{"Bearer " + token}
		h.secrets = append(h.secrets, token)
		h.hasAuth = true
	} else if len(h.header["Authorization"]) > 0 {
		h.hasAuth = true
	}
	if h.auth != nil && h.hasAuth {
		return nil, errors.New("an Authorizer cannot be combined with BearerEnv or an Authorization header")
	}
	base := o.Client
	if base == nil {
		base = sharedHTTPClient()
	}
	c := *base
	c.CheckRedirect = redirectPolicy(base.CheckRedirect, userKeys)
	h.client = &c
	h.stream = h.client
	if o.Client == nil {
		sc := *sharedStreamClient()
		sc.CheckRedirect = c.CheckRedirect
		h.stream = &sc
	}
	return h, nil
}

// addURLSecrets adds the password and the query values of rawURL to the
// secrets kept out of errors: keys and session ids travel there. Those
// shorter than redact.MinLen are left out by redact.New.
func (h *httpClient) addURLSecrets(rawURL string) {
	if !strings.ContainsAny(rawURL, "@?") {
		return // neither credentials nor a query
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return
	}
	if p, ok := u.User.Password(); ok {
		// The HTTP client sends them as Basic authorization.
		h.secrets = append(h.secrets, redact.BasicForms(u.User.Username(), p)...)
	}
	for _, vs := range u.Query() {
		h.secrets = append(h.secrets, vs...)
	}
}

// RedirectPolicy returns the CheckRedirect of the HTTP transports, for a
// request sent beside them with the same headers: a redirect that leaves the
// original host or downgrades from https drops the Authorization header, the
// DPoP proof, the session's Mcp-Session-Id and Last-Event-ID, and the
// headers named in header, and at most 10 redirects are followed.
func RedirectPolicy(header http.Header) func(req *http.Request, via []*http.Request) error {
	keys := map[string]bool{}
	for k := range header {
		keys[http.CanonicalHeaderKey(k)] = true
	}
	return redirectPolicy(nil, keys)
}

// redirectPolicy returns a CheckRedirect that drops the Authorization header,
// the DPoP proof an Authorizer sets with it, the headers that name the
// session (its id, and the last event of one of its streams) and the user's
// headers when a redirect leaves the original host or downgrades from
// https, and then defers to next. The session belongs to the server that
// issued its id: another host could take it over with the id.
func redirectPolicy(next func(*http.Request, []*http.Request) error, userKeys map[string]bool) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if !keepsCredentials(via[0].URL, req.URL) {
			req.Header.Del("Authorization")
			req.Header.Del("DPoP")
			req.Header.Del("Mcp-Session-Id")
			req.Header.Del("Last-Event-Id")
			for k := range userKeys {
				req.Header.Del(k)
			}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

// keepsCredentials reports whether a request to to may carry the
// credentials of a request to from: it stays on from's host and does not
// step down from https.
func keepsCredentials(from, to *url.URL) bool {
	return origin.SameHost(from, to) && (from.Scheme != "https" || to.Scheme == "https")
}

// newRequest returns a request to u carrying the shared headers.
func (h *httpClient) newRequest(ctx context.Context, method, u string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, redactURL(u), h.scrubErr(err))
	}
	for k, v := range h.header {
		req.Header[k] = v
	}
	return req, nil
}

// do sends req. Its errors hold no secret and no query string. With an
// Authorizer, the request carries its credentials, and a 401 or 403 answer
// lets it obtain new ones and send the request again, up to MaxAuthRetries
// times; what the Authorizer could not mend is left to the caller, as the
// response, or returned as an *AuthError when the Authorizer failed.
func (h *httpClient) do(req *http.Request) (*http.Response, error) {
	return h.doWith(h.client, req)
}

// doStream is do for the GET that opens a stream of server messages.
func (h *httpClient) doStream(req *http.Request) (*http.Response, error) {
	return h.doWith(h.stream, req)
}

// doWith is do with client.
func (h *httpClient) doWith(client *http.Client, req *http.Request) (*http.Response, error) {
	if h.auth == nil {
		resp, err := client.Do(req)
		if err != nil {
			return nil, h.scrubErr(err)
		}
		return resp, nil
	}
	for attempt := 0; ; attempt++ {
		if err := h.auth.Authorize(req); err != nil {
			return nil, h.scrubErr(fmt.Errorf("authorizing %s %s: %w", req.Method, redactURL(req.URL.String()), err))
		}
		h.noteCredential(req.Header.Get("Authorization"))
		resp, err := client.Do(req)
		if err != nil {
			return nil, h.scrubErr(err)
		}
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden || attempt == MaxAuthRetries {
			return resp, nil
		}
		actx := signInContext(req.Context())
		retry, aerr := h.auth.Refused(actx, req, resp)
		if aerr != nil {
			body := readErrorBody(resp)
			e := h.statusError(req.Method, req.URL.String(), resp.StatusCode, body).(*AuthError)
			e.Hint = h.scrub(aerr.Error())
			e.Err = aerr
			return nil, e
		}
		if !retry {
			return resp, nil
		}
		h.authGen.Add(1)
		if req.Context().Err() != nil && actx.Err() == nil {
			drain(resp.Body)
			return nil, errAuthorizedLate
		}
		drain(resp.Body)
		if req, err = rewind(req); err != nil {
			return nil, err
		}
	}
}

// noteCredential adds the Authorization value v that the Authorizer set to
// the secrets kept out of errors and logs: a token obtained by a sign-in or
// a refresh is as much the connection's credential as BearerEnv's, and a
// server may echo it as well.
func (h *httpClient) noteCredential(v string) {
	if v == "" {
		return
	}
	h.authMu.Lock()
	defer h.authMu.Unlock()
	if n := len(h.authCreds); n > 0 && h.authCreds[n-1] == v {
		return
	}
	h.authCreds = append(slices.DeleteFunc(h.authCreds, func(c string) bool { return c == v }), v)
	if len(h.authCreds) > maxAuthCredentials {
		h.authCreds = slices.Delete(h.authCreds, 0, len(h.authCreds)-maxAuthCredentials)
	}
	all := slices.Clone(h.secrets)
	for _, c := range h.authCreds {
		all = append(all, redact.Forms(c)...)
	}
	h.red.Store(redact.New(all...))
}

// rewind returns a copy of req whose body can be sent again.
func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return r, nil
	}
	if req.GetBody == nil {
		return nil, fmt.Errorf("%s %s: the request body cannot be sent again", req.Method, redactURL(req.URL.String()))
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r.Body = body
	return r, nil
}

// scrubErr removes the query and credentials from the URL of a *url.Error and
// any secret from the message, and cuts a message longer than
// maxForeignError bytes.
func (h *httpClient) scrubErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = redactURL(ue.URL)
	}
	msg := err.Error()
	s := h.scrub(msg)
	if len(s) > maxForeignError {
		cut := textcut.Prefix(s, maxForeignError)
		s = fmt.Sprintf("%s... (and %d more bytes)", cut, len(s)-len(cut))
	}
	if s != msg {
		return &scrubbedError{msg: s, err: err}
	}
	return err
}

// maxForeignError is how many bytes of the message of a net/http error an
// error shows. net/http quotes what the server sent, escaped, but whole:
// a header line it refuses (up to the 10 MiB of
// http.Transport.MaxResponseHeaderBytes) would make the message as long.
const maxForeignError = 512

// scrubbedError is an error whose message had a secret removed. It keeps the
// original for errors.Is (context errors) but never prints it.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }

func (e *scrubbedError) Is(target error) bool {
	return target == context.Canceled && errors.Is(e.err, context.Canceled) ||
		target == context.DeadlineExceeded && errors.Is(e.err, context.DeadlineExceeded)
}

// scrub replaces every secret in s, as it is and as escapes spell it.
func (h *httpClient) scrub(s string) string { return h.red.Load().String(s) }

// quote returns text the server sent (a header, an event type, a URL) as an
// error string quotes it: scrubbed, then escaped and cut by redact.Quote.
func (h *httpClient) quote(s string) string { return h.red.Load().Quote(s) }

// statusError builds the error for an HTTP response without a JSON-RPC
// message. A 401 or 403 gets a hint about the bearer token.
func (h *httpClient) statusError(method, u string, status int, body []byte) error {
	body = bytes.TrimSpace(body)
	if len(body) > 0 {
		// Scrubbed before it is cut: a secret the cut ends in the middle
		// of would no longer be matched, and its start would show.
		body = []byte(h.scrub(string(body)))
	}
	if len(body) > maxErrorBodyShown {
		body = body[:maxErrorBodyShown]
	}
	e := &HTTPError{Method: method, URL: redactURL(u), StatusCode: status, Body: body}
	if status != http.StatusUnauthorized && status != http.StatusForbidden {
		return e
	}
	switch {
	case h.auth != nil:
		return &AuthError{HTTPError: e, Hint: "the server refused the credentials the Authorizer obtained"}
	case h.env != "":
		return &AuthError{HTTPError: e, Hint: fmt.Sprintf("the server refused the bearer token from $%s", h.env)}
	case h.hasAuth:
		return &AuthError{HTTPError: e, Hint: "the server refused the Authorization header"}
	default:
		return &AuthError{HTTPError: e, Hint: "the server wants authorization: name an environment variable holding a bearer token in HTTPOptions.BearerEnv (mcpgen: --bearer-env VAR)"}
	}
}

// AuthError is an HTTP 401 or 403: the server wants credentials, or refused
// the ones sent. It is an authorization failure, never a sign of the
// server's protocol era. errors.As also finds its *HTTPError.
type AuthError struct {
	*HTTPError
	Hint string // what to do about it, in one sentence
	Err  error  // the Authorizer's error, when it failed to obtain credentials
}

func (e *AuthError) Error() string { return e.HTTPError.Error() + "; " + e.Hint }

// Unwrap returns the *HTTPError and, when the Authorizer failed, its error.
func (e *AuthError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.HTTPError, e.Err}
	}
	return []error{e.HTTPError}
}

// readErrorBody reads the start of an error response's body and closes it.
func readErrorBody(resp *http.Response) []byte {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return b
}

// drain reads what is left of a small body, so that the connection can be
// reused, and closes it.
func drain(body io.ReadCloser) {
	// An empty body, such as that of a 202 to a notification, is not
	// copied: io.Discard would take its 8 KiB buffer from a pool that
	// a fresh process has yet to fill.
	if body != http.NoBody {
		_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
	}
	body.Close()
}

// readBody reads a whole JSON body of at most limit bytes and closes it. A
// larger body is a *MessageTooLargeError.
func readBody(resp *http.Response, limit int) ([]byte, error) {
	defer resp.Body.Close()
	if n := resp.ContentLength; n >= 0 {
		if n > int64(limit) {
			pre := make([]byte, sse.PrefixSize)
			k, _ := io.ReadFull(resp.Body, pre)
			return nil, &MessageTooLargeError{Limit: limit, Prefix: pre[:k]}
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if n > int64(limit) {
		b := buf.Bytes()
		return nil, &MessageTooLargeError{Limit: limit, Prefix: b[:min(len(b), sse.PrefixSize)]}
	}
	return buf.Bytes(), nil
}

// mediaType returns the media type of a Content-Type header, lower case.
func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	if i := strings.IndexByte(ct, ';'); i < 0 && !strings.ContainsAny(ct, "ABCDEFGHIJKLMNOPQRSTUVWXYZ ") {
		return ct
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	}
	return mt
}

// redactURL returns u without user info, query and fragment: session ids and
// keys often travel in the query.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			u = u[:i]
		}
		if i := strings.Index(u, "@"); i >= 0 {
			if j := strings.Index(u, "://"); j >= 0 && j < i {
				u = u[:j+3] + u[i+1:]
			}
		}
		return u
	}
	p.User = nil
	p.RawQuery = ""
	p.ForceQuery = false
	p.Fragment = ""
	p.RawFragment = ""
	return p.String()
}

// rpcResponseFor reports whether body is a JSON-RPC response to the request
// whose id is id (JSON text), as a server sends in an HTTP error status.
func rpcResponseFor(body []byte, id string) bool {
	if id == "" {
		return false
	}
	m, err := jsonrpc.Decode(jsonrpc.TrimSpace(body))
	return err == nil && m.Kind == jsonrpc.KindResponse && sameID(m.ID, id)
}

// errNoResponse is wrapped by the error of a request whose POST was
// answered with something that cannot hold its response (HTTP 202 or 204,
// an empty body, JSON without it): Streamable HTTP answers a request on
// that POST only, so none will come. A probe answered so falls back to the
// 2025-11-25 handshake, as a legacy server's refusal of it does.
var errNoResponse = errors.New("holds no response to the request")

// holdsResponseFor reports whether body, a message or a batch, may hold
// the answer to request id: a message with that id, which the Session then
// takes as the response, or as an invalid one when it is malformed.
func holdsResponseFor(body []byte, id string) bool {
	if !jsonrpc.IsBatch(body) {
		return namesID(body, id)
	}
	found := false
	_ = jsonrpc.Batch(body, func(m []byte) error {
		found = found || namesID(m, id)
		return nil
	})
	return found
}

// namesID reports whether the message msg has the id id (JSON text), as
// the Session compares them: integers by value, others by their text.
func namesID(msg []byte, id string) bool {
	raw, ok := jsonrpc.FindID(msg, msg)
	if !ok {
		return false
	}
	if a, ok := jsonrpc.Int(raw); ok {
		b, ok := jsonrpc.Int([]byte(id))
		return ok && a == b
	}
	return sameID(raw, id)
}

// sameID compares a raw JSON id with an id as JSON text.
func sameID(raw []byte, id string) bool {
	return string(jsonrpc.TrimSpace(raw)) == id
}

// encodeHeaderValue encodes a value for the Mcp-Name header: as it is when it
// is plain printable ASCII without surrounding spaces, else in the
// =?base64?...?= form.
func encodeHeaderValue(v string) string {
	plain := v != "" && v[0] != ' ' && v[0] != '\t' && v[len(v)-1] != ' ' && v[len(v)-1] != '\t'
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] < 0x7f
	}
	if plain && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=")) {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// inbox is the queue a connection's Read drains. Several producers (the
// response streams) put messages in it; Close of its owner ends it.
type inbox struct {
	ch        chan item
	done      chan struct{}
	closeOnce sync.Once
}

type item struct {
	data []byte
	err  error
}

// inboxSize is the number of messages an inbox queues before its
// producers wait for the reader, which drains it as fast as messages come:
// a small queue is enough, and an idle connection holds it.
const inboxSize = 16

func newInbox() *inbox {
	return &inbox{ch: make(chan item, inboxSize), done: make(chan struct{})}
}

// put queues it, unless ctx ends or the inbox closes first.
func (b *inbox) put(ctx context.Context, it item) bool {
	select {
	case b.ch <- it:
		return true
	case <-ctx.Done():
		return false
	case <-b.done:
		return false
	}
}

func (b *inbox) read(ctx context.Context) ([]byte, error) {
	select {
	case it := <-b.ch:
		return it.data, it.err
	case <-b.done:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *inbox) close() { b.closeOnce.Do(func() { close(b.done) }) }

// sleep waits d, or less when ctx ends first, which it reports.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryDelay returns the delay before reconnection attempt n (from 0): the
// server's retry interval when it set one, else a backoff from defaultRetry.
func retryDelay(r *sse.Reader, n int) time.Duration {
	if d, ok := r.Retry(); ok {
		return min(d, maxRetry)
	}
	d := defaultRetry << min(n, 5)
	return min(d, maxRetry)
}
