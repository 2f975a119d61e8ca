package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// tsv2Script returns the path of tsv2server.mjs, the test server built on
// the TypeScript SDK's v2 line (npm @modelcontextprotocol/server), after
// checking that the package is installed.
func tsv2Script(t testing.TB) string {
	t.Helper()
	pkg := filepath.Join(RepoRoot(), "node_modules", "@modelcontextprotocol", "server", "package.json")
	if _, err := os.Stat(pkg); err != nil {
		t.Fatalf("@modelcontextprotocol/server is not installed (%v): run make deps (npm ci) first", err)
	}
	return filepath.Join(RepoRoot(), "internal", "testing", "testenv", "tsv2server.mjs")
}

// TSV2Server returns the command line that runs the TypeScript SDK v2 test
// server (internal/testing/testenv/tsv2server.mjs) over stdio. It serves protocol
// revision 2026-07-28 with an input_required tool (deploy), task tools of
// the io.modelcontextprotocol/tasks extension (slow_sum, and approve, which
// asks for input with tasks/update) and tasks/get, tasks/update and
// tasks/cancel.
func TSV2Server(t testing.TB) []string {
	t.Helper()
	return []string{Node(t), tsv2Script(t), "stdio"}
}

// ServeTSV2 starts the server of TSV2Server over Streamable HTTP, on a
// loopback port it chooses itself, and returns its endpoint URL. The
// server is stopped when the test ends; one that exits before it serves
// fails the test at once, with its output.
func ServeTSV2(t testing.TB) string {
	t.Helper()
	_, url := startForURL(t, "tsv2server", exec.Command(Node(t), tsv2Script(t), "http"))
	return served(url)
}

// TSV2Client returns the command line that runs the TypeScript SDK v2 test
// client (internal/testing/testenv/tsv2client.mjs, pinned to 2026-07-28)
// with args, as TSV1Client does for the v1 line.
func TSV2Client(t testing.TB, args ...string) []string {
	t.Helper()
	pkg := filepath.Join(RepoRoot(), "node_modules", "@modelcontextprotocol", "client", "package.json")
	if _, err := os.Stat(pkg); err != nil {
		t.Fatalf("@modelcontextprotocol/client is not installed (%v): run make deps (npm ci) first", err)
	}
	script := filepath.Join(RepoRoot(), "internal", "testing", "testenv", "tsv2client.mjs")
	return append([]string{Node(t), script}, args...)
}
