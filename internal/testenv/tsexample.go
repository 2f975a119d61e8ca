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

// ServeTSExample starts the TypeScript SDK's example Streamable HTTP server
// (@modelcontextprotocol/sdk's examples/server/simpleStreamableHttp.js,
// legacy era with sessions; its collect-user-info tool elicits a form) on a
// free loopback port and returns its endpoint URL. The server is stopped
// when the test ends.
func ServeTSExample(t testing.TB) string {
	t.Helper()
	script := filepath.Join(RepoRoot(), "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("@modelcontextprotocol/sdk is not installed (%v): run make deps (npm ci) first", err)
	}
	port := FreePort(t)
	cmd := exec.Command(Node(t), script)
	cmd.Env = append(Env(t), fmt.Sprintf("MCP_PORT=%d", port))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the TypeScript SDK example server: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if testing.Verbose() {
				t.Logf("ts example server: %s", sc.Text())
			}
		}
	}()
	waitForPort(t, port, 20*time.Second)
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}
