package testenv

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
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
	mcpPort, authPort := FreePort(t), FreePort(t)
	for authPort == mcpPort {
		authPort = FreePort(t)
	}
	args := []string{script, "--oauth"}
	if strict {
		args = append(args, "--oauth-strict")
	}
	cmd := exec.Command(Node(t), args...)
	cmd.Env = append(Env(t), fmt.Sprintf("MCP_PORT=%d", mcpPort), fmt.Sprintf("MCP_AUTH_PORT=%d", authPort))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the SDK's example server %q: %v", args[1:], err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if testing.Verbose() {
				t.Logf("example server: %s", sc.Text())
			}
		}
	}()
	waitForPort(t, mcpPort, 20*time.Second)
	waitForPort(t, authPort, 20*time.Second)
	return fmt.Sprintf("http://localhost:%d/mcp", mcpPort)
}
