package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestGenerateLiveReproducible generates from the go-sdk server over stdio
// with --write-snapshot, then from the saved snapshot: the two packages are
// byte for byte the same.
func TestGenerateLiveReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	dir := t.TempDir()
	live, fromFile := filepath.Join(dir, "live", "sdk"), filepath.Join(dir, "file", "sdk")
	saved := filepath.Join(dir, "tools", "sdk.json")
	code, _, stderr := runCLI(t, "generate", "--out", live, "--write-snapshot", saved, "--", testenv.SDKServer(t))
	if code != 0 {
		t.Fatalf("generate from the live server: status %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "wrote "+saved) || !strings.Contains(stderr, "wrote "+filepath.Join(live, "types.go")) {
		t.Errorf("stderr does not name the snapshot and the package: %q", stderr)
	}
	code, _, stderr = runCLI(t, "generate", "--out", fromFile, "--snapshot", saved)
	if code != 0 {
		t.Fatalf("generate from the saved snapshot: status %d: %s", code, stderr)
	}
	names := listDir(t, live)
	if got := listDir(t, fromFile); !slices.Equal(got, names) || len(names) == 0 {
		t.Fatalf("live wrote %v, the snapshot %v", names, got)
	}
	for _, name := range names {
		a, err := os.ReadFile(filepath.Join(live, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(fromFile, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between the live server and its saved snapshot", name)
		}
	}
	// The saved snapshot is the canonical one mcpgen snapshot writes.
	code, stdout, stderr := runCLI(t, "snapshot", "--", testenv.SDKServer(t))
	if code != 0 {
		t.Fatalf("snapshot: status %d: %s", code, stderr)
	}
	if data, err := os.ReadFile(saved); err != nil || string(data) != stdout {
		t.Errorf("--write-snapshot wrote something else than mcpgen snapshot (%v)", err)
	}
}

func TestGenerateUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"snapshot and url", []string{"--snapshot", haSnapshot, "--out", dir, "--url", "http://127.0.0.1:1/mcp"}, "either --snapshot or a live server"},
		{"snapshot and command", []string{"--snapshot", haSnapshot, "--out", dir, "--", "server"}, "either --snapshot or a live server"},
		{"snapshot and header", []string{"--snapshot", haSnapshot, "--out", dir, "--header", "X: y"}, "either --snapshot or a live server"},
		{"nothing to read", []string{"--out", dir}, "give --snapshot FILE, a live server"},
		{"write-snapshot with snapshot", []string{"--snapshot", haSnapshot, "--out", dir, "--write-snapshot", "x.json"}, "--write-snapshot saves a live server's tool list"},
		{"two servers", []string{"--out", dir, "--url", "http://127.0.0.1:1/mcp", "--", "server"}, "give only one of --url, --sse"},
		{"config and out", []string{"--config", "mcpgen.yaml", "--out", dir}, "--config takes each server's snapshot, out and package"},
		{"config and server command", []string{"--config", "mcpgen.yaml", "--", "server"}, "--config takes each server's snapshot, out and package"},
		{"server without config", []string{"--snapshot", haSnapshot, "--out", dir, "--server", "a"}, "--server picks servers of a --config file"},
		{"no out", []string{"--snapshot", haSnapshot}, "--out is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"generate"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("status %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestGenerateConfig generates two servers of an mcpgen.yaml into two
// packages, then only the one named by --server.
func TestGenerateConfig(t *testing.T) {
	dir := t.TempDir()
	ha, err := filepath.Abs(haSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join(testenv.RepoRoot(), "testdata", "sdkserver-tools.json")
	cfg := filepath.Join(dir, "mcpgen.yaml")
	text := "servers:\n" +
		"  homeassistant:\n" +
		"    snapshot: " + ha + "\n" +
		"    out: gen/ha\n" +
		"    package: homeassistant\n" +
		"    url: http://127.0.0.1:1/mcp\n" +
		"    overrides:\n" +
		"      \"HassSetVolume#/inputSchema/properties/volume_level\":\n" +
		"        go_name: Volume\n" +
		"        go_type: int\n" +
		"  sdk:\n" +
		"    snapshot: " + sdk + "\n" +
		"    out: gen/sdktools\n" +
		"    command: [server]\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "generate", "--config", cfg, "--emit", "types,client")
	if code != 0 {
		t.Fatalf("generate --config: status %d: %s", code, stderr)
	}
	for _, p := range []struct{ dir, pkg string }{{"ha", "homeassistant"}, {"sdktools", "sdktools"}} {
		out := filepath.Join(dir, "gen", p.dir)
		if got := listDir(t, out); !slices.Equal(got, []string{"client.go", "schemas.go", "tools.jsonl", "types.go", "validate.go"}) {
			t.Errorf("%s holds %v", out, got)
		}
		data, err := os.ReadFile(filepath.Join(out, "types.go"))
		if err != nil || !strings.Contains(string(data), "\npackage "+p.pkg+"\n") {
			t.Errorf("%s/types.go is not package %s (%v)", out, p.pkg, err)
		}
	}
	haTypes, err := os.ReadFile(filepath.Join(dir, "gen", "ha", "types.go"))
	if err != nil || !strings.Contains(string(haTypes), "Volume *int `json:\"volume_level,omitempty\"`") {
		t.Errorf("the override of volume_level is not in the generated types (%v)", err)
	}
	if !strings.Contains(stderr, "server homeassistant: wrote "+filepath.Join(dir, "gen", "ha", "types.go")) {
		t.Errorf("stderr does not name the server: %q", stderr)
	}
	// Regenerating one server touches only that one, and nothing changed.
	code, _, stderr = runCLI(t, "generate", "--config", cfg, "--server", "sdk", "--emit", "types,client")
	if code != 0 || stderr != "" {
		t.Errorf("generate --config --server sdk: status %d, stderr %q", code, stderr)
	}
}

func TestGenerateConfigErrors(t *testing.T) {
	dir := t.TempDir()
	haAbs, err := filepath.Abs(haSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"no out", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n", "mcpgen.yaml:2: server a: out is required to generate it"},
		{"bad package", "servers:\n  a:\n    snapshot: s.json\n    out: gen/a\n    package: my-pkg\n    url: http://x\n", `mcpgen.yaml:5: server a: package name "my-pkg" is not a Go identifier`},
		{"package main", "servers:\n  a:\n    snapshot: s.json\n    out: gen/a\n    package: main\n", `mcpgen.yaml:5: server a: package name "main" makes a program`},
		{"out named main", "servers:\n  a:\n    snapshot: s.json\n    out: cmd/main\n", `mcpgen.yaml:2: server a: the directory name "main" of out cannot be the package's name: package name "main" makes a program`},
		{"override of no property", "servers:\n  a:\n    snapshot: " + haAbs + "\n    out: gen/a\n    url: http://x\n    overrides:\n      \"HassSetVolume#/inputSchema/properties/volume\": {go_name: V}\n",
			`mcpgen.yaml:7: override HassSetVolume#/inputSchema/properties/volume: tool "HassSetVolume" has no property at /inputSchema/properties/volume`},
		{"override type of a string", "servers:\n  a:\n    snapshot: " + haAbs + "\n    out: gen/a\n    url: http://x\n    overrides:\n      \"HassSetVolume#/inputSchema/properties/volume_level\": {go_type: int8}\n      \"HassTurnOn#/inputSchema/properties/name\": {go_type: int}\n",
			`mcpgen.yaml:8: override HassTurnOn#/inputSchema/properties/name: a Go type can only be given to an integer property, not to this string`},
		{"per-tool type of no type", "servers:\n  a:\n    snapshot: " + haAbs + "\n    out: gen/a\n    url: http://x\n    per_tool_types:\n      - DeviceClass\n      - DeviceKind\n",
			`mcpgen.yaml:8: per_tool_types: DeviceKind: no shared type has this name`},
		{"missing snapshot file", "servers:\n  a:\n    snapshot: missing.json\n    out: gen/a\n    url: http://x\n", "missing.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(dir, "mcpgen.yaml")
			if err := os.WriteFile(cfg, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCLI(t, "generate", "--config", cfg)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("status %d, stderr %q; want it to contain %q", code, stderr, tc.want)
			}
		})
	}
}

// TestGenerateConfigSharedTypes checks that shared_types: false and
// per_tool_types in mcpgen.yaml keep Home Assistant's types per tool.
func TestGenerateConfigSharedTypes(t *testing.T) {
	haAbs, err := filepath.Abs(haSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		setting      string
		want, absent []string
	}{
		{"", []string{"type DeviceClass string", "type Domain string"}, []string{"type HassMediaNextDeviceClass "}},
		{"    shared_types: false\n", []string{"type HassMediaNextDeviceClass string", "type HassSetVolumeDomain string"}, []string{"type DeviceClass ", "type Domain "}},
		{"    per_tool_types: [DeviceClass, \"HassSetVolume#/inputSchema/properties/domain\"]\n",
			[]string{"type HassMediaNextDeviceClass string", "type HassTurnOnDeviceClass string", "type HassSetVolumeDomain string", "type Domain string"}, []string{"type DeviceClass "}},
	} {
		dir := t.TempDir()
		cfg := filepath.Join(dir, "mcpgen.yaml")
		text := "servers:\n  a:\n    snapshot: " + haAbs + "\n    out: gen/a\n    url: http://x\n" + tc.setting
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runCLI(t, "generate", "--config", cfg, "--emit", "types"); code != 0 {
			t.Fatalf("%q: status %d: %s", tc.setting, code, stderr)
		}
		data, err := os.ReadFile(filepath.Join(dir, "gen", "a", "types.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(data), "\n"+w) {
				t.Errorf("%q: types.go has no %q", tc.setting, w)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(string(data), "\n"+a) {
				t.Errorf("%q: types.go has %q", tc.setting, a)
			}
		}
	}
}

// TestOverrideGoNameCollision: a go_name override that takes another
// property's name used to rename that property silently (name became
// Name_8d39), breaking code that used its field. It is an error naming the
// override's line, both when the other property comes after the overridden
// one and when it comes before.
func TestOverrideGoNameCollision(t *testing.T) {
	haAbs, err := filepath.Abs(haSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ prop, goName, other string }{
		{"volume_level", "Name", "name"},
		{"name", "DeviceClass", "device_class"},
	} {
		dir := t.TempDir()
		cfg := filepath.Join(dir, "mcpgen.yaml")
		text := "servers:\n  a:\n    snapshot: " + haAbs + "\n    out: gen/a\n    url: http://x\n    overrides:\n" +
			"      \"HassSetVolume#/inputSchema/properties/area\": {go_name: Region}\n" +
			"      \"HassSetVolume#/inputSchema/properties/" + tc.prop + "\": {go_name: " + tc.goName + "}\n"
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "generate", "--config", cfg)
		want := "mcpgen.yaml:8: override HassSetVolume#/inputSchema/properties/" + tc.prop + ": Go name " + tc.goName + " is the field name of property " + tc.other + " of HassSetVolumeArgs"
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("go_name %s for %s: status %d, stderr %q; want it to contain %q", tc.goName, tc.prop, code, stderr, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "gen", "a", "types.go")); err == nil {
			t.Errorf("go_name %s for %s: the package was generated anyway", tc.goName, tc.prop)
		}
	}
	// Swapping two names is no collision.
	cfg := filepath.Join(t.TempDir(), "mcpgen.yaml")
	text := "servers:\n  a:\n    snapshot: " + haAbs + "\n    out: gen/a\n    url: http://x\n    overrides:\n" +
		"      \"HassSetVolume#/inputSchema/properties/area\": {go_name: Floor}\n" +
		"      \"HassSetVolume#/inputSchema/properties/floor\": {go_name: Area}\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "generate", "--config", cfg); code != 0 {
		t.Errorf("swapped go_names: status %d, stderr %q", code, stderr)
	}
}
