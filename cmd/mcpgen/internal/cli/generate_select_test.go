package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// haSelected are the Home Assistant tools 'Hass*' minus 'HassCancel*'
// keeps: every tool but GetLiveContext, describe_doorbell and
// HassCancelAllTimers.
var haSelected = []string{
	"HassLightSet", "HassListAddItem", "HassMediaNext", "HassMediaPause", "HassMediaPlayerMute",
	"HassMediaPrevious", "HassMediaSearchAndPlay", "HassMediaUnpause", "HassSetVolume",
	"HassSetVolumeRelative", "HassTurnOff", "HassTurnOn",
}

// mapKeys returns the sorted string keys of the package-level map literal
// called name in the Go file at path.
func mapKeys(t *testing.T, path, name string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != name || len(vs.Values) != 1 {
			return true
		}
		found = true
		for _, el := range vs.Values[0].(*ast.CompositeLit).Elts {
			k, err := strconv.Unquote(el.(*ast.KeyValueExpr).Key.(*ast.BasicLit).Value)
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		return false
	})
	if !found {
		t.Fatalf("%s declares no %s", path, name)
	}
	slices.Sort(keys)
	return keys
}

// TestGenerateSelectedToolsCompile generates the Home Assistant package
// with --tools 'Hass*' --exclude-tools 'HassCancel*' and every part: the
// package declares exactly the matching tools to each provider, has client
// methods for them only, keeps the whole snapshot's hash, and compiles.
func TestGenerateSelectedToolsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	// The package must be inside the module to import its runtime; the go
	// command skips testdata directories in ./... patterns.
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove("testdata") // only if empty: it is not checked in
	root, err := os.MkdirTemp("testdata", "select-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	out := filepath.Join(root, "homeassistant")
	code, _, stderr := runCLI(t, "generate", "--snapshot", haSnapshot, "--out", out,
		"--emit", "types,client,gemini,anthropic,openai", "--tools", "Hass*", "--exclude-tools", "HassCancel*")
	if code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for file, name := range map[string]string{"gemini.go": "DeclaredNames", "anthropic.go": "AnthropicDeclaredNames", "openai.go": "OpenAIDeclaredNames"} {
		if got := mapKeys(t, filepath.Join(out, file), name); !slices.Equal(got, haSelected) {
			t.Errorf("%s declares %v, want %v", name, got, haSelected)
		}
	}
	client, err := os.ReadFile(filepath.Join(out, "client.go"))
	if err != nil {
		t.Fatal(err)
	}
	methods := regexp.MustCompile(`(?m)^func \(c \*Client\) (\w+)\(`).FindAllStringSubmatch(string(client), -1)
	var got []string
	for _, m := range methods {
		got = append(got, m[1])
	}
	slices.Sort(got)
	if !slices.Equal(got, haSelected) {
		t.Errorf("client methods %v, want %v", got, haSelected)
	}
	// SnapshotHash is the whole snapshot's, so a session against the
	// unchanged server sees no drift.
	hashRE := regexp.MustCompile(`const SnapshotHash = "[^"]+"`)
	sel, _ := os.ReadFile(filepath.Join(out, "schemas.go"))
	whole, _ := os.ReadFile(testenv.FromRoot("generated/homeassistant/schemas.go"))
	if h := hashRE.Find(sel); h == nil || string(h) != string(hashRE.Find(whole)) {
		t.Errorf("SnapshotHash %s, want the whole snapshot's %s", h, hashRE.Find(whole))
	}
	cmd := exec.Command("go", "vet", "./"+filepath.ToSlash(out))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet: %v\n%s", err, b)
	}
}

// TestGenerateToolsConfigMatchesFlags generates the same selection from
// tools: in mcpgen.yaml and from the flags: the files are byte for byte
// the same.
func TestGenerateToolsConfigMatchesFlags(t *testing.T) {
	dir := t.TempDir()
	snap, err := filepath.Abs(haSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	flagOut := filepath.Join(dir, "flags", "homeassistant")
	if code, _, stderr := runCLI(t, "generate", "--snapshot", snap, "--out", flagOut, "--tools", "Hass*", "--exclude-tools", "HassCancel*"); code != 0 {
		t.Fatalf("flags: exit %d: %s", code, stderr)
	}
	cfg := filepath.Join(dir, "mcpgen.yaml")
	yaml := "servers:\n  ha:\n    snapshot: " + snap + "\n    out: config/homeassistant\n    url: http://127.0.0.1:1/mcp\n" +
		"    tools:\n      include: [\"Hass*\"]\n      exclude:\n        - HassCancel*\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "generate", "--config", cfg); code != 0 {
		t.Fatalf("config: exit %d: %s", code, stderr)
	}
	names := listDir(t, flagOut)
	if got := listDir(t, filepath.Join(dir, "config", "homeassistant")); !slices.Equal(got, names) {
		t.Fatalf("config wrote %v, flags %v", got, names)
	}
	for _, n := range names {
		a, _ := os.ReadFile(filepath.Join(flagOut, n))
		b, _ := os.ReadFile(filepath.Join(dir, "config", "homeassistant", n))
		if string(a) != string(b) {
			t.Errorf("%s differs between the config and the flag form", n)
		}
	}
}

