package otelmcp

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

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
	target := req.RedactedName()
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
	res, err := next(ctx, req)
	elapsed := time.Since(start).Seconds()
	metricAttrs := metricAttributes(req, target)
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
	ctx, span := c.tracer.Start(ctx, req.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(c.attributes(req, req.RedactedName())...))
	defer span.End()
	res, err := next(ctx, req)
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
// the server sends, "cancelled", "timeout", or otherError.
func errorType(err error) string {
	var rpc *runtime.RPCError
	switch {
	case errors.As(err, &rpc):
		if knownCodes[rpc.Code] {
			return strconv.Itoa(rpc.Code)
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
// req's Name, redacted.
func (c *Client) attributes(req *runtime.Request, target string) []attribute.KeyValue {
	attrs := metricAttributes(req, target)
	if req.ID != "" {
		attrs = append(attrs, keyRequestID.String(req.ID))
	}
	if req.Session != nil {
		if id := req.Session.SessionID(); id != "" {
			attrs = append(attrs, keySessionID.String(id))
		}
	}
	switch req.Method {
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if target != "" {
			attrs = append(attrs, keyResourceURI.String(target))
		}
	}
	return attrs
}

// metricAttributes returns the attributes of req that the operation
// duration carries too: none of high cardinality. target is req's Name,
// redacted.
func metricAttributes(req *runtime.Request, target string) []attribute.KeyValue {
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
		c.sessionDuration.Record(context.Background(), time.Since(info.Started).Seconds(), metric.WithAttributes(sessionAttributes(info)...))
	})
}
