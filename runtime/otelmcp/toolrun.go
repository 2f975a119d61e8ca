package otelmcp

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/runtime"
)

// ToolRunHook is a runtime.ToolRunHook that opens an execute_tool span for
// each tool call a model asks for; the call's tools/call span nests under
// it.
func (c *Client) ToolRunHook(ctx context.Context, tool string) (context.Context, func(runtime.ToolRunOutcome)) {
	tool = bound(tool)
	ctx, span := c.tracer.Start(ctx, executeTool+" "+tool, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(keyOperationName.String(executeTool), keyToolName.String(tool)))
	return ctx, func(out runtime.ToolRunOutcome) {
		switch {
		case out.IsError:
			span.SetAttributes(keyErrorType.String("tool_error"))
			span.SetStatus(codes.Error, "tool_error")
		case out.Error != "":
			span.SetAttributes(keyErrorType.String(otherError))
			span.SetStatus(codes.Error, "the tool call failed")
		}
		span.End()
	}
}
