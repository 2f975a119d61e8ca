package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/runtime"
)

// Keys of the _meta object of a 2026-07-28 request.
const (
	metaVersion      = "io.modelcontextprotocol/protocolVersion"
	metaCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// validationErrorsAreResults is the first version whose servers answer
// arguments that fail the input schema with an isError result rather than
// an invalid-params error.
const validationErrorsAreResults = "2025-11-25"

// message is one incoming JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	// Result and Error are those of a response to a request the server
	// sent.
	Result json.RawMessage   `json:"result"`
	Error  *runtime.RPCError `json:"error"`
	// refused, when set, says why the server refused a response to a
	// request it sent.
	refused string
}

// params are the members of a request's or notification's params that the
// server reads.
type params struct {
	Meta            map[string]json.RawMessage `json:"_meta"`
	Name            string                     `json:"name"`
	Arguments       json.RawMessage            `json:"arguments"`
	Cursor          *string                    `json:"cursor"`
	ProtocolVersion string                     `json:"protocolVersion"`
	RequestID       json.RawMessage            `json:"requestId"`
	URI             string                     `json:"uri"`
	Capabilities    json.RawMessage            `json:"capabilities"`
	// InputResponses and RequestState are those of the retry of a
	// 2026-07-28 request answered with input_required.
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   *string                    `json:"requestState"`
}

// request is a request with the protocol version it is answered under.
type request struct {
	id      json.RawMessage
	method  string
	p       params
	version string
	modern  bool
}

// conn is the state of one stdio or in-memory connection: the version and
// the client's capabilities the legacy handshake settled, the requests in
// flight, and the requests the server sent that await their answers. HTTP
// requests have none.
type conn struct {
	mu       sync.Mutex
	version  string
	caps     json.RawMessage
	inflight map[string]*flight
	held     int // the bytes of the messages of the requests in inflight
	asks     awaiting
}

// flight is a request in flight on a conn.
type flight struct {
	cancel    context.CancelFunc
	cancelled bool
	size      int // the bytes of its message
}

// batchVersion is the only protocol version with JSON-RPC batches, and
// maxBatch the most messages a batch may hold, as the TypeScript server
// allows.
const (
	batchVersion = "2025-03-26"
	maxBatch     = 100
)

// isBatch reports whether data, a message read, is a JSON array: a batch.
func isBatch(data []byte) bool {
	data = bytes.TrimSpace(data)
	return len(data) > 0 && data[0] == '['
}

// batchItems returns the messages of the batch data, received under
// version. Only 2025-03-26 has batches; an empty batch, and one of more
// than maxBatch messages, is refused as a whole.
func (s *Server) batchItems(data []byte, version string) ([]json.RawMessage, *runtime.RPCError) {
	if version != batchVersion || !slices.Contains(s.legacy, version) {
		msg := "batches are not supported"
		if slices.Contains(s.legacy, version) || slices.Contains(s.modern, version) {
			msg += " in " + version
		}
		return nil, rpcError(runtime.CodeInvalidRequest, msg)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, rpcError(runtime.CodeParseError, "parse error: "+err.Error())
	}
	switch {
	case len(items) == 0:
		return nil, rpcError(runtime.CodeInvalidRequest, "the batch is empty")
	case len(items) > maxBatch:
		return nil, rpcError(runtime.CodeInvalidRequest, fmt.Sprintf("the batch holds %d messages, more than %d", len(items), maxBatch))
	}
	return items, nil
}

// unbatchable is the error of a request that a batch may not hold: the
// initialize handshake, which 2025-03-26 keeps out of batches, and a
// request of the 2026-07-28 era, which has none.
func unbatchable(req *request) *runtime.RPCError {
	switch {
	case req.modern:
		return rpcError(runtime.CodeInvalidRequest, "a batch may not hold a request of the "+runtime.LatestProtocolVersion+" era")
	case req.method == "initialize":
		return rpcError(runtime.CodeInvalidRequest, "initialize must not be part of a batch")
	}
	return nil
}

// joinBatch returns the array of the responses out.
func joinBatch(out [][]byte) []byte {
	b := append([]byte{'['}, bytes.Join(out, []byte{','})...)
	return append(b, ']')
}

