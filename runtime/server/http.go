package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime"
)

// ServeHTTP serves the Streamable HTTP transport: each POST carries one
// message, or in 2025-03-26 a batch of them, and each request gets its
// response as the body of the POST's response, as JSON; or, when its
// handler sends the client a request (see Elicit), as an event stream that
// carries the handler's requests and then the response, whose answers the
// client posts. The server keeps no session: a legacy request is answered
// under the version of its MCP-Protocol-Version header, and a 2026-07-28
// request's headers must agree with its body (-32020 otherwise).
// There is no GET stream: GET and DELETE are answered 405. A request whose
// Origin header names another host is refused with 403, against DNS
// rebinding; a POST whose Content-Type is not application/json with 415,
// and one whose Accept header does not list both application/json and
// text/event-stream with 406, as the specification requires of clients.
// Each of these refusals carries a JSON-RPC error with a null id, as the
// TypeScript server's do. A cancelled call is one whose HTTP request the
// client abandons.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refuseHTTP(w, http.StatusMethodNotAllowed, "this server has no GET stream and keeps no session: only POST is allowed")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if u, err := url.Parse(origin); err != nil || u.Host != r.Host {
			refuseHTTP(w, http.StatusForbidden, "origin "+origin+" is not allowed")
			return
		}
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		refuseHTTP(w, http.StatusUnsupportedMediaType, "the Content-Type of a POST must be application/json")
		return
	}
	if !acceptsBoth(r.Header.Values("Accept")) {
		refuseHTTP(w, http.StatusNotAcceptable, "the Accept header of a POST must list both application/json and text/event-stream")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.opts.MaxMessageSize)))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			e := rpcError(runtime.CodeInvalidRequest, fmt.Sprintf("the message exceeds the %d-byte limit", s.opts.MaxMessageSize))
			s.asks.refuse(body, e)
			writeJSON(w, http.StatusRequestEntityTooLarge, response(nil, nil, e))
			return
		}
		refuseHTTP(w, http.StatusBadRequest, "reading the request: "+err.Error())
		return
	}
	if isBatch(body) {
		s.serveBatch(w, r, body)
		return
	}
	m, perr := parse(body)
	if perr != nil {
		s.asks.refuse(body, perr)
		writeJSON(w, http.StatusBadRequest, response(nil, nil, perr))
		return
	}
	if m.Method == "" || len(m.ID) == 0 {
		// Notifications and responses need no answer: calls end with
		// their HTTP requests. A response goes to the handler whose
		// request it answers.
		if m.Method == "" {
			s.asks.deliver(m)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	req, rerr := s.settle(m, nil, r.Header.Get("Mcp-Protocol-Version"))
	if rerr == nil && req.modern {
		rerr = s.checkHeaders(req, r.Header)
	}
	var res []byte
	events := &eventStream{w: w}
	if rerr == nil {
		res, rerr = s.answer(withAsker(r.Context(), &httpAsker{s: s, events: events}), req, nil)
	}
	events.end(errorStatus(req, rerr), response(m.ID, res, rerr))
}

// serveBatch answers a POST whose body is a JSON-RPC batch, which
// 2025-03-26 alone has (the version of a POST without an
// MCP-Protocol-Version header): its requests in turn, with the array of
// their responses, as JSON or, when a handler sent the client a request,
// as the last event of the stream; 202 when it holds no request.
func (s *Server) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	header := r.Header.Get("Mcp-Protocol-Version")
	version := header
	if version == "" {
		version = batchVersion
	}
	items, e := s.batchItems(body, version)
	if e != nil {
		writeJSON(w, http.StatusBadRequest, response(nil, nil, e))
		return
	}
	events := &eventStream{w: w}
	ctx := withAsker(r.Context(), &httpAsker{s: s, events: events})
	var out [][]byte
	for _, item := range items {
		m, perr := parse(item)
		if perr != nil {
			s.asks.refuse(item, perr)
			out = append(out, response(nil, nil, perr))
			continue
		}
		if m.Method == "" {
			s.asks.deliver(m)
			continue
		}
		if len(m.ID) == 0 {
			continue
		}
		req, rerr := s.settle(m, nil, header)
		if rerr == nil {
			rerr = unbatchable(req)
		}
		var res []byte
		if rerr == nil {
			res, rerr = s.answer(ctx, req, nil)
		}
		out = append(out, response(m.ID, res, rerr))
	}
	if len(out) == 0 {
		// Notifications and responses alone: no handler ran.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	events.end(http.StatusOK, joinBatch(out))
}

// acceptsBoth reports whether the Accept header values list both
// application/json and text/event-stream, as the specification requires of
// each POST; parameters, such as a q value, are ignored.
func acceptsBoth(values []string) bool {
	var jsonOK, eventsOK bool
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(item, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "application/json":
				jsonOK = true
			case "text/event-stream":
				eventsOK = true
			}
		}
	}
	return jsonOK && eventsOK
}

