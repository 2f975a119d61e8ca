package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratePinned generates the Home Assistant package in deferred mode
// from --pinned and from pinned: in mcpgen.yaml: both write the same files,
// schemas.go declares ToolSearch with the globs as given, and
// NewAnthropicToolset starts in deferred mode.
func TestGeneratePinned(t *testing.T) {
	dir := t.TempDir()
	snap, err := filepath.Abs(haSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	flagOut := filepath.Join(dir, "flags", "homeassistant")
	if code, _, stderr := runCLI(t, "generate", "--snapshot", snap, "--out", flagOut, "--emit", "types,anthropic,openai", "--pinned", "HassTurnOn, HassTurnOff,GetLive*"); code != 0 {
		t.Fatalf("flags: exit %d: %s", code, stderr)
	}
	cfg := filepath.Join(dir, "mcpgen.yaml")
	yaml := "servers:\n  ha:\n    snapshot: " + snap + "\n    out: config/homeassistant\n" +
		"    pinned: [HassTurnOn, HassTurnOff, \"GetLive*\"]\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "generate", "--config", cfg, "--emit", "types,anthropic"); code != 0 {
		t.Fatalf("config: exit %d: %s", code, stderr)
	}
	for _, n := range []string{"schemas.go", "anthropic.go", "types.go"} {
		a, err := os.ReadFile(filepath.Join(flagOut, n))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "config", "homeassistant", n))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between the config and the flag form", n)
		}
	}
	schemas, _ := os.ReadFile(filepath.Join(flagOut, "schemas.go"))
	if want := `return &runtime.ToolSearch{Pinned: []string{"HassTurnOn", "HassTurnOff", "GetLive*"}}`; !strings.Contains(string(schemas), want) {
		t.Errorf("schemas.go lacks %s", want)
	}
	anth, _ := os.ReadFile(filepath.Join(flagOut, "anthropic.go"))
	if want := `mcpanthropic.NewToolset(c, MCPTools(), &mcpanthropic.Options{Search: ToolSearch()})`; !strings.Contains(string(anth), want) {
		t.Errorf("anthropic.go lacks %s", want)
	}
	// Without --pinned the package has no ToolSearch, and its toolset
	// declares every tool.
	plain := filepath.Join(dir, "plain", "homeassistant")
	if code, _, stderr := runCLI(t, "generate", "--snapshot", snap, "--out", plain, "--emit", "types,anthropic"); code != 0 {
		t.Fatalf("plain: exit %d: %s", code, stderr)
	}
	schemas, _ = os.ReadFile(filepath.Join(plain, "schemas.go"))
	anth, _ = os.ReadFile(filepath.Join(plain, "anthropic.go"))
	if strings.Contains(string(schemas), "ToolSearch") || !strings.Contains(string(anth), "mcpanthropic.NewToolset(c, MCPTools(), nil)") {
		t.Errorf("without --pinned: schemas.go or anthropic.go is in deferred mode")
	}
}

