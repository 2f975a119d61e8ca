package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestHTTPAgainstRealServers reaches @modelcontextprotocol/server-everything
// over Streamable HTTP and HTTP+SSE, and the go-sdk test server over
// stateless Streamable HTTP (which speaks 2026-07-28) and stateful
// Streamable HTTP (whose sessions make it a legacy server), each with its own
// transport and with auto-detection.
func TestHTTPAgainstRealServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	everythingHTTP := testenv.ServeEverything(t, "streamableHttp")
	everythingSSE := testenv.ServeEverything(t, "sse")
	sdkStateless := testenv.ServeSDK(t, false)
	sdkStateful := testenv.ServeSDK(t, true)
	tests := []struct {
		name       string
		transport  Transport
		wantModern bool
	}{
		{"everything streamable", StreamableHTTP(everythingHTTP, nil), false},
		{"everything streamable auto", HTTP(everythingHTTP, nil), false},
		{"everything sse", SSE(everythingSSE, nil), false},
		{"everything sse auto", HTTP(everythingSSE, nil), false},
		{"sdk stateless", StreamableHTTP(sdkStateless, nil), true},
		{"sdk stateful auto", HTTP(sdkStateful, nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testenv.Context(t)
			s, err := Connect(ctx, tt.transport, nil)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer s.Close()
			if isModern(s.ProtocolVersion()) != tt.wantModern {
				t.Errorf("negotiated %s", s.ProtocolVersion())
			}
			tools, err := s.ListTools(ctx)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			hasEcho := false
			for _, tool := range tools {
				hasEcho = hasEcho || tool.Name == "echo"
			}
			if !hasEcho {
				t.Fatalf("no echo among %d tools", len(tools))
			}
			res, err := s.CallTool(ctx, "echo", map[string]string{"message": "over http"})
			if err != nil {
				t.Fatalf("CallTool(echo): %v", err)
			}
			if !strings.Contains(res.Text(), "over http") {
				t.Errorf("echo returned %q", res.Text())
			}
			_, err = s.CallTool(ctx, "no-such-tool", nil)
			var rpc *RPCError
			var te *ToolError
			if !errors.As(err, &rpc) && !errors.As(err, &te) {
				t.Errorf("CallTool(no-such-tool) = %v, want an RPC or tool error", err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}
