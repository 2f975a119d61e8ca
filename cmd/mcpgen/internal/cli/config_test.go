package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestConfigLive captures and checks two servers listed in an mcpgen.yaml:
// server-everything over stdio and the go-sdk server over Streamable HTTP.
func TestConfigLive(t *testing.T) {
	useEverything(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpgen.yaml")
	text := "servers:\n" +
		"  everything:\n" +
		"    snapshot: tools/everything.json\n" +
		"    command: [node_modules/.bin/mcp-server-everything, stdio]\n" +
		"  sdk:\n" +
		"    snapshot: tools/sdk.json\n" +
		"    url: " + testenv.ServeSDK(t, false) + "\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	everything := filepath.Join(dir, "tools", "everything.json")
	sdk := filepath.Join(dir, "tools", "sdk.json")

	code, _, stderr := runCLI(t, "snapshot", "--config", cfg)
	if code != 0 || !strings.Contains(stderr, "server everything: wrote "+everything) || !strings.Contains(stderr, "server sdk: wrote "+sdk) {
		t.Fatalf("snapshot --config: status %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "snapshot", "--config", cfg, "--server", "sdk")
	if code != 0 || !strings.Contains(stderr, "server sdk: "+sdk+" is up to date") || strings.Contains(stderr, "everything") {
		t.Fatalf("snapshot --config --server sdk: status %d, stderr %q", code, stderr)
	}

	code, stdout, stderr := runCLI(t, "check", "--config", cfg)
	if code != 0 || strings.Count(stdout, "No changes.") != 2 || !strings.Contains(stdout, "mcpgen check (server sdk) "+sdk) {
		t.Fatalf("check --config: status %d\n%s%s", code, stdout, stderr)
	}

	// The sdk snapshot lists a tool the server no longer has.
	editSnapshot(t, sdk, func(s *snapshot.Snapshot, tools map[string]map[string]any) {
		tools["retired"] = map[string]any{"name": "retired", "inputSchema": map[string]any{"type": "object"}}
	})
	code, stdout, stderr = runCLI(t, "check", "--config", cfg, "--format", "json")
	if code != 1 || !strings.Contains(stderr, "1 change(s) at ERR or above") {
		t.Errorf("check --config after an edit: status %d, stderr %q", code, stderr)
	}
	var reports []struct {
		Old     string
		Changes []struct{ Tool, Rule string }
	}
	if err := json.Unmarshal([]byte(stdout), &reports); err != nil {
		t.Fatalf("json reports: %v\n%s", err, stdout)
	}
	if len(reports) != 2 || reports[0].Old != everything || len(reports[0].Changes) != 0 ||
		reports[1].Old != sdk || len(reports[1].Changes) != 1 || reports[1].Changes[0].Rule != "tool-removed" {
		t.Errorf("json reports: %+v", reports)
	}
	code, _, _ = runCLI(t, "check", "--config", cfg, "--server", "everything")
	if code != 0 {
		t.Errorf("check --config --server everything: status %d", code)
	}

	// A server whose snapshot is missing is reported; the others are still
	// checked.
	if err := os.Remove(everything); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "check", "--config", cfg)
	if code != 2 || !strings.Contains(stderr, "server everything: reading snapshot "+everything+": no such file") ||
		!strings.Contains(stderr, "1 of 2 server(s) could not be checked") || !strings.Contains(stdout, "tool retired removed") {
		t.Errorf("check with a missing snapshot: status %d\n%s%s", code, stdout, stderr)
	}
}

func TestConfigUsage(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpgen.yaml")
	if err := os.WriteFile(cfg, []byte("servers:\n  a:\n    snapshot: a.json\n    url: http://127.0.0.1:1/mcp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("servers:\n  a:\n    snapshot: a.json\n    url: ftp://x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"snapshot", "--config", cfg, "--url", "http://x"}, "--config takes the servers from the file"},
		{[]string{"check", "--config", cfg, "--", "server"}, "--config takes the servers from the file"},
		{[]string{"snapshot", "--config", cfg, "--out", "x.json"}, "drop --out"},
		{[]string{"check", "--config", cfg, "--snapshot", "x.json"}, "drop --snapshot"},
		{[]string{"check", "--server", "a", "--snapshot", "x.json", "--", "srv"}, "--server picks servers of a --config file"},
		{[]string{"check", "--config", cfg, "--server", "b"}, `has no server "b" (it has a)`},
		{[]string{"check", "--config", filepath.Join(dir, "missing.yaml")}, "reading config " + filepath.Join(dir, "missing.yaml") + ": no such file or directory"},
		{[]string{"snapshot", "--config", bad}, bad + ":2: server a: --url wants an http:// or https:// URL"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// A server that cannot be reached fails the capture with status 1.
	code, _, stderr := runCLI(t, "snapshot", "--config", cfg, "--timeout", "5s")
	if code != 1 || !strings.Contains(stderr, "mcpgen: server a: connecting to http://127.0.0.1:1/mcp") || !strings.Contains(stderr, "1 of 1 server(s) could not be captured") {
		t.Errorf("unreachable server: status %d, stderr %q", code, stderr)
	}
}

// TestConfigUnsetBearerEnvStopsOnlyItsServer: one server's unset bearer_env
// variable used to stop every server of the file with status 2 before any
// was captured, although a failing server should not stop the others; and
// check --format json left failed servers out of its array.
func TestConfigUnsetBearerEnvStopsOnlyItsServer(t *testing.T) {
	const unset = "MCPGEN_TEST_UNSET_TOKEN"
	t.Setenv(unset, "")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpgen.yaml")
	text := "servers:\n" +
		"  staging:\n" +
		"    snapshot: tools/staging.json\n" +
		"    url: http://127.0.0.1:1/mcp\n" +
		"    bearer_env: " + unset + "\n" +
		"  sdk:\n" +
		"    snapshot: tools/sdk.json\n" +
		"    url: " + testenv.ServeSDK(t, false) + "\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join(dir, "tools", "sdk.json")

	code, _, stderr := runCLI(t, "snapshot", "--config", cfg)
	if code != 1 || !strings.Contains(stderr, "server sdk: wrote "+sdk) ||
		!strings.Contains(stderr, "server staging: --bearer-env "+unset+": the variable is unset or empty") ||
		!strings.Contains(stderr, "1 of 2 server(s) could not be captured") {
		t.Fatalf("snapshot --config: status %d, stderr %q", code, stderr)
	}

	code, stdout, stderr := runCLI(t, "check", "--config", cfg, "--format", "json")
	if code != 2 || !strings.Contains(stderr, "1 of 2 server(s) could not be checked") {
		t.Errorf("check --config: status %d, stderr %q", code, stderr)
	}
	var reports []struct {
		Old     string
		Error   string
		Changes []json.RawMessage
	}
	if err := json.Unmarshal([]byte(stdout), &reports); err != nil {
		t.Fatalf("json reports: %v\n%s", err, stdout)
	}
	if len(reports) != 2 ||
		reports[0].Old != filepath.Join(dir, "tools", "staging.json") || !strings.Contains(reports[0].Error, unset+": the variable is unset or empty") ||
		reports[1].Old != sdk || reports[1].Error != "" || len(reports[1].Changes) != 0 {
		t.Errorf("json reports: %+v\n%s", reports, stdout)
	}
}

// TestCheckConfigWithOverrides checks a server whose snapshot says a
// property had another type, with an override of that property in the
// config entry: the GO_API marker names the field generate writes for the
// override.
func TestCheckConfigWithOverrides(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpgen.yaml")
	text := "servers:\n" +
		"  sdk:\n" +
		"    snapshot: tools/sdk.json\n" +
		"    url: " + testenv.ServeSDK(t, false) + "\n" +
		"    overrides:\n" +
		"      \"echo#/inputSchema/properties/message\":\n" +
		"        go_name: Text\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "snapshot", "--config", cfg); code != 0 {
		t.Fatalf("snapshot --config: status %d, stderr %q", code, stderr)
	}
	// The snapshot says message was an integer; the server says string.
	editSnapshot(t, filepath.Join(dir, "tools", "sdk.json"), func(s *snapshot.Snapshot, tools map[string]map[string]any) {
		props := tools["echo"]["inputSchema"].(map[string]any)["properties"].(map[string]any)
		props["message"].(map[string]any)["type"] = "integer"
	})
	code, stdout, stderr := runCLI(t, "check", "--config", cfg)
	if code != 1 {
		t.Fatalf("check --config: status %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "field EchoArgs.Text") || strings.Contains(stdout, "EchoArgs.Message") {
		t.Errorf("the report does not name the overridden field EchoArgs.Text:\n%s", stdout)
	}
}

// TestConfigEntryWithoutServer uses an entry with only snapshot and out:
// generate and diff, which need no server, work from it; the commands that
// connect refuse it, naming the file, the line and the keys to add. generate
// refused it like the others.
func TestConfigEntryWithoutServer(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	writeSnapshot(t, dir, "s.json", "srv", toolA)
	cfg := filepath.Join(dir, "mcpgen.yaml")
	if err := os.WriteFile(cfg, []byte("servers:\n  homeassistant:\n    snapshot: s.json\n    out: ha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "generate", "--config", cfg)
	if code != 0 {
		t.Fatalf("generate --config: status %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ha", "client.go")); err != nil {
		t.Errorf("generate --config wrote no package: %v", err)
	}
	snap := filepath.Join(dir, "s.json")
	if code, _, stderr := runCLI(t, "diff", "--config", cfg, snap, snap); code != 0 {
		t.Errorf("diff --config: status %d, stderr %q", code, stderr)
	}
	for _, cmd := range []string{"snapshot", "check", "login"} {
		code, _, stderr := runCLI(t, cmd, "--config", cfg)
		want := cfg + ":2: server homeassistant: " + cmd + " connects to the server: give url, sse or command in its entry"
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%s --config: status %d, stderr %q; want %q", cmd, code, stderr, want)
		}
	}
	if code, stdout, stderr := runCLI(t, "logout", "--config", cfg); code != 0 || stdout != "" {
		t.Errorf("logout --config (nothing to sign out of): status %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestConfigSharedOutAbsolute refuses two servers whose out is one
// directory, one written relative to the file and one absolute, before
// either package is written: generating the second replaced the first.
func TestConfigSharedOutAbsolute(t *testing.T) {
	snap, err := filepath.Abs(haSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	text := "servers:\n" +
		"  a:\n" +
		"    snapshot: " + snap + "\n" +
		"    out: gen\n" +
		"  b:\n" +
		"    snapshot: " + snap + "\n" +
		"    out: " + filepath.Join(dir, "gen") + "\n"
	if err := os.WriteFile("mcpgen.yaml", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "generate", "--config", "mcpgen.yaml")
	if code != 2 || !strings.Contains(stderr, "mcpgen.yaml:5: server b: out "+filepath.Join(dir, "gen")+" is also the out of server a (line 2)") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming both servers", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "gen")); err == nil {
		t.Error("a refused config file generated a package")
	}
}
