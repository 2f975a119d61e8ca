package otelmcp

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/runtime"
)

// instrumentationName names the tracer and the meter.
const instrumentationName = "github.com/mcpgen/mcpgen/runtime/otelmcp"

// Options configure a Client. The zero value uses OpenTelemetry's global
// providers and propagator.
type Options struct {
	// TracerProvider makes the spans; otel.GetTracerProvider() when nil.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the histograms; otel.GetMeterProvider() when nil.
	MeterProvider metric.MeterProvider
	// Propagator injects the trace context into each request's
	// params._meta; otel.GetTextMapPropagator() when nil. Set it to
	// propagation.TraceContext{} and propagation.Baggage{} (composite) to
	// send traceparent, tracestate and baggage.
	Propagator propagation.TextMapPropagator
	// RecordContent records tool arguments and results on the spans, with
	// secrets redacted. They may hold personal data: leave it off unless
	// the traces are kept as carefully as the data.
	RecordContent bool
}

// A Client reports the Sessions it is installed in. It is safe for
// concurrent use by many Sessions.
type Client struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	content    bool

	opDuration      metric.Float64Histogram
	sessionDuration metric.Float64Histogram

	sessions sync.Map // *runtime.SessionInfo → struct{}, once measured
	tasks    taskSpans
	names    nameSet
}

// durationBuckets are the bucket boundaries, in seconds, that the MCP
// conventions advise (ExplicitBucketBoundaries) for
// mcp.client.operation.duration and mcp.client.session.duration: the same
// fourteen as http.client.connection.duration, up to five minutes.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// New returns a Client; opts may be nil.
func New(opts *Options) (*Client, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagator == nil {
		o.Propagator = otel.GetTextMapPropagator()
	}
	meter := o.MeterProvider.Meter(instrumentationName)
	op, err := meter.Float64Histogram("mcp.client.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return nil, err
	}
	sess, err := meter.Float64Histogram("mcp.client.session.duration",
		metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP session as observed on the MCP client."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return nil, err
	}
	return &Client{
		tracer:          o.TracerProvider.Tracer(instrumentationName),
		propagator:      o.Propagator,
		content:         o.RecordContent,
		opDuration:      op,
		sessionDuration: sess,
	}, nil
}

// Install adds c's Middleware to opts.Middleware and sets opts.ToolRunHook
// to c's.
func (c *Client) Install(opts *runtime.Options) {
	opts.Middleware = append(opts.Middleware, c.Middleware)
	opts.ToolRunHook = c.ToolRunHook
}

// metaCarrier injects the trace context into a request's params._meta.
type metaCarrier struct{ req *runtime.Request }

func (m metaCarrier) Get(string) string { return "" }
func (m metaCarrier) Set(key, value string) {
	m.req.SetMeta(key, value)
}
func (m metaCarrier) Keys() []string { return nil }

// inject puts the trace context of ctx into req's params._meta.
func (c *Client) inject(ctx context.Context, req *runtime.Request) {
	c.propagator.Inject(ctx, metaCarrier{req})
}