// parse decodes one message, refusing batches and anything that is not a
// JSON-RPC 2.0 object.
func parse(data []byte) (*message, *runtime.RPCError) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		return nil, rpcError(runtime.CodeInvalidRequest, "batches are not supported")
	}
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, rpcError(runtime.CodeParseError, "parse error: "+err.Error())
		}
		// Valid JSON that is not a request object, or whose members
		// have the wrong types.
		return nil, rpcError(runtime.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	if m.JSONRPC != "2.0" {
		return nil, rpcError(runtime.CodeInvalidRequest, `the message is not JSON-RPC 2.0 (want "jsonrpc":"2.0")`)
	}
	if bytes.Equal(m.ID, []byte("null")) {
		return nil, rpcError(runtime.CodeInvalidRequest, "the request id is null")
	}
	if len(m.ID) > 0 && m.ID[0] != '"' && m.ID[0] != '-' && (m.ID[0] < '0' || m.ID[0] > '9') {
		// JSON-RPC ids are strings or numbers; an object or an array
		// is not echoed back.
		return nil, rpcError(runtime.CodeInvalidRequest, "the request id is not a string or a number")
	}
	return &m, nil
}

// decodeParams decodes m's params, which must be an object when present.
func decodeParams(m *message) (params, *runtime.RPCError) {
	var p params
	raw := bytes.TrimSpace(m.Params)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return p, nil
	}
	if raw[0] != '{' {
		return p, rpcError(runtime.CodeInvalidParams, m.Method+": params are not an object")
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, rpcError(runtime.CodeInvalidParams, m.Method+": params: "+err.Error())
	}
	return p, nil
}

// settle decodes a request and settles the protocol version it is answered
// under: the version its _meta names in the 2026-07-28 era, the version the
// handshake settled on c, or, over HTTP, the MCP-Protocol-Version header
// (httpVersion, "" when absent). The request it returns on an error says
// whether the error is a modern one.
func (s *Server) settle(m *message, c *conn, httpVersion string) (*request, *runtime.RPCError) {
	req := &request{id: m.ID, method: m.Method}
	p, perr := decodeParams(m)
	if perr != nil {
		return req, perr
	}
	req.p = p
	rawVersion, tagged := p.Meta[metaVersion]
	// Over HTTP, a header naming the 2026-07-28 era makes the request one
	// of that era, which then needs its _meta.
	modernHeader := c == nil && httpVersion >= runtime.LatestProtocolVersion
	if m.Method == "initialize" && !(tagged && len(s.modern) > 0 && claimsModern(rawVersion)) {
		// The legacy handshake, unless the request carries the _meta of
		// a 2026-07-28 request: that era has no initialize. A header of
		// that era disagrees with the handshake.
		if modernHeader && len(s.modern) > 0 {
			req.modern = true
			return req, rpcError(runtime.CodeHeaderMismatch, fmt.Sprintf("header MCP-Protocol-Version is %q, and the request is the initialize handshake of the legacy era", httpVersion))
		}
		return req, nil
	}
	if len(s.modern) > 0 && (tagged || modernHeader || m.Method == "server/discover" || len(s.legacy) == 0) {
		req.modern = true
		if !tagged {
			return req, rpcError(runtime.CodeInvalidParams, m.Method+": _meta has no "+metaVersion)
		}
		if err := json.Unmarshal(rawVersion, &req.version); err != nil {
			return req, rpcError(runtime.CodeInvalidParams, m.Method+": _meta "+metaVersion+" is not a string")
		}
		if !slices.Contains(s.modern, req.version) {
			return req, s.unsupported(req.version)
		}
		if _, ok := p.Meta[metaCapabilities]; !ok {
			return req, rpcError(runtime.CodeInvalidParams, m.Method+": _meta has no "+metaCapabilities)
		}
		return req, nil
	}
	if c == nil {
		// Streamable HTTP keeps no session: each request names its
		// version in a header, and 2025-03-26 when it does not.
		req.version = httpVersion
		if req.version == "" {
			req.version = "2025-03-26"
		} else if !slices.Contains(s.legacy, req.version) {
			return req, rpcError(runtime.CodeInvalidRequest, fmt.Sprintf("unsupported MCP-Protocol-Version %q", httpVersion))
		}
		return req, nil
	}
	c.mu.Lock()
	req.version = c.version
	c.mu.Unlock()
	if req.version == "" && m.Method != "ping" && s.knows(m.Method) {
		return req, rpcError(runtime.CodeInvalidRequest, m.Method+": the connection is not initialized (send initialize first)")
	}
	return req, nil
}

// claimsModern reports whether the protocol version of a request's _meta,
// raw, names a version of the 2026-07-28 era or later.
func claimsModern(raw json.RawMessage) bool {
	var v string
	return json.Unmarshal(raw, &v) == nil && v >= runtime.LatestProtocolVersion
}

// knows reports whether method is one the server answers.
func (s *Server) knows(method string) bool {
	switch method {
	case "initialize", "ping", "tools/list", "tools/call":
		return true
	case "server/discover":
		return len(s.modern) > 0
	case "prompts/list", "prompts/get":
		return len(s.promptOrder) > 0
	case "resources/list", "resources/templates/list", "resources/read":
		return len(s.templates) > 0
	}
	return false
}