// errorStatus is the HTTP status of the response to req that carries e:
// in the 2026-07-28 era, 404 for an unknown method and 400 for the errors
// the specification gives that status; any other error, an internal one
// included, is the answer of a POST that succeeded, as the go-sdk and
// TypeScript servers send it. A legacy request's errors are answered 200,
// but an invalid request.
func errorStatus(req *request, e *runtime.RPCError) int {
	if e == nil {
		return http.StatusOK
	}
	switch e.Code {
	case runtime.CodeInvalidRequest:
		return http.StatusBadRequest
	case runtime.CodeMethodNotFound:
		if req.modern {
			return http.StatusNotFound
		}
	case runtime.CodeParseError, runtime.CodeInvalidParams, runtime.CodeHeaderMismatch,
		runtime.CodeMissingRequiredClientCapability, runtime.CodeUnsupportedProtocolVersion:
		if req.modern {
			return http.StatusBadRequest
		}
	}
	return http.StatusOK
}

// eventStream is the body of a POST's response once a handler has sent the
// client a request: an event stream that carries the requests, and then the
// response.
type eventStream struct {
	w       http.ResponseWriter
	mu      sync.Mutex
	started bool
	ended   bool
}

// errStreamEnded is eventStream.send's error once the response has been
// sent.
var errStreamEnded = errors.New("the response has been sent")

// start makes the response an event stream, when it is not one yet.
func (e *eventStream) start() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.started && !e.ended {
		e.started = true
		e.w.Header().Set("Content-Type", "text/event-stream")
		e.w.Header().Set("Cache-Control", "no-cache")
		e.w.WriteHeader(http.StatusOK)
	}
}

// send writes msg as an event of the stream.
func (e *eventStream) send(msg []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ended {
		return errStreamEnded
	}
	return e.write(msg)
}

// write writes msg as an event and flushes it.
func (e *eventStream) write(msg []byte) error {
	b := append([]byte("event: message\ndata: "), msg...)
	b = append(b, "\n\n"...)
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return http.NewResponseController(e.w).Flush()
}

// end sends the response, as the last event of the stream or, when the
// handler sent no request, as JSON with status. No request a goroutine of
// the handler sends later goes out.
func (e *eventStream) end(status int, msg []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ended = true
	if e.started {
		_ = e.write(msg)
		return
	}
	writeJSON(e.w, status, msg)
}

// httpAsker is the asker of a legacy request over HTTP: it sends its
// request on the event stream of the POST's response, and the answer comes
// in a POST of its own. The Server keeps no session, so it cannot tell
// which capabilities the client declared.
type httpAsker struct {
	s      *Server
	events *eventStream
}

func (a *httpAsker) offers(string, string) (bool, bool) { return false, false }

func (a *httpAsker) ask(ctx context.Context, method string, params []byte) (json.RawMessage, error) {
	a.events.start()
	return await(ctx, &a.s.asks, a.events.send, method, params, a.s.opts.AskTimeout)
}

// checkHeaders checks the headers a 2026-07-28 request carries against its
// body: MCP-Protocol-Version, Mcp-Method, Mcp-Name for tools/call and
// prompts/get (the name) and resources/read (the URI), and the
// Mcp-Param-* headers of a tool's annotations.
func (s *Server) checkHeaders(req *request, h http.Header) *runtime.RPCError {
	mismatch := func(header, got, want string) *runtime.RPCError {
		return rpcError(runtime.CodeHeaderMismatch, fmt.Sprintf("header %s is %q, and the request says %q", header, got, want))
	}
	if v := h.Get("Mcp-Protocol-Version"); v != req.version {
		return mismatch("MCP-Protocol-Version", v, req.version)
	}
	if v := h.Get("Mcp-Method"); v != req.method {
		return mismatch("Mcp-Method", v, req.method)
	}
	var name string
	switch req.method {
	case "tools/call", "prompts/get":
		name = req.p.Name
	case "resources/read":
		name = req.p.URI
	default:
		return nil
	}
	if v := decodeHeaderValue(h.Get("Mcp-Name")); v != name {
		return mismatch("Mcp-Name", v, name)
	}
	if t := s.tools[req.p.Name]; t != nil && req.method == "tools/call" {
		return checkParamHeaders(t, req.p.Arguments, h)
	}
	return nil
}

// decodeHeaderValue decodes a header value a client wrote in the
// =?base64?…?= form, for a value that is not plain ASCII.
func decodeHeaderValue(v string) string {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v
	}
	b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-len("?=")])
	if err != nil {
		return v
	}
	return string(b)
}

// refuseHTTP answers a request the transport refuses before reading a
// message with status and a JSON-RPC error whose id is null, code -32000,
// as the TypeScript server does.
func refuseHTTP(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, response(nil, nil, rpcError(codeTransportRefused, msg)))
}

// codeTransportRefused is the JSON-RPC code of refuseHTTP's errors: -32000,
// the first of the codes JSON-RPC leaves to implementations, which the
// TypeScript server uses for these refusals.
const codeTransportRefused = -32000

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
