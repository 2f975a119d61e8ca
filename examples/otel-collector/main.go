// Command otel-collector calls one tool of a stdio MCP server and exports
// the traces and metrics of the session to an OpenTelemetry collector over
// OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT, http://localhost:4318 by default).
//
//	go run ./examples/otel-collector -tool echo -args '{"message":"hi"}' -- npx -y @modelcontextprotocol/server-everything
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/otelmcp"
)

func main() {
	tool := flag.String("tool", "echo", "the tool to call")
	args := flag.String("args", `{"message":"hi"}`, "its arguments, as a JSON object")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: otel-collector [-tool NAME] [-args JSON] -- COMMAND [ARG...]")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, *tool, json.RawMessage(*args), flag.Args()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, stdout io.Writer, tool string, args json.RawMessage, command []string) (err error) {
	res := resource.NewSchemaless()
	traces, err := otlptracehttp.New(ctx)
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(traces), sdktrace.WithResource(res))
	// What the providers still hold is exported when run returns; an export
	// the collector refused is an error of run, not telemetry lost in silence.
	defer func() { err = errors.Join(err, flush("traces", tp)) }()
	metrics, err := otlpmetrichttp.New(ctx)
	if err != nil {
		return err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics, sdkmetric.WithInterval(10*time.Second))), sdkmetric.WithResource(res))
	defer func() { err = errors.Join(err, flush("metrics", mp)) }()
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	// The trace context and baggage go to the server in params._meta.
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))

	tel, err := otelmcp.New(nil) // the global providers and propagator set above
	if err != nil {
		return err
	}
	opts := &runtime.Options{}
	tel.Install(opts)
	s, err := runtime.Connect(ctx, runtime.NewCommandTransport(command[0], command[1:]...), opts)
	if err != nil {
		return err
	}
	defer s.Close()

	ctx, span := tp.Tracer("otel-collector").Start(ctx, "run")
	defer span.End()
	out, err := s.CallTool(ctx, tool, args)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, out.Text())
	return nil
}

// provider is what the trace and the meter providers of the SDK share.
type provider interface {
	ForceFlush(context.Context) error
	Shutdown(context.Context) error
}

// flush exports what p still holds and shuts it down. The exporters give up
// on a collector that does not answer after their own timeout and retries.
// Only the first failure is reported: a shutdown after a failed flush tries
// the same export again.
func flush(what string, p provider) error {
	ctx := context.Background()
	err := p.ForceFlush(ctx)
	if serr := p.Shutdown(ctx); err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("exporting the %s: %w", what, err)
	}
	return nil
}
