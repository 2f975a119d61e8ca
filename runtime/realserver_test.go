package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestRealServersStdio runs the Session against real third-party servers
// over stdio: the official go-sdk server (modern, and pinned to the legacy
// handshake) and @modelcontextprotocol/server-everything (legacy).
func TestRealServersStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	sdk := testenv.SDKServer(t)
	everything := testenv.Everything(t, "stdio")
	for _, tc := range []struct {
		name        string
		cmd         []string
		pin         string
		wantVersion string
		echoArgs    string
	}{
		{"go-sdk", []string{sdk}, "", "2026-07-28", `{"message":"hi"}`},
		{"go-sdk pinned", []string{sdk}, "2025-11-25", "2025-11-25", `{"message":"hi"}`},
		{"everything", everything, "", "2025-11-25", `{"message":"hi"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testenv.Context(t)
			tr := NewCommandTransport(tc.cmd[0], tc.cmd[1:]...)
			s, err := Connect(ctx, tr, &Options{ProtocolVersion: tc.pin})
			if err != nil {
				t.Fatal(err)
			}
			defer closeAndCheckReaped(t, s)
			if s.ProtocolVersion() != tc.wantVersion {
				t.Errorf("ProtocolVersion = %s, want %s", s.ProtocolVersion(), tc.wantVersion)
			}
			if s.ServerInfo().Name == "" {
				t.Error("no server info")
			}
			tools, err := s.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) == 0 {
				t.Fatal("no tools")
			}
			res, err := s.CallTool(ctx, "echo", []byte(tc.echoArgs))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Text(), "hi") {
				t.Errorf("echo = %q", res.Text())
			}
			_, err = s.CallTool(ctx, "no-such-tool", nil)
			var re *RPCError
			var te *ToolError
			if !errors.As(err, &re) && !errors.As(err, &te) {
				t.Errorf("unknown tool: %v, want an RPC or tool error", err)
			}
		})
	}
}