// TestGenerateToolPatternErrors checks that a malformed pattern names its
// flag or config line, that a pattern matching no tool is warned about
// (with its line in the config form), and that a selection keeping no tool
// fails.
func TestGenerateToolPatternErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p")
	snap, _ := filepath.Abs(haSnapshot)
	writeCfg := func(name, tools string) string {
		path := filepath.Join(dir, name)
		yaml := "servers:\n  ha:\n    snapshot: " + snap + "\n    out: p\n    command: [srv]\n    tools:\n" + tools
		if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bad := writeCfg("bad.yaml", "      include: [Hass*]\n      exclude: [\"[x\"]\n")
	unused := writeCfg("unused.yaml", "      include: [Hass*, Nope*]\n      exclude:\n        - Zzz\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--snapshot", snap, "--out", out, "--tools", "Hass*,[x"}, 2, `generate: --tools: include pattern "[x": syntax error in pattern`},
		{[]string{"--snapshot", snap, "--out", out, "--exclude-tools", "a\\"}, 2, `generate: --exclude-tools: exclude pattern "a\\": syntax error in pattern`},
		{[]string{"--config", bad}, 2, bad + `:8: server ha: tools: exclude pattern "[x": syntax error in pattern`},
		{[]string{"--config", unused, "--tools", "Hass*"}, 2, "with --config, give tools: in each server's entry"},
		{[]string{"--snapshot", snap, "--out", out, "--tools", "hass*"}, 1, "the patterns keep none of the 15 tools"},
		{[]string{"--snapshot", snap, "--out", out, "--tools", "Hass*,Nope*", "--exclude-tools", "Zzz"}, 0,
			"mcpgen: warning: include pattern \"Nope*\" matches no tool\nmcpgen: warning: exclude pattern \"Zzz\" matches no tool\n"},
		{[]string{"--config", unused}, 0,
			"mcpgen: warning: " + unused + ":7: server ha: include pattern \"Nope*\" matches no tool\nmcpgen: warning: " + unused + ":9: server ha: exclude pattern \"Zzz\" matches no tool\n"},
	} {
		code, _, stderr := runCLI(t, append([]string{"generate"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// writeManyTools writes a snapshot of n trivial tools, t000, t001, ...
func writeManyTools(t *testing.T, dir string, n int) string {
	t.Helper()
	var tools []string
	for i := range n {
		tools = append(tools, fmt.Sprintf(`{"name":"t%03d","description":"Tool %d.","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`, i, i))
	}
	return writeSnapshot(t, dir, fmt.Sprintf("many-%d.json", n), "many", strings.Join(tools, ","))
}

// TestGenerateWarnsOverProviderLimit warns when a provider part would
// declare more tools than one request to that provider may carry, names
// the documentation of the limit, and stops warning once the selection
// fits.
func TestGenerateWarnsOverProviderLimit(t *testing.T) {
	dir := t.TempDir()
	snap := writeManyTools(t, dir, 513)
	out := filepath.Join(dir, "p")
	code, _, stderr := runCLI(t, "generate", "--snapshot", snap, "--out", out, "--emit", "types,gemini,openai")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"mcpgen: warning: the gemini part declares 513 tools, more than the 512 one Gemini request may carry (https://pkg.go.dev/google.golang.org/genai@v1.77.0#Tool)",
		"mcpgen: warning: the openai part declares 513 tools, more than the 128 one OpenAI Chat Completions request may carry (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// 200 tools are within Gemini's limit, not within OpenAI's; a part not
	// emitted is not warned about.
	code, _, stderr = runCLI(t, "generate", "--snapshot", snap, "--out", out, "--emit", "types,gemini", "--tools", "t0*,t1*")
	if code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("200 tools, gemini only: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "generate", "--snapshot", snap, "--out", out, "--emit", "types,openai", "--tools", "t0*,t1*")
	if code != 0 || !strings.Contains(stderr, "the openai part declares 200 tools, more than the 128") || strings.Contains(stderr, "gemini part") {
		t.Errorf("200 tools, openai: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "generate", "--snapshot", snap, "--out", out, "--emit", "types,openai", "--tools", "t0*", "--exclude-tools", "t09*")
	if code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("90 tools, openai: exit %d, stderr %q", code, stderr)
	}
}

// TestCheckConfigToolsSelection checks a server whose package declares
// only some tools: a change to a tool it leaves out is still listed, as
// INFO, and does not fail the check; the same change to a selected tool
// keeps its severity.
func TestCheckConfigToolsSelection(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpgen.yaml")
	url := testenv.ServeSDK(t, false)
	write := func(include string) {
		text := "servers:\n  sdk:\n    snapshot: tools/sdk.json\n    url: " + url + "\n    tools:\n      include: [" + include + "]\n"
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("echo, add")
	if code, _, stderr := runCLI(t, "snapshot", "--config", cfg); code != 0 {
		t.Fatalf("snapshot --config: status %d, stderr %q", code, stderr)
	}
	// The snapshot lists a tool the server no longer has.
	editSnapshot(t, filepath.Join(dir, "tools", "sdk.json"), func(s *snapshot.Snapshot, tools map[string]map[string]any) {
		tools["retired"] = map[string]any{"name": "retired", "inputSchema": map[string]any{"type": "object"}}
	})
	code, stdout, stderr := runCLI(t, "check", "--config", cfg)
	if code != 0 || !strings.Contains(stdout, "INFO") || !strings.Contains(stdout, "tool retired removed") ||
		!strings.Contains(stdout, "leaves this tool out") || !strings.Contains(stdout, "changes to tools the generated package leaves out are reported as INFO") {
		t.Errorf("check, retired not selected: status %d\n%s%s", code, stdout, stderr)
	}
	write("echo, add, retired")
	code, stdout, stderr = runCLI(t, "check", "--config", cfg)
	if code != 1 || !strings.Contains(stdout, "ERR") || strings.Contains(stdout, "leaves this tool out") {
		t.Errorf("check, retired selected: status %d\n%s%s", code, stdout, stderr)
	}
}
