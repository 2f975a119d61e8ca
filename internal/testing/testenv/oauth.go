package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ServeOAuthExample starts the TypeScript SDK's example Streamable HTTP
// server (simpleStreamableHttp) with its demo OAuth authorization server, on
// free loopback ports; with strict, it accepts only tokens issued for its
// own resource (--oauth-strict). The demo authorization server approves
// every authorization request at once, keeps its clients and tokens in
// memory, and issues no refresh tokens. It returns the MCP endpoint, on
// localhost as the server names itself in its metadata. The servers are
// stopped when the test ends.
func ServeOAuthExample(t testing.TB, strict bool) string {
	t.Helper()
	script := filepath.Join(RepoRoot(), "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("@modelcontextprotocol/sdk is not installed (%v): run make deps (npm ci) first", err)
	}
	args := []string{script, "--oauth"}
	if strict {
		args = append(args, "--oauth-strict")
	}
	node := Node(t)
	ports := serveOnFreePorts(t, fmt.Sprintf("the SDK's example server %q", args[1:]), 2, func(ports []int) *exec.Cmd {
		cmd := exec.Command(node, args...)
		cmd.Env = append(Env(t), fmt.Sprintf("MCP_PORT=%d", ports[0]), fmt.Sprintf("MCP_AUTH_PORT=%d", ports[1]))
		return cmd
	})
	return served(fmt.Sprintf("http://localhost:%d/mcp", ports[0]))
}
