package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// ErrInputRequired is the error Elicit, Sample and ListRoots return in the
// 2026-07-28 era when the client has not answered the request yet. The
// handler should return it, as it returns any error; whatever it returns,
// the Server then answers the request with resultType "input_required",
// and runs the handler again, from the start, when the client retries with
// its answers. In that run the same calls, made in the same order, return
// the answers.
var ErrInputRequired = errors.New("server: the client's input is required: return this error from the handler")

// Elicit asks the client's user for input from within a ToolHandler,
// PromptHandler or ResourceHandler, and returns the user's answer, whose
// Action may be a decline or a cancel. Only RequestedSchema, Message, Mode,
// URL and ElicitationID of req are sent.
//
// In the legacy era the Server sends the client an elicitation/create
// request and waits for its answer, for ctx to end, or at most
// Options.AskTimeout. In the 2026-07-28
// era it returns ErrInputRequired until the client has answered (see
// there). Elicit fails at once when req lacks what its mode needs (URL in
// url mode, RequestedSchema in form mode), and when the client has not
// declared the elicitation capability (the mode's, since 2025-11-25); over
// HTTP in the legacy era, where the Server keeps no session, it cannot tell
// and asks anyway. In the 2026-07-28 era, a handler that returns that
// error, as it is or wrapped, has its request answered with the
// MissingRequiredClientCapability error (-32021) naming the capability.
// Outside a handler it fails.
func Elicit(ctx context.Context, req *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
	mode := req.Mode
	if mode == "" {
		mode = runtime.ElicitForm
	}
	switch {
	case mode == runtime.ElicitURL && req.URL == "":
		return nil, errors.New("server: an elicitation in url mode needs a URL")
	case mode == runtime.ElicitForm && len(req.RequestedSchema) == 0:
		return nil, errors.New("server: an elicitation in form mode needs a RequestedSchema")
	}
	params, err := json.Marshal(struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
		URL             string          `json:"url,omitempty"`
		ElicitationID   string          `json:"elicitationId,omitempty"`
	}{mode, req.Message, req.RequestedSchema, req.URL, req.ElicitationID})
	if err != nil {
		return nil, fmt.Errorf("server: encoding the elicitation request: %w", err)
	}
	raw, err := ask(ctx, "elicitation/create", mode, params)
	if err != nil {
		return nil, err
	}
	var res runtime.ElicitResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("server: the client's answer to elicitation/create is malformed: %w", err)
	}
	switch res.Action {
	case runtime.ElicitAccept, runtime.ElicitDecline, runtime.ElicitCancel:
	default:
		return nil, fmt.Errorf("server: the client's answer to elicitation/create has action %q", res.Action)
	}
	return &res, nil
}

// Sample asks the client for a completion of its language model
// (sampling/createMessage) from within a handler, as Elicit asks for
// input, with the sampling capability; a request with Tools or ToolChoice
// needs its tools capability (sampling.tools) too, as the specification
// requires since 2025-11-25.
func Sample(ctx context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
	params, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("server: encoding the sampling request: %w", err)
	}
	var mode string
	if isSet(req.Tools) || isSet(req.ToolChoice) {
		mode = samplingTools
	}
	raw, err := ask(ctx, "sampling/createMessage", mode, params)
	if err != nil {
		return nil, err
	}
	var msg runtime.SamplingMessage
	var rest struct {
		Model      string `json:"model"`
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(raw, &msg); err == nil {
		err = json.Unmarshal(raw, &rest)
	}
	switch {
	case err != nil:
	case msg.Role == "":
		err = errors.New("no role")
	case msg.Role != "user" && msg.Role != "assistant":
		err = fmt.Errorf("role %q is neither user nor assistant", msg.Role)
	case msg.Content == nil:
		err = errors.New("no content")
	}
	if err != nil {
		return nil, fmt.Errorf("server: the client's answer to sampling/createMessage is malformed: %w", err)
	}
	return &runtime.SamplingResult{Role: msg.Role, Content: msg.Content, Model: rest.Model, StopReason: rest.StopReason}, nil
}

// samplingTools is the mode ask and offers give a sampling request with
// tools, which needs the sampling capability's tools member.
const samplingTools = "tools"