// unsupported is the error to a request for a version the server does not
// speak, listing those it does.
func (s *Server) unsupported(requested string) *runtime.RPCError {
	data, _ := json.Marshal(struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}{append(slices.Clone(s.modern), s.legacy...), requested})
	return &runtime.RPCError{Code: runtime.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
}

// answer runs a settled request and returns its result or its error.
func (s *Server) answer(ctx context.Context, req *request, c *conn) (json.RawMessage, *runtime.RPCError) {
	if !s.knows(req.method) || req.modern && (req.method == "initialize" || req.method == "ping") {
		// The 2026-07-28 era removed the handshake and ping.
		return nil, rpcError(runtime.CodeMethodNotFound, "Method not found: "+req.method)
	}
	switch req.method {
	case "initialize":
		return s.initialize(req, c)
	case "server/discover":
		return s.discover(req)
	case "ping":
		return s.complete(req, nil), nil
	case "tools/list":
		return s.listTools(req)
	case "tools/call":
		return s.withInput(ctx, req, s.callTool)
	case "prompts/list":
		return s.listPrompts(req)
	case "prompts/get":
		return s.withInput(ctx, req, s.getPrompt)
	case "resources/list":
		return s.listing(req, "resources", nil)
	case "resources/templates/list":
		return s.listTemplates(req)
	default: // resources/read
		return s.withInput(ctx, req, s.readResource)
	}
}

// withInput runs a request whose handler may ask the client for input: in
// rounds in the 2026-07-28 era, and through the transport's asker, which
// ctx carries, in the legacy era.
func (s *Server) withInput(ctx context.Context, req *request, run func(context.Context, *request) (json.RawMessage, *runtime.RPCError)) (json.RawMessage, *runtime.RPCError) {
	if req.modern {
		return s.answerInRounds(ctx, req, run)
	}
	return run(ctx, req)
}

// initialize answers the legacy handshake with the version the client asked
// for when the server speaks it, and with its newest legacy version
// otherwise.
func (s *Server) initialize(req *request, c *conn) (json.RawMessage, *runtime.RPCError) {
	if len(s.legacy) == 0 {
		e := s.unsupported(req.p.ProtocolVersion)
		e.Code = runtime.CodeInvalidParams
		return nil, e
	}
	version := s.legacy[0]
	if slices.Contains(s.legacy, req.p.ProtocolVersion) {
		version = req.p.ProtocolVersion
	}
	if c != nil {
		c.mu.Lock()
		c.version = version
		c.caps = req.p.Capabilities
		c.mu.Unlock()
	}
	out, err := json.Marshal(struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    string          `json:"instructions,omitempty"`
	}{version, s.capabilities(), s.info, s.opts.Instructions})
	if err != nil {
		return nil, rpcError(runtime.CodeInternalError, "encoding the initialize result: "+err.Error())
	}
	return out, nil
}

// capabilities returns the server's capabilities: tools, and prompts and
// resources when it has any; no list ever changes.
func (s *Server) capabilities() json.RawMessage {
	b := []byte(`{"tools":{}`)
	if len(s.promptOrder) > 0 {
		b = append(b, `,"prompts":{}`...)
	}
	if len(s.templates) > 0 {
		b = append(b, `,"resources":{}`...)
	}
	return append(b, '}')
}

