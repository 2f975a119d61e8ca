package otelmcp

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/internal/textcut"
	"github.com/mcpgen/mcpgen/runtime"
)

// Attribute keys of the conventions (see the package doc).
const (
	keyMethod          = attribute.Key("mcp.method.name")
	keyProtocolVersion = attribute.Key("mcp.protocol.version")
	keySessionID       = attribute.Key("mcp.session.id")
	keyResourceURI     = attribute.Key("mcp.resource.uri")
	keyRequestID       = attribute.Key("jsonrpc.request.id")
	keyToolName        = attribute.Key("gen_ai.tool.name")
	keyPromptName      = attribute.Key("gen_ai.prompt.name")
	keyOperationName   = attribute.Key("gen_ai.operation.name")
	keyToolArguments   = attribute.Key("gen_ai.tool.call.arguments")
	keyToolResult      = attribute.Key("gen_ai.tool.call.result")
	keyNetTransport    = attribute.Key("network.transport")
	keyServerAddress   = attribute.Key("server.address")
	keyServerPort      = attribute.Key("server.port")
	keyErrorType       = attribute.Key("error.type")
	keyRPCStatusCode   = attribute.Key("rpc.response.status_code")
)

// executeTool is the gen_ai.operation.name of a tool call.
const executeTool = "execute_tool"

// Middleware is a runtime.Middleware that traces and measures each request
// (see the package doc).
func (c *Client) Middleware(next runtime.Handler) runtime.Handler {
	return func(ctx context.Context, req *runtime.Request) (*runtime.Response, error) {
		c.watchSession(req.Session)
		if req.FromServer {
			return c.serve(ctx, req, next)
		}
		return c.send(ctx, req, next)
	}
}

// send traces one request the Session sends.
func (c *Client) send(ctx context.Context, req *runtime.Request, next runtime.Handler) (*runtime.Response, error) {
	target := bound(req.RedactedName())
	attrs := c.attributes(req, target)
	name := req.Method
	if (req.Method == "tools/call" || req.Method == "prompts/get") && target != "" {
		name += " " + target
	}
	if parent, ok := c.tasks.parent(req); ok {
		ctx = trace.ContextWithSpanContext(ctx, parent)
	}
	ctx, span := c.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	if c.content && req.Method == "tools/call" {
		span.SetAttributes(keyToolArguments.String(req.RedactedParams()))
	}
	c.inject(ctx, req)
	start := time.Now()
	returned := false
	defer func() {
		if !returned {
			// next panicked: the request failed, and the panic goes on
			// to the caller once the span has ended.
			span.SetAttributes(keyErrorType.String(otherError))
			span.SetStatus(codes.Error, "panic")
			c.opDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(append(c.metricAttributes(req, target), keyErrorType.String(otherError))...))
		}
	}()
	res, err := next(ctx, req)
	returned = true
	elapsed := time.Since(start).Seconds()
	metricAttrs := c.metricAttributes(req, target)
	if errType := c.record(span, res, err); errType != "" {
		metricAttrs = append(metricAttrs, keyErrorType.String(errType))
		var rpc *runtime.RPCError
		if errors.As(err, &rpc) && errType != otherError {
			metricAttrs = append(metricAttrs, keyRPCStatusCode.String(errType))
		}
	}
	c.opDuration.Record(ctx, elapsed, metric.WithAttributes(metricAttrs...))
	if err == nil {
		if c.content && req.Method == "tools/call" {
			span.SetAttributes(keyToolResult.String(res.RedactedResult()))
		}
		c.tasks.track(req, res, span.SpanContext())
	}
	return res, err
}

// serve traces one request of the server, as a child of the span in ctx:
// the call the request came with.
func (c *Client) serve(ctx context.Context, req *runtime.Request, next runtime.Handler) (*runtime.Response, error) {
	ctx, span := c.tracer.Start(ctx, req.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(c.attributes(req, bound(req.RedactedName()))...))
	defer span.End()
	returned := false
	defer func() {
		if !returned {
			// next panicked: the Session answers the server with an
			// error.
			span.SetAttributes(keyErrorType.String(otherError))
			span.SetStatus(codes.Error, "panic")
		}
	}()
	res, err := next(ctx, req)
	returned = true
	c.record(span, res, err)
	return res, err
}