// isSet reports whether a member kept as raw JSON is sent with a value.
func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// ListRoots asks the client for its roots (roots/list) from within a
// handler, as Elicit asks for input, with the roots capability.
func ListRoots(ctx context.Context) ([]runtime.Root, error) {
	raw, err := ask(ctx, "roots/list", "", []byte("{}"))
	if err != nil {
		return nil, err
	}
	var res struct {
		Roots []runtime.Root `json:"roots"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("server: the client's answer to roots/list is malformed: %w", err)
	}
	if res.Roots == nil {
		return nil, errors.New("server: the client's answer to roots/list is malformed: no roots")
	}
	return res.Roots, nil
}

// An asker sends a request to the client of the request a handler runs
// for, and returns the client's result.
type asker interface {
	ask(ctx context.Context, method string, params []byte) (json.RawMessage, error)
	// offers reports whether the client declared the capability of
	// method, and of mode for an elicitation or a sampling request with
	// tools; known is false when the asker cannot tell.
	offers(method, mode string) (ok, known bool)
}

type askerKey struct{}

// withAsker returns ctx carrying a, for the handler of one request.
func withAsker(ctx context.Context, a asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// ask sends one request to the client through the asker of ctx.
func ask(ctx context.Context, method, mode string, params []byte) (json.RawMessage, error) {
	a, _ := ctx.Value(askerKey{}).(asker)
	if a == nil {
		return nil, fmt.Errorf("server: %s is asked outside a handler of a Server", method)
	}
	if ok, known := a.offers(method, mode); known && !ok {
		what := method
		switch {
		case mode == samplingTools:
			what += " with tools"
		case mode != "":
			what += " in " + mode + " mode"
		}
		err := fmt.Errorf("server: the client does not offer %s", what)
		if _, modern := a.(*rounds); modern {
			return nil, &missingCapability{err: err, rpc: missingCapabilityError(method, mode, what)}
		}
		return nil, err
	}
	return a.ask(ctx, method, params)
}

// missingCapability is the error Elicit, Sample and ListRoots return in the
// 2026-07-28 era when the client did not declare the capability they need:
// it says so as in the legacy era, and wraps the
// MissingRequiredClientCapability error that a request whose handler
// returns it is answered with, as the specification requires.
type missingCapability struct {
	err error
	rpc *runtime.RPCError
}

func (e *missingCapability) Error() string { return e.err.Error() }

func (e *missingCapability) Unwrap() error { return e.rpc }

// missingCapabilityError is the MissingRequiredClientCapability error of a
// request to the client with method and mode, what in words, whose data
// names the capability, as a ClientCapabilities object.
func missingCapabilityError(method, mode, what string) *runtime.RPCError {
	var caps string
	switch {
	case method == "roots/list":
		caps = `{"roots":{}}`
	case method == "sampling/createMessage" && mode == samplingTools:
		caps = `{"sampling":{"tools":{}}}`
	case method == "sampling/createMessage":
		caps = `{"sampling":{}}`
	case mode == runtime.ElicitURL:
		caps = `{"elicitation":{"url":{}}}`
	default:
		caps = `{"elicitation":{}}`
	}
	return &runtime.RPCError{
		Code:    runtime.CodeMissingRequiredClientCapability,
		Message: "Missing required client capability: the request needs " + what,
		Data:    json.RawMessage(`{"requiredCapabilities":` + caps + `}`),
	}
}

// offers reports whether the capabilities object caps declares the
// capability of method, and for an elicitation that of mode: an
// elicitation capability with neither form nor url offers form only. A
// sampling request with tools needs the sampling capability's tools
// member.
func offers(caps json.RawMessage, method, mode string) bool {
	var c map[string]json.RawMessage
	if json.Unmarshal(caps, &c) != nil {
		return false
	}
	switch method {
	case "sampling/createMessage":
		raw, ok := c["sampling"]
		if !ok || mode != samplingTools {
			return ok
		}
		var sampling map[string]json.RawMessage
		_ = json.Unmarshal(raw, &sampling)
		_, tools := sampling["tools"]
		return tools
	case "roots/list":
		_, ok := c["roots"]
		return ok
	}
	raw, ok := c["elicitation"]
	if !ok {
		return false
	}
	var modes map[string]json.RawMessage
	_ = json.Unmarshal(raw, &modes)
	_, form := modes["form"]
	_, url := modes["url"]
	if mode == runtime.ElicitURL {
		return url
	}
	return form || !url
}

// awaiting holds the requests the server sent to a client that await their
// answers, by id. Each id is random, so that over HTTP, where any client
// may post an answer, one client cannot answer another's request.
type awaiting struct {
	mu    sync.Mutex
	m     map[string]chan *message
	ended chan struct{} // closed when no answer can come any more
}

// add returns the id of a new request, as JSON, the channel its answer
// will come on, and a channel closed when no answer can come.
func (a *awaiting) add() (json.RawMessage, chan *message, <-chan struct{}) {
	id := json.RawMessage(`"mcpgen-` + rand.Text() + `"`)
	ch := make(chan *message, 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string]chan *message{}
		a.ended = make(chan struct{})
	}
	a.m[string(id)] = ch
	return id, ch, a.ended
}

// end fails the requests awaited now and later: their connection is gone.
func (a *awaiting) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string]chan *message{}
		a.ended = make(chan struct{})
	}
	select {
	case <-a.ended:
	default:
		close(a.ended)
	}
}

// remove forgets the request id.
func (a *awaiting) remove(id json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.m, string(id))
}

// deliver hands the response m to the request it answers, and drops a
// response to no request the server awaits.
func (a *awaiting) deliver(m *message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch := a.m[idKey(m.ID)]; ch != nil {
		delete(a.m, idKey(m.ID))
		ch <- m
	}
}

// refuse hands the request that data answers, when it is one the server
// awaits, the error perr that the server refused data with (malformed, or
// over the size limit and then cut): an answer the server cannot read fails
// the request rather than leave it awaiting an answer that has come.
func (a *awaiting) refuse(data []byte, perr *runtime.RPCError) {
	if id := responseID(data); id != nil {
		a.deliver(&message{ID: id, refused: perr.Message})
	}
}

// responseID returns the id of the response data, read from its members up
// to the first one that cannot be read, so that a message cut short still
// gives the id written before its result; nil when data is no object or has
// a method before its id.
func responseID(data []byte) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(data))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var id json.RawMessage
	for d.More() {
		t, err := d.Token()
		key, ok := t.(string)
		var v json.RawMessage
		if err != nil || !ok || d.Decode(&v) != nil {
			break
		}
		switch key {
		case "id":
			id = v
		case "method":
			return nil
		}
	}
	return id
}

// connEndedError is the error of a request to the client, for method, that
// its connection ended before the client answered.
func connEndedError(method string) error {
	return fmt.Errorf("server: the connection ended before the client answered %s", method)
}

// serverRequest is the message of a request the server sends.
func serverRequest(id json.RawMessage, method string, params []byte) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b = append(b, params...)
	return append(b, '}')
}

// cancelled is the notification that the server no longer awaits the
// answer to its request id.
func cancelled(id json.RawMessage) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `}}`)
}

// await sends a request with send, and waits for its answer from a, for
// ctx to end or, when timeout is positive, for timeout to pass; then it
// tells the client, with send, that the answer is no longer awaited. When
// ctx has ended already (a goroutine of a handler that has returned asks),
// it sends nothing.
func await(ctx context.Context, a *awaiting, send func([]byte) error, method string, params []byte, timeout time.Duration) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id, ch, ended := a.add()
	defer a.remove(id)
	if err := send(serverRequest(id, method, params)); err != nil {
		return nil, fmt.Errorf("server: sending %s to the client: %w", method, err)
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	var m *message
	select {
	case <-expired:
		_ = send(cancelled(id))
		return nil, fmt.Errorf("server: the client did not answer %s within %s (Options.AskTimeout)", method, timeout)
	case <-ended:
		// An answer read before the connection ended is still taken.
		select {
		case m = <-ch:
		default:
			return nil, connEndedError(method)
		}
	case m = <-ch:
	case <-ctx.Done():
		// An answer read before the call ended, as when the client
		// answers and then ends its input, is still taken. A
		// connection that ended ends the handlers' contexts right
		// after ended: that is the reason, and no client is left to
		// tell.
		select {
		case m = <-ch:
		default:
			select {
			case <-ended:
				return nil, connEndedError(method)
			default:
			}
			_ = send(cancelled(id))
			return nil, ctx.Err()
		}
	}
	if m.refused != "" {
		return nil, fmt.Errorf("server: the client's answer to %s was refused: %s", method, m.refused)
	}
	if m.Error != nil {
		return nil, fmt.Errorf("server: the client answered %s with an error: %w", method, m.Error)
	}
	if len(m.Result) == 0 {
		return nil, fmt.Errorf("server: the client's answer to %s has no result", method)
	}
	return m.Result, nil
}

// rounds is the asker of a 2026-07-28 request: it answers from the client's
// inputResponses and from the answers of earlier rounds that the
// requestState carries, and records the requests it has no answer to.
type rounds struct {
	caps json.RawMessage

	mu      sync.Mutex
	answers map[string]json.RawMessage
	used    map[string]json.RawMessage // the answers the run asked for
	n       int
	pending map[string]inputRequest
}

// inputRequest is one member of an inputRequests object.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (r *rounds) offers(method, mode string) (bool, bool) {
	return offers(r.caps, method, mode), true
}

// ask returns the answer to the next request of the handler's run when the
// client gave it, and ErrInputRequired otherwise. Requests are keyed by
// their method and their place in the run, so that a run that asks the same
// things in the same order finds its answers.
func (r *rounds) ask(_ context.Context, method string, params []byte) (json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	key := method + "#" + strconv.Itoa(r.n)
	if a, ok := r.answers[key]; ok {
		r.used[key] = a
		return a, nil
	}
	if r.pending == nil {
		r.pending = map[string]inputRequest{}
	}
	r.pending[key] = inputRequest{Method: method, Params: params}
	return nil, ErrInputRequired
}

// answerInRounds runs a tools/call, prompts/get or resources/read request
// of the 2026-07-28 era with its handler's input requests answered from
// the request's inputResponses and requestState, and answers with
// resultType "input_required" when the handler asked for more.
func (s *Server) answerInRounds(ctx context.Context, req *request, run func(context.Context, *request) (json.RawMessage, *runtime.RPCError)) (json.RawMessage, *runtime.RPCError) {
	r := &rounds{caps: req.p.Meta[metaCapabilities], answers: map[string]json.RawMessage{}, used: map[string]json.RawMessage{}}
	if req.p.RequestState != nil {
		answers, err := s.unseal(req, *req.p.RequestState)
		if err != nil {
			return nil, rpcError(runtime.CodeInvalidParams, req.method+": "+err.Error())
		}
		r.answers = answers
	}
	for k, v := range req.p.InputResponses {
		r.answers[k] = v
	}
	res, e := run(withAsker(ctx, r), req)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) == 0 {
		return res, e
	}
	// The answers the run asked for go on to the next round; any others
	// the client sent are dropped.
	state, err := s.seal(req, r.used)
	if err != nil {
		return nil, rpcError(runtime.CodeInternalError, req.method+": encoding the request state: "+err.Error())
	}
	body, err := json.Marshal(struct {
		ResultType    string                  `json:"resultType"`
		InputRequests map[string]inputRequest `json:"inputRequests"`
		RequestState  string                  `json:"requestState"`
	}{"input_required", r.pending, state})
	if err != nil {
		return nil, rpcError(runtime.CodeInternalError, req.method+": encoding the input requests: "+err.Error())
	}
	return body, nil
}

// seal encodes the answers a request's handler has had as its
// requestState, signed with the Server's key and bound to the request's
// method, its name or URI and its arguments, so that a client can neither
// forge answers nor carry them to another request.
func (s *Server) seal(req *request, answers map[string]json.RawMessage) (string, error) {
	payload, err := json.Marshal(answers)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(s.mac(req, payload)), nil
}

// unseal decodes a requestState that seal made for the same request.
func (s *Server) unseal(req *request, state string) (map[string]json.RawMessage, error) {
	bad := errors.New("requestState is not one this server issued for this request")
	payloadText, sumText, ok := bytes.Cut([]byte(state), []byte("."))
	if !ok {
		return nil, bad
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(string(payloadText))
	sum, err2 := base64.RawURLEncoding.DecodeString(string(sumText))
	if err1 != nil || err2 != nil || !hmac.Equal(sum, s.mac(req, payload)) {
		return nil, bad
	}
	var answers map[string]json.RawMessage
	if err := json.Unmarshal(payload, &answers); err != nil {
		return nil, bad
	}
	if answers == nil {
		answers = map[string]json.RawMessage{}
	}
	return answers, nil
}

// mac is the signature of a request state's payload.
func (s *Server) mac(req *request, payload []byte) []byte {
	h := hmac.New(sha256.New, s.stateKey[:])
	h.Write([]byte(req.method))
	h.Write([]byte{0})
	h.Write([]byte(req.p.Name))
	h.Write([]byte{0})
	h.Write([]byte(req.p.URI))
	h.Write([]byte{0})
	var args bytes.Buffer
	if json.Compact(&args, req.p.Arguments) != nil {
		args.Write(req.p.Arguments)
	}
	h.Write(args.Bytes())
	h.Write([]byte{0})
	h.Write(payload)
	return h.Sum(nil)
}
