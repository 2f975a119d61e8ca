package otelmcp

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/runtime"
)

// Authorizer returns a runtime.Authorizer that does what a does and reports
// each sign-in (a's Refused: an authorization flow, a token refresh, a step
// up) as a "sign-in" span, a child of the request that needed it. The
// sign-in of the version probe that Connect sends runs in Connect's
// context, and is a child of the span there.
func (c *Client) Authorizer(a runtime.Authorizer) runtime.Authorizer {
	return &tracedAuthorizer{a: a, c: c}
}

type tracedAuthorizer struct {
	a runtime.Authorizer
	c *Client
}

func (t *tracedAuthorizer) Authorize(req *http.Request) error { return t.a.Authorize(req) }

func (t *tracedAuthorizer) Refused(ctx context.Context, req *http.Request, resp *http.Response) (bool, error) {
	ctx, span := t.c.tracer.Start(ctx, "sign-in", trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(keyServerAddress.String(req.URL.Hostname())))
	defer span.End()
	retry, err := t.a.Refused(ctx, req, resp)
	if err != nil {
		span.SetAttributes(keyErrorType.String(otherError))
		span.SetStatus(codes.Error, "sign-in failed")
	}
	return retry, err
}
