package integration

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/everything"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestEverything reaches @modelcontextprotocol/server-everything over each
// transport and, through the generated typed client, lists its tools, calls
// echo, a tool with structured output, one that reports progress, and one
// that returns an isError result.
func TestEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	checkLeaks(t)
	stdio := testenv.Everything(t, "stdio")
	streamable := testenv.ServeEverything(t, "streamableHttp")
	sse := testenv.ServeEverything(t, "sse")
	transports := []struct {
		name      string
		transport runtime.Transport
		argv      []string // the server's command line, for stdio
	}{
		{"stdio", runtime.NewCommandTransport(stdio[0], stdio[1:]...), stdio},
		{"streamable-http", runtime.StreamableHTTP(streamable, nil), nil},
		{"streamable-http-auto", runtime.HTTP(streamable, nil), nil},
		{"sse", runtime.SSE(sse, nil), nil},
		{"sse-auto", runtime.HTTP(sse, nil), nil},
	}
	for _, tt := range transports {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testenv.Context(t)
			// FailOnDrift makes Connect list the tools and fail unless they
			// hash to the snapshot the client was generated from.
			s, err := runtime.Connect(ctx, tt.transport, &runtime.Options{SnapshotHash: everything.SnapshotHash, FailOnDrift: true})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer s.Close()
			if got := s.ProtocolVersion(); got != "2025-11-25" {
				t.Errorf("ProtocolVersion = %s, want 2025-11-25", got)
			}
			if got := s.ServerInfo().Name; got != "mcp-servers/everything" {
				t.Errorf("server name = %q", got)
			}
			if tt.argv != nil && len(children(t, argvIs(tt.argv))) != 1 {
				t.Fatalf("the stdio server is not among the child processes")
			}

			tools, err := s.ListTools(ctx)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			names := map[string]bool{}
			for _, tool := range tools {
				names[tool.Name] = true
			}
			for _, want := range []string{"echo", "get-structured-content", "trigger-long-running-operation", "get-resource-reference"} {
				if !names[want] {
					t.Errorf("tools/list lacks %s", want)
				}
			}

			c := everything.NewClient(s)
			res, err := c.Echo(ctx, everything.EchoArgs{Message: "hello over " + tt.name})
			if err != nil {
				t.Fatalf("Echo: %v", err)
			}
			if got, want := res.Text(), "Echo: hello over "+tt.name; got != want {
				t.Errorf("Echo = %q, want %q", got, want)
			}

			weather, err := c.GetStructuredContent(ctx, everything.GetStructuredContentArgs{Location: everything.GetStructuredContentLocationChicago})
			if err != nil {
				t.Fatalf("GetStructuredContent: %v", err)
			}
			if !reflect.DeepEqual(*weather, everything.GetStructuredContentResult{Temperature: 36, Conditions: "Light rain / drizzle", Humidity: 82}) {
				t.Errorf("GetStructuredContent = %+v", *weather)
			}

			var progress progressLog
			duration, steps := 0.2, 2.0
			res, err = c.TriggerLongRunningOperation(runtime.WithProgress(ctx, progress.add),
				everything.TriggerLongRunningOperationArgs{Duration: &duration, Steps: &steps})
			if err != nil {
				t.Fatalf("TriggerLongRunningOperation: %v", err)
			}
			if !strings.HasPrefix(res.Text(), "Long running operation completed.") {
				t.Errorf("TriggerLongRunningOperation = %q", res.Text())
			}
			got := progress.all()
			if len(got) == 0 {
				t.Errorf("no progress notification arrived")
			}
			for i, p := range got {
				if p.Progress != float64(i+1) || p.Total != steps {
					t.Errorf("progress %d = %+v, want %d of %g", i, p, i+1, steps)
				}
			}

			// resourceId 0 passes the schema (a number) but not the tool,
			// which throws: the server reports that as an isError result.
			zero := 0.0
			res, err = c.GetResourceReference(ctx, everything.GetResourceReferenceArgs{ResourceID: &zero})
			var te *runtime.ToolError
			if !errors.As(err, &te) {
				t.Fatalf("GetResourceReference(resourceId 0) = %v, %v; want a *runtime.ToolError", res, err)
			}
			if te.Tool != "get-resource-reference" || !te.Result.IsError || !strings.Contains(te.Result.Text(), "Invalid resourceId: 0") {
				t.Errorf("ToolError = %+v, text %q", te, te.Result.Text())
			}

			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if tt.argv != nil {
				if left := children(t, argvIs(tt.argv)); len(left) > 0 {
					t.Errorf("child processes %v left after Close", left)
				}
			}
		})
	}
}
