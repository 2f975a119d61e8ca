package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ServeSDKExample starts one of the example servers of the TypeScript SDK
// (npm @modelcontextprotocol/sdk), such as "simpleStreamableHttp", on a free
// loopback port, waits until it accepts connections, and returns its
// endpoint URL (".../mcp"). The server is stopped when the test ends. A
// server that exits before it listens fails the test at once, with its
// output.
func ServeSDKExample(t testing.TB, name string) string {
	t.Helper()
	script := filepath.Join(RepoRoot(), "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", name+".js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("@modelcontextprotocol/sdk is not installed (%v): run make deps (npm ci) first", err)
	}
	node := Node(t)
	ports := serveOnFreePorts(t, "the SDK example "+name, 1, func(ports []int) *exec.Cmd {
		cmd := exec.Command(node, script)
		// Most examples read MCP_PORT, simpleTaskInteractive reads PORT.
		cmd.Env = append(Env(t), fmt.Sprintf("MCP_PORT=%d", ports[0]), fmt.Sprintf("PORT=%d", ports[0]))
		return cmd
	})
	return served(fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[0]))
}

// TSV1Client returns the command line that runs the TypeScript SDK v1 test
// client (internal/testing/testenv/tsv1client.mjs) with args: "stdio" and
// a server's command line, or "http" and an endpoint URL. The client
// answers the server's requests for input, calls the tool ask, gets the
// prompt greet and reads vault://k, and prints what it got as one JSON
// line.
func TSV1Client(t testing.TB, args ...string) []string {
	t.Helper()
	pkg := filepath.Join(RepoRoot(), "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(pkg); err != nil {
		t.Fatalf("@modelcontextprotocol/sdk is not installed (%v): run make deps (npm ci) first", err)
	}
	script := filepath.Join(RepoRoot(), "internal", "testing", "testenv", "tsv1client.mjs")
	return append([]string{Node(t), script}, args...)
}
