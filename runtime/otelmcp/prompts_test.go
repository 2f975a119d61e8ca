package otelmcp_test

import (
	"context"
	"net/http/httptest"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/otelmcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// TestPromptSpansAndPoints: as the MCP conventions define, a prompts/get
// span is named "prompts/get {gen_ai.prompt.name}" and carries
// gen_ai.prompt.name, and so does its point of mcp.client.operation.duration;
// the point of a request that failed with a JSON-RPC error carries its
// rpc.response.status_code beside error.type.
func TestPromptSpansAndPoints(t *testing.T) {
	srv, err := server.New(nil, &server.Options{Prompts: []server.Prompt{{
		Prompt: runtime.Prompt{Name: "greet"},
		Handle: func(context.Context, map[string]string) (*runtime.GetPromptResult, error) {
			return &runtime.GetPromptResult{Messages: []runtime.PromptMessage{{Role: "user", Content: runtime.Content{Type: runtime.ContentText, Text: "hi"}}}}, nil
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	rec := newRecorder(t)
	reader := sdkmetric.NewManualReader()
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := &runtime.Options{}
	tel.Install(opts)
	s, err := runtime.Connect(ctx, runtime.HTTP(hs.URL, nil), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.GetPrompt(ctx, "greet", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetPrompt(ctx, "missing", nil); err == nil {
		t.Fatal("getting an unknown prompt succeeded")
	}
	wantAttrs(t, rec.span(t, "prompts/get greet"), map[string]string{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "greet", "gen_ai.tool.name": "-", "gen_ai.operation.name": "-"})
	wantAttrs(t, rec.span(t, "prompts/get missing"), map[string]string{"gen_ai.prompt.name": "missing", "error.type": "-32602", "rpc.response.status_code": "-32602"})
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	m := find(rm, "mcp.client.operation.duration")
	if m == nil {
		t.Fatal("no mcp.client.operation.duration")
	}
	want := map[string]string{"greet": "", "missing": "-32602"}
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		if v, _ := dp.Attributes.Value("mcp.method.name"); v.AsString() != "prompts/get" {
			continue
		}
		name, _ := dp.Attributes.Value("gen_ai.prompt.name")
		code, _ := dp.Attributes.Value("rpc.response.status_code")
		w, ok := want[name.AsString()]
		if !ok || code.AsString() != w {
			t.Errorf("prompts/get point: %v", dp.Attributes.ToSlice())
			continue
		}
		delete(want, name.AsString())
	}
	for name := range want {
		t.Errorf("no prompts/get point with gen_ai.prompt.name %q", name)
	}
}
