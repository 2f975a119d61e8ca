package otelmcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/otelmcp"
)

type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

// BenchmarkCall measures a tools/call to an in-process server, without
// and with tracing (every span sampled and batched, both histograms
// recorded, the trace context sent): the difference is the CPU tracing adds
// per call.
func BenchmarkCall(b *testing.B) {
	for _, traced := range []bool{false, true} {
		name := "plain"
		if traced {
			name = "traced"
		}
		b.Run(name, func(b *testing.B) {
			opts := &runtime.Options{}
			if traced {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
				defer tp.Shutdown(context.Background())
				mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
				defer mp.Shutdown(context.Background())
				tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: tp, MeterProvider: mp,
					Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})})
				if err != nil {
					b.Fatal(err)
				}
				tel.Install(opts)
			}
			srv := newMetaServer(true)
			srv.keepNoMeta = true
			s, err := runtime.Connect(context.Background(), srv, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			args := json.RawMessage(`{"message":"hi"}`)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.CallTool(ctx, "echo", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
