// Command otel-collector calls one tool of a stdio MCP server and exports
// the traces and metrics of the session to an OpenTelemetry collector over
// OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT, http://localhost:4318 by default).
//
//	go run ./examples/otel-collector -tool echo -args '{"message":"hi"}' -- npx -y @modelcontextprotocol/server-everything
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
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
	if err := run(context.Background(), *tool, json.RawMessage(*args), flag.Args()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, tool string, args json.RawMessage, command []string) error {
	res := resource.NewSchemaless()
	traces, err := otlptracehttp.New(ctx)
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(traces), sdktrace.WithResource(res))
	defer tp.Shutdown(context.Background())
	metrics, err := otlpmetrichttp.New(ctx)
	if err != nil {
		return err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics, sdkmetric.WithInterval(10*time.Second))), sdkmetric.WithResource(res))
	defer mp.Shutdown(context.Background())
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
	fmt.Println(out.Text())
	return nil
}
