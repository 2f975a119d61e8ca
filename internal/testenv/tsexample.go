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

// ServeSDKExample starts one of the example servers of the TypeScript SDK
// (npm @modelcontextprotocol/sdk), such as "simpleStreamableHttp", on a free
// loopback port, waits until it accepts connections, and returns its
// endpoint URL (".../mcp"). The server is stopped when the test ends.
func ServeSDKExample(t testing.TB, name string) string {
	t.Helper()
	script := filepath.Join(RepoRoot(), "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", name+".js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("@modelcontextprotocol/sdk is not installed (%v): run make deps (npm ci) first", err)
	}
	port := FreePort(t)
	cmd := exec.Command(Node(t), script)
	// Most examples read MCP_PORT, simpleTaskInteractive reads PORT.
	cmd.Env = append(Env(t), fmt.Sprintf("MCP_PORT=%d", port), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the SDK example %s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if testing.Verbose() {
				t.Logf("%s: %s", name, sc.Text())
			}
		}
	}()
	waitForPort(t, port, 20*time.Second)
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}
