package testenv

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"testing"
)

// OnServe, when set, is called with the endpoint URL of each server the
// Serve functions start, before they return it. The kernel hands a closed
// server's port to a later one, so a test package whose code remembers
// endpoints (the runtime's era and GET-stream memory) sets it to forget what
// an earlier server on the same port left behind.
var OnServe func(url string)

// served passes url to OnServe and returns it.
func served(url string) string {
	if OnServe != nil {
		OnServe(url)
	}
	return url
}

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
// The server is stopped when the test ends. A server that exits before it
// listens fails the test at once, with its output.
func ServeEverything(t testing.TB, mode string) string {
	t.Helper()
	argv := Everything(t, mode)
	ports := serveOnFreePorts(t, "server-everything "+mode, 1, func(ports []int) *exec.Cmd {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(Env(t), fmt.Sprintf("PORT=%d", ports[0]))
		return cmd
	})
	path := "/mcp"
	if mode == "sse" {
		path = "/sse"
	}
	return served(fmt.Sprintf("http://127.0.0.1:%d%s", ports[0], path))
}

// ServeSDK starts internal/testing/sdkserver over Streamable HTTP (stateless, or with
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

// ServeSDKArgs is ServeSDK with more sdkserver flags, such as -input. The
// server binds a port of its own choosing and prints its URL; one that exits
// before it does fails the test at once, with its output.
func ServeSDKArgs(t testing.TB, flags ...string) string {
	t.Helper()
	args := append([]string{"-http", "127.0.0.1:0"}, flags...)
	_, url := startForURL(t, "sdkserver", exec.CommandContext(context.Background(), SDKServer(t), args...))
	return served(url)
}
