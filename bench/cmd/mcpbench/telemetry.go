package main

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	mcprt "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/otelmcp"
)

// discard is a span exporter that drops what it gets, so that the cost
// measured is the client's, not an exporter's.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// installTelemetry installs runtime/otelmcp in opts as a production setup
// would: every span sampled and batched to an exporter, both histograms
// recorded, the trace context propagated. stop flushes and ends it.
func installTelemetry(opts *mcprt.Options) (stop func(), err error) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(discard{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: tp, MeterProvider: mp,
		Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})})
	if err != nil {
		return nil, err
	}
	tel.Install(opts)
	return func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	}, nil
}