// TestGeneratePinnedErrors checks that a malformed pinned glob names its
// flag or config line, that a glob matching no tool of the package is an
// error naming the glob (and its line in the config form), also when the
// tool it would match is left out by --tools, and that --pinned belongs to
// one package.
func TestGeneratePinnedErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p")
	snap, _ := filepath.Abs(haSnapshot)
	writeCfg := func(name, pinned string) string {
		path := filepath.Join(dir, name)
		yaml := "servers:\n  ha:\n    snapshot: " + snap + "\n    out: p\n" + pinned
		if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bad := writeCfg("bad.yaml", "    pinned:\n      - HassTurnOn\n      - \"[x\"\n")
	unmatched := writeCfg("unmatched.yaml", "    pinned:\n      - HassTurnOn\n      - Nope*\n")
	notList := writeCfg("notlist.yaml", "    pinned: HassTurnOn\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--snapshot", snap, "--out", out, "--pinned", "HassTurnOn,[x"}, 2, `generate: --pinned: pinned pattern "[x" is malformed: syntax error in pattern`},
		{[]string{"--snapshot", snap, "--out", out, "--pinned", "HassTurnOn,Nope*"}, 1, `pinned pattern "Nope*" matches none of the package's 15 tools`},
		{[]string{"--snapshot", snap, "--out", out, "--tools", "Hass*", "--pinned", "GetLiveContext"}, 1, `pinned pattern "GetLiveContext" matches none of the package's 13 tools`},
		{[]string{"--snapshot", snap, "--out", out, "--emit", "gemini", "--pinned", "HassTurnOn"}, 1, "pinned tools need the types part"},
		{[]string{"--config", bad}, 2, bad + `:7: server ha: pinned pattern "[x" is malformed: syntax error in pattern`},
		{[]string{"--config", notList}, 2, notList + ":5: server ha: pinned must be a list of tool name patterns"},
		{[]string{"--config", unmatched}, 1, unmatched + `:7: pinned pattern "Nope*" matches none of the package's 15 tools`},
		{[]string{"--config", unmatched, "--pinned", "HassTurnOn"}, 2, "with --config, give pinned: in each server's entry"},
	} {
		code, _, stderr := runCLI(t, append([]string{"generate"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestGeneratePinnedProviderLimit checks that in deferred mode the
// provider limits are checked against the pinned tools, which are all one
// request declares besides the found ones, not against the whole list.
func TestGeneratePinnedProviderLimit(t *testing.T) {
	dir := t.TempDir()
	snap := writeManyTools(t, dir, 513)
	out := filepath.Join(dir, "p")
	code, _, stderr := runCLI(t, "generate", "--snapshot", snap, "--out", out, "--emit", "types,gemini,openai", "--pinned", "t00*")
	if code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("10 pinned of 513: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "generate", "--snapshot", snap, "--out", out, "--emit", "types,openai", "--pinned", "t0*,t1*")
	if code != 0 || !strings.Contains(stderr, "the openai part pins 200 tools, more than the 128") {
		t.Errorf("200 pinned: exit %d, stderr %q", code, stderr)
	}
}

// deferredCheck is a test placed in a package generated with --pinned: its
// Anthropic toolset starts in deferred mode, declaring the pinned tools and
// the search function alone, and ToolSearch returns the pins.
const deferredCheck = `package homeassistant

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

type noCaller struct{}

func (noCaller) CallTool(context.Context, string, any) (*runtime.Result, error) { return &runtime.Result{}, nil }

func TestStartsDeferred(t *testing.T) {
	if got := ToolSearch().Pinned; !slices.Equal(got, []string{"HassTurnOn", "HassTurnOff"}) {
		t.Errorf("ToolSearch().Pinned = %v", got)
	}
	ts, err := NewAnthropicToolset(noCaller{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range ts.Tools() {
		names = append(names, *u.GetName())
	}
	if want := []string{"HassTurnOff", "HassTurnOn", "search_tools"}; !slices.Equal(names, want) {
		b, _ := json.Marshal(names)
		t.Errorf("the Anthropic toolset declares %s, want %v", b, want)
	}
	ots, err := NewOpenAIToolset(noCaller{})
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, u := range ots.Tools() {
		names = append(names, u.GetFunction().Name)
	}
	slices.Sort(names)
	if want := []string{"HassTurnOff", "HassTurnOn", "search_tools"}; !slices.Equal(names, want) {
		b, _ := json.Marshal(names)
		t.Errorf("the OpenAI toolset declares %s, want %v", b, want)
	}
}
`

// TestGeneratePinnedToolsetStartsDeferred generates the Home Assistant
// package with --pinned and runs a test inside it: the generated
// NewAnthropicToolset and NewOpenAIToolset declare the pinned tools and
// search_tools only.
func TestGeneratePinnedToolsetStartsDeferred(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a generated package")
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove("testdata") // only if empty: it is not checked in
	root, err := os.MkdirTemp("testdata", "pinned-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	out := filepath.Join(root, "homeassistant")
	if code, _, stderr := runCLI(t, "generate", "--snapshot", haSnapshot, "--out", out, "--emit", "types,anthropic,openai", "--pinned", "HassTurnOn,HassTurnOff"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(out, "deferred_test.go"), []byte(deferredCheck), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-count=1", "./"+filepath.ToSlash(out))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test: %v\n%s", err, b)
	}
}
