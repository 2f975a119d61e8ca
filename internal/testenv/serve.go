package testenv

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ServeEverything starts @modelcontextprotocol/server-everything over HTTP in
// mode "sse" or "streamableHttp" on a free loopback port, waits until it
// accepts connections, and returns its endpoint URL (".../sse" or ".../mcp").
// The server is stopped when the test ends.
func ServeEverything(t testing.TB, mode string) string {
	t.Helper()
	port := FreePort(t)
	argv := Everything(t, mode)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(Env(t), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting server-everything %s: %v", mode, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if testing.Verbose() {
				t.Logf("server-everything: %s", sc.Text())
			}
		}
	}()
	waitForPort(t, port, 20*time.Second)
	path := "/mcp"
	if mode == "sse" {
		path = "/sse"
	}
	return fmt.Sprintf("http://127.0.0.1:%d%s", port, path)
}

// ServeSDK starts internal/sdkserver over Streamable HTTP (stateless, or with
// sessions when stateful is set) and returns its endpoint URL. The server is
// stopped when the test ends.
func ServeSDK(t testing.TB, stateful bool) string {
	t.Helper()
	var args []string
	if stateful {
		args = append(args, "-stateful")
	}
	return ServeSDKArgs(t, args...)
}

// ServeSDKArgs is ServeSDK with more sdkserver flags, such as -input.
func ServeSDKArgs(t testing.TB, flags ...string) string {
	t.Helper()
	args := append([]string{"-http", "127.0.0.1:0"}, flags...)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, SDKServer(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sdkserver: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading sdkserver's URL: %v", err)
	}
	return strings.TrimSpace(line)
}

func waitForPort(t testing.TB, port int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no server listening on %s after %v", addr, limit)
}