// record sets the outcome of a request on span and returns its error.type,
// empty when it succeeded.
func (c *Client) record(span trace.Span, res *runtime.Response, err error) string {
	if err == nil {
		if res != nil && res.IsError {
			span.SetAttributes(keyErrorType.String("tool_error"))
			span.SetStatus(codes.Error, "tool_error")
			return "tool_error"
		}
		return ""
	}
	errType := errorType(err)
	span.SetAttributes(keyErrorType.String(errType))
	var rpc *runtime.RPCError
	if errors.As(err, &rpc) {
		span.SetAttributes(keyRPCStatusCode.String(strconv.Itoa(rpc.Code)))
	}
	span.SetStatus(codes.Error, errType)
	return errType
}

// otherError is the error.type of an error of no known class, as the
// semantic conventions name it.
const otherError = "_OTHER"

// errorType returns the low-cardinality error.type of a failed request:
// the code of an error response when it is one of knownCodes, whatever
// the server sends, the status of an HTTP response that carried no
// JSON-RPC message when it is a client or server error (400 to 599),
// "cancelled", "timeout", or otherError.
func errorType(err error) string {
	var rpc *runtime.RPCError
	var he *runtime.HTTPError
	switch {
	case errors.As(err, &rpc):
		if knownCodes[rpc.Code] {
			return strconv.Itoa(rpc.Code)
		}
	case errors.As(err, &he):
		if he.StatusCode >= 400 && he.StatusCode <= 599 {
			return strconv.Itoa(he.StatusCode)
		}
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return otherError
}

// knownCodes are the error codes error.type names: those of JSON-RPC and
// MCP, and the -32000 and -32001 the official SDKs send (connection
// closed, request timeout). Any other code a server sends is otherError,
// so that the metrics' attributes keep a bounded set of values.
var knownCodes = map[int]bool{
	runtime.CodeParseError:                      true,
	runtime.CodeInvalidRequest:                  true,
	runtime.CodeMethodNotFound:                  true,
	runtime.CodeInvalidParams:                   true,
	runtime.CodeInternalError:                   true,
	runtime.CodeResourceNotFound:                true,
	runtime.CodeURLElicitationRequired:          true,
	runtime.CodeHeaderMismatch:                  true,
	runtime.CodeMissingRequiredClientCapability: true,
	runtime.CodeUnsupportedProtocolVersion:      true,
	-32000:                                      true,
	-32001:                                      true,
}

// attributes returns the span attributes known when req starts; target is
// req's Name, redacted and bounded.
func (c *Client) attributes(req *runtime.Request, target string) []attribute.KeyValue {
	attrs := requestAttributes(req, target)
	if req.ID != "" {
		attrs = append(attrs, keyRequestID.String(bound(req.RedactedID())))
	}
	if req.Session != nil {
		if id := req.Session.SessionID(); id != "" {
			attrs = append(attrs, keySessionID.String(bound(id)))
		}
	}
	switch req.Method {
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if req.Name != "" {
			attrs = append(attrs, keyResourceURI.String(resourceURI(req.RedactedName())))
		}
	}
	return attrs
}

// metricAttributes returns the attributes of req that the operation
// duration carries too: none of high cardinality. target is req's Name,
// redacted and bounded; past maxMetricNames tool and prompt names, it is
// otherError.
func (c *Client) metricAttributes(req *runtime.Request, target string) []attribute.KeyValue {
	if req.Method == "tools/call" || req.Method == "prompts/get" {
		target = c.names.admit(req.Method, target)
	}
	return requestAttributes(req, target)
}

// requestAttributes returns the attributes of req that its span and its
// measurement share, naming target as its tool or prompt.
func requestAttributes(req *runtime.Request, target string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 12)
	attrs = append(attrs, keyMethod.String(req.Method))
	if req.ProtocolVersion != "" {
		attrs = append(attrs, keyProtocolVersion.String(req.ProtocolVersion))
	}
	switch {
	case target == "":
	case req.Method == "tools/call":
		attrs = append(attrs, keyToolName.String(target), keyOperationName.String(executeTool))
	case req.Method == "prompts/get":
		attrs = append(attrs, keyPromptName.String(target))
	}
	return append(attrs, sessionAttributes(req.Session)...)
}