// discover answers server/discover.
func (s *Server) discover(req *request) (json.RawMessage, *runtime.RPCError) {
	out, err := json.Marshal(struct {
		ResultType        string                     `json:"resultType"`
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      json.RawMessage            `json:"capabilities"`
		Instructions      string                     `json:"instructions,omitempty"`
		TTL               int                        `json:"ttlMs"`
		CacheScope        string                     `json:"cacheScope"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}{"complete", s.modern, s.capabilities(), s.opts.Instructions, 0, "public",
		map[string]json.RawMessage{"io.modelcontextprotocol/serverInfo": s.info}})
	if err != nil {
		return nil, rpcError(runtime.CodeInternalError, "encoding the server/discover result: "+err.Error())
	}
	return out, nil
}

// complete returns body, a JSON object's members without braces, as a
// result: with "resultType":"complete" first in the 2026-07-28 era.
func (s *Server) complete(req *request, body []byte) json.RawMessage {
	out := []byte{'{'}
	if req.modern {
		out = append(out, `"resultType":"complete"`...)
		if len(body) > 0 {
			out = append(out, ',')
		}
	}
	out = append(out, body...)
	return append(out, '}')
}

// listTools answers tools/list with every tool on one page.
func (s *Server) listTools(req *request) (json.RawMessage, *runtime.RPCError) {
	listed := make([]json.RawMessage, len(s.order))
	for i, t := range s.order {
		listed[i] = t.listed
	}
	return s.listing(req, "tools", listed)
}

// listing answers a list request with one page holding listed under key.
// The server never hands out a cursor, so a request with one has a bad
// cursor.
func (s *Server) listing(req *request, key string, listed []json.RawMessage) (json.RawMessage, *runtime.RPCError) {
	if req.p.Cursor != nil {
		return nil, rpcError(runtime.CodeInvalidParams, fmt.Sprintf("%s: invalid cursor %q", req.method, *req.p.Cursor))
	}
	b := append([]byte{'"'}, key...)
	b = append(b, `":[`...)
	for i, l := range listed {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, l...)
	}
	b = append(b, ']')
	return s.complete(req, s.cacheable(req, b)), nil
}

// cacheable appends to the members of a result the cache members of the
// 2026-07-28 era: stale at once, the same for every client.
func (s *Server) cacheable(req *request, body []byte) []byte {
	if req.modern {
		body = append(body, `,"ttlMs":0,"cacheScope":"public"`...)
	}
	return body
}

// callTool answers tools/call: it checks the arguments, runs the handler and
// checks its structured result.
func (s *Server) callTool(ctx context.Context, req *request) (json.RawMessage, *runtime.RPCError) {
	t := s.tools[req.p.Name]
	if t == nil {
		return nil, UnknownToolError(req.p.Name)
	}
	args := bytes.TrimSpace(req.p.Arguments)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return nil, rpcError(runtime.CodeInvalidParams, "tools/call: the arguments of tool "+t.name+" are not an object")
	}
	if err := t.input.Validate(args); err != nil {
		var ve *runtime.ValidationError
		if errors.As(err, &ve) && req.version >= validationErrorsAreResults {
			return s.encodeResult(req, t, errorResult(err))
		}
		return nil, rpcError(runtime.CodeInvalidParams, err.Error())
	}
	res, err := run(ctx, t, args)
	var rpc *runtime.RPCError
	switch {
	case errors.As(err, &rpc):
		return nil, rpc
	case err != nil:
		res = errorResult(err)
	case res == nil:
		res = &runtime.Result{}
	}
	if !res.IsError && t.output != nil {
		if len(res.StructuredContent) == 0 {
			return nil, rpcError(runtime.CodeInternalError, "tool "+t.name+" returned no structured content, which its output schema requires")
		}
		if err := t.output.Validate(res.StructuredContent); err != nil {
			var ve *runtime.ValidationError
			if errors.As(err, &ve) {
				err = fmt.Errorf("the structured result of tool %s does not satisfy its output schema at %s: %s", t.name, pointer(ve.Pointer), ve.Reason)
			}
			return nil, rpcError(runtime.CodeInternalError, err.Error())
		}
	}
	return s.encodeResult(req, t, res)
}

// run calls the tool's handler, turning a panic into an error.
func run(ctx context.Context, t *tool, args json.RawMessage) (res *runtime.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("tool %s panicked: %v", t.name, v)
		}
	}()
	return t.handle(ctx, args)
}

// errorResult is a result whose isError flag is set, saying err.
func errorResult(err error) *runtime.Result {
	return &runtime.Result{IsError: true, Content: []runtime.Content{{Type: runtime.ContentText, Text: err.Error()}}}
}

// encodeResult encodes a tools/call result.
func (s *Server) encodeResult(req *request, t *tool, res *runtime.Result) (json.RawMessage, *runtime.RPCError) {
	r := *res
	if r.Content == nil {
		r.Content = []runtime.Content{}
	}
	body, err := json.Marshal(&r)
	if err != nil {
		return nil, rpcError(runtime.CodeInternalError, "encoding the result of tool "+t.name+": "+err.Error())
	}
	return s.complete(req, body[1:len(body)-1]), nil
}

// pointer spells a JSON pointer for a message.
func pointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// response encodes the response to the request id: result, or e when it is
// not nil. A nil id is written as null.
func response(id json.RawMessage, result json.RawMessage, e *runtime.RPCError) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	if len(id) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	if e == nil {
		b = append(b, `,"result":`...)
		b = append(b, result...)
		return append(b, '}')
	}
	eb, err := json.Marshal(e)
	if err != nil {
		eb, _ = json.Marshal(rpcError(runtime.CodeInternalError, "encoding an error: "+err.Error()))
	}
	b = append(b, `,"error":`...)
	b = append(b, eb...)
	return append(b, '}')
}

// notification handles a notification on a connection: notifications/
// cancelled ends the request it names; the others need nothing.
func (c *conn) notification(m *message) {
	if m.Method != "notifications/cancelled" {
		return
	}
	p, err := decodeParams(m)
	if err != nil || len(p.RequestID) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.inflight[idKey(p.RequestID)]; f != nil {
		f.cancelled = true
		f.cancel()
	}
}

// idKey is the key of a request id in conn.inflight.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}
