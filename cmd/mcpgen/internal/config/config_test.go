package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	const text = `# Servers this repository generates clients for.
servers:
  everything:
    snapshot: tools/everything.json
    command: [npx, -y, "@modelcontextprotocol/server-everything", stdio]
    timeout: 30s
  homeassistant:
    snapshot: /abs/ha.json
    url: https://staging.example.com/api/mcp
    bearer_env: STAGING_TOKEN
    protocol_version: "2025-06-18"
    headers:
      X-Tenant: ci
      X-Trace: "on"
  legacy:
    snapshot: tools/legacy.json
    out: gen/legacy-tools
    package: legacy
    overrides:
      "HassSetVolume#/inputSchema/properties/volume_level":
        go_name: Volume
        go_type: int
      "a/b#/outputSchema/properties/x~1y": {go_name: XY}
    sse: http://127.0.0.1:8123/mcp_server/sse
    shared_types: false
    per_tool_types: [DeviceClass, "HassTurnOn#/inputSchema/properties/domain"]
`
	f, err := Parse(filepath.Join("repo", "mcpgen.yaml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Servers) != 3 {
		t.Fatalf("%d servers", len(f.Servers))
	}
	e, h, l := f.Servers[0], f.Servers[1], f.Servers[2]
	if e.Name != "everything" || e.Snapshot != filepath.Join("repo", "tools", "everything.json") ||
		strings.Join(e.Command, " ") != "npx -y @modelcontextprotocol/server-everything stdio" || e.Timeout != 30*time.Second || e.Line != 3 {
		t.Errorf("everything = %+v", e)
	}
	if h.Snapshot != "/abs/ha.json" || h.URL != "https://staging.example.com/api/mcp" || h.BearerEnv != "STAGING_TOKEN" ||
		h.ProtocolVersion != "2025-06-18" || len(h.Headers) != 2 || h.Headers[0] != (Header{"X-Tenant", "ci"}) || h.Headers[1] != (Header{"X-Trace", "on"}) {
		t.Errorf("homeassistant = %+v", h)
	}
	if e.Out != "" || e.Package != "" || l.Out != filepath.Join("repo", "gen", "legacy-tools") || l.Package != "legacy" {
		t.Errorf("out and package: everything %q %q, legacy %q %q", e.Out, e.Package, l.Out, l.Package)
	}
	if len(l.Overrides) != 2 || l.Overrides[0] != (Override{Key: "HassSetVolume#/inputSchema/properties/volume_level", GoName: "Volume", GoType: "int", Line: 20}) ||
		l.Overrides[1] != (Override{Key: "a/b#/outputSchema/properties/x~1y", GoName: "XY", Line: 23}) {
		t.Errorf("overrides = %+v", l.Overrides)
	}
	if !l.NoSharedTypes || h.NoSharedTypes || len(l.PerToolTypes) != 2 || l.PerToolTypes[0] != (PerToolType{"DeviceClass", 26}) ||
		l.PerToolTypes[1].Name != "HassTurnOn#/inputSchema/properties/domain" {
		t.Errorf("shared types: legacy %v %+v, homeassistant %v", l.NoSharedTypes, l.PerToolTypes, h.NoSharedTypes)
	}
	if l.SSE != "http://127.0.0.1:8123/mcp_server/sse" {
		t.Errorf("legacy = %+v", l)
	}

	sel, err := f.Select([]string{"legacy", "everything"})
	if err != nil || len(sel) != 2 || sel[0] != e || sel[1] != l {
		t.Errorf("Select = %v, %v", sel, err)
	}
	if all, _ := f.Select(nil); len(all) != 3 {
		t.Errorf("Select(nil) gives %d servers", len(all))
	}
	if _, err := f.Select([]string{"weather"}); err == nil || !strings.Contains(err.Error(), `has no server "weather" (it has everything, homeassistant, legacy)`) {
		t.Errorf("Select(weather) error = %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "mcpgen.yaml: the file is empty"},
		{"not YAML", "servers: [a\n", "mcpgen.yaml: line 1"},
		{"list at the top", "- a\n", "mcpgen.yaml:1: want a mapping with a servers key"},
		{"unknown top key", "server:\n  a: {}\n", `mcpgen.yaml:1: unknown key "server" (want servers)`},
		{"no servers", "servers: {}\n", "mcpgen.yaml:1: servers must map each server's name to its entry"},
		{"entry not a mapping", "servers:\n  a: x\n", "mcpgen.yaml:2: server a: want a mapping"},
		{"unknown server key", "servers:\n  a:\n    snapshot: s.json\n    urll: http://x\n", `mcpgen.yaml:4: server a: unknown key "urll"`},
		{"no snapshot", "servers:\n  a:\n    url: http://x\n", "mcpgen.yaml:2: server a: snapshot is required"},
		{"two transports", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    sse: http://y\n", "mcpgen.yaml:2: server a: give only one of url, sse and command"},
		{"command not a list", "servers:\n  a:\n    snapshot: s.json\n    command: npx server\n", "mcpgen.yaml:4: server a: command must be a list"},
		{"snapshot not a string", "servers:\n  a:\n    snapshot: [x]\n    url: http://x\n", "mcpgen.yaml:3: server a: snapshot must be a string"},
		{"bad timeout", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    timeout: soon\n", `mcpgen.yaml:5: server a: timeout "soon" is not a duration`},
		{"headers not a mapping", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    headers: [a]\n", "mcpgen.yaml:5: server a: headers must map header names to values"},
		{"package without out", "servers:\n  a:\n    snapshot: s.json\n    package: a\n    url: http://x\n", "mcpgen.yaml:2: server a: package needs out"},
		{"out not a package name", "servers:\n  a:\n    snapshot: s.json\n    out: gen/my-tools\n    url: http://x\n", `mcpgen.yaml:2: server a: the directory name "my-tools" of out is not a Go identifier: set package`},
		{"bad package", "servers:\n  a:\n    snapshot: s.json\n    out: gen\n    package: type\n    url: http://x\n", `mcpgen.yaml:5: server a: package name "type" is not a Go identifier`},
		{"override not a mapping", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    overrides: [x]\n", "mcpgen.yaml:5: server a: overrides must map"},
		{"override key without pointer", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    overrides:\n      volume_level: {go_name: V}\n", `mcpgen.yaml:6: server a: override "volume_level": want the tool name, "#" and a JSON pointer`},
		{"override unknown key", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    overrides:\n      \"t#/inputSchema/properties/v\":\n        go_nam: V\n", `mcpgen.yaml:7: server a: override t#/inputSchema/properties/v: unknown key "go_nam"`},
		{"override empty", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    overrides:\n      \"t#/inputSchema/properties/v\": {}\n", "mcpgen.yaml:6: server a: override t#/inputSchema/properties/v sets neither go_name nor go_type"},
		{"override twice", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    overrides:\n      \"t#/p\": {go_name: V}\n      \"t#/p\": {go_name: W}\n", "mcpgen.yaml:7: server a: override t#/p is given twice (first at line 6)"},
		{"shared_types not a bool", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    shared_types: no-thanks\n", "mcpgen.yaml:5: server a: shared_types must be true or false"},
		{"per_tool_types not a list", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    per_tool_types: DeviceClass\n", "mcpgen.yaml:5: server a: per_tool_types must be a list"},
		{"listed twice", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n  a:\n    snapshot: t.json\n    url: http://y\n", "mcpgen.yaml:5: server a is listed twice (first at line 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("mcpgen.yaml", []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcpgen.yaml")
	if _, err := Load(path); err == nil || err.Error() != "reading config "+path+": no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte("servers:\n  a:\n    snapshot: s.json\n    url: http://x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil || f.Servers[0].Snapshot != filepath.Join(dir, "s.json") {
		t.Errorf("Load = %+v, %v", f, err)
	}
}

func TestParseLimits(t *testing.T) {
	// Nested aliases that would expand to 9^8 strings, had anything
	// expanded them.
	var bomb strings.Builder
	bomb.WriteString("servers:\n  a:\n    snapshot: s.json\n    url: http://x\n    headers:\n      l0: &l0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&bomb, "      l%d: &l%d [*l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d]\n", i, i, i-1)
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"alias bomb", bomb.String(), "mcpgen.yaml:6: anchors and aliases are not allowed (&l0)"},
		{"shared entry", "servers:\n  a: &a\n    snapshot: s.json\n    url: http://x\n  b: *a\n", "mcpgen.yaml:2: anchors and aliases are not allowed (&a)"},
		{"merge key", "servers:\n  a: &a\n    snapshot: s.json\n    url: http://x\n  b:\n    <<: *a\n    snapshot: t.json\n", "mcpgen.yaml:2: anchors and aliases are not allowed (&a)"},
		{"size", "servers:\n  a:\n    snapshot: s.json\n    url: http://x\n#" + strings.Repeat("x", maxFileBytes) + "\n", fmt.Sprintf("mcpgen.yaml: the file is larger than %d bytes", maxFileBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("mcpgen.yaml", []byte(tc.text))
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("load", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "mcpgen.yaml")
		if err := os.WriteFile(path, make([]byte, maxFileBytes+1), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil || err.Error() != fmt.Sprintf("%s: the file is larger than %d bytes", path, maxFileBytes) {
			t.Errorf("Load = %v", err)
		}
	})
}

// TestParseWithoutServer reads an entry with only snapshot and out, as
// generate needs: it has no server, which the commands that connect check.
func TestParseWithoutServer(t *testing.T) {
	f, err := Parse("mcpgen.yaml", []byte("servers:\n  homeassistant:\n    snapshot: s.json\n    out: ha\n  live:\n    snapshot: l.json\n    command: [srv]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Servers[0]; s.HasServer() || s.Package != "ha" {
		t.Errorf("entry without a server: HasServer %v, package %q", s.HasServer(), s.Package)
	}
	if !f.Servers[1].HasServer() {
		t.Error("entry with a command: HasServer false")
	}
}

// TestOutDotNamesThePackage reads a file, from a relative path, whose out
// is "." or "..": the package takes the name of the directory each stands
// for, as generate --out does, instead of failing on the name ".".
func TestOutDotNamesThePackage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mytools", "gen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for out, want := range map[string]string{".": "gen", "..": "mytools", "./": "gen"} {
		f, err := Parse("mcpgen.yaml", []byte("servers:\n  a:\n    snapshot: s.json\n    out: "+out+"\n"))
		if err != nil {
			t.Errorf("out %q: %v", out, err)
			continue
		}
		if got := f.Servers[0].Package; got != want {
			t.Errorf("out %q: package %q, want %q", out, got, want)
		}
	}
}