// sessionAttributes returns the attributes of the connection.
func sessionAttributes(info *runtime.SessionInfo) []attribute.KeyValue {
	if info == nil {
		return nil
	}
	var attrs []attribute.KeyValue
	if info.Transport != "" {
		attrs = append(attrs, keyNetTransport.String(info.Transport))
	}
	if info.ServerAddress != "" {
		attrs = append(attrs, keyServerAddress.String(info.ServerAddress))
		if info.ServerPort != 0 {
			attrs = append(attrs, keyServerPort.Int(info.ServerPort))
		}
	}
	return attrs
}

// watchSession arranges, once per Session, for its duration to be recorded
// and its tasks forgotten when it ends.
func (c *Client) watchSession(info *runtime.SessionInfo) {
	if info == nil {
		return
	}
	if _, seen := c.sessions.LoadOrStore(info, struct{}{}); seen {
		return
	}
	info.AfterClose(func() {
		c.sessions.Delete(info)
		c.tasks.forget(info)
		attrs := sessionAttributes(info)
		if version := info.ProtocolVersion(); version != "" {
			attrs = append(attrs, keyProtocolVersion.String(version))
		}
		if err := info.Err(); err != nil && !errors.Is(err, runtime.ErrClosed) {
			attrs = append(attrs, keyErrorType.String(errorType(err)))
		}
		c.sessionDuration.Record(context.Background(), time.Since(info.Started).Seconds(), metric.WithAttributes(attrs...))
	})
}

// maxNameBytes bounds the text of the server's (a tool's or a prompt's
// name, a resource URI, an id) that a span carries, in its name or an
// attribute: a server can make any of them megabytes long.
const maxNameBytes = 512

// bound returns s cut to maxNameBytes at a character's end, when longer,
// ending with "…" and a hash of the whole, so that two long names that
// differ past the cut stay apart.
func bound(s string) string {
	if len(s) <= maxNameBytes {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	suffix := fmt.Sprintf("…%08x", h.Sum32())
	return textcut.Prefix(s, maxNameBytes-len(suffix)) + suffix
}

// resourceURI returns uri, redacted, as mcp.resource.uri carries it: with
// the password, or the user name that stands for a token, and the values
// of its query replaced as the traffic log replaces those of the server's
// URL, and bounded. A URI that does not parse is replaced whole.
func resourceURI(uri string) string {
	shown, _, ok := redact.URL(uri)
	if !ok {
		return redact.Mark
	}
	return bound(shown)
}

// maxMetricNames bounds the tool and prompt names a Client gives the
// operation duration: a server may list any number of tools, each of
// which would be a series of its own. The names measured first are kept;
// the others are measured as otherError.
const maxMetricNames = 1000

// nameSet holds the tool and prompt names a Client has measured.
type nameSet struct {
	mu    sync.Mutex
	names map[methodName]struct{}
}

// methodName is a tool's name under tools/call, or a prompt's under
// prompts/get.
type methodName struct{ method, name string }

// admit returns name if it is measured under its own name, and otherError
// otherwise.
func (n *nameSet) admit(method, name string) string {
	if name == "" {
		return ""
	}
	key := methodName{method, name}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.names[key]; ok {
		return name
	}
	if len(n.names) >= maxMetricNames {
		return otherError
	}
	if n.names == nil {
		n.names = make(map[methodName]struct{})
	}
	n.names[key] = struct{}{}
	return name
}
