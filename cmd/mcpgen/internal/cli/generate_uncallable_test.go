package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// uncallableSnapshot lists netlify-coding-rules as @netlify/mcp 1.15.1
// does (a required property with "enum": [], which draft-07's meta-schema
// rejects) beside a good tool, and the same mistake under 2020-12.
var uncallableSnapshot = testenv.FromRoot("testdata/golden/uncallable/snapshot.json")

// TestGenerateLeavesOutToolsThatCanNeverBeCalled generates a tool list
// holding tools no call of which can succeed: they are left out with a
// warning naming each and saying why, and the good tool is generated.
// --strict, and strict: true in mcpgen.yaml, refuse the list instead.
func TestGenerateLeavesOutToolsThatCanNeverBeCalled(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "netlify")
	code, _, stderr := runCLI(t, "generate", "--snapshot", uncallableSnapshot, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`mcpgen: warning: tool "netlify-coding-rules" is left out of the package, since no call of it can succeed: /inputSchema/properties/creationType/enum: the JSON Schema meta-schema rejects it`,
		`mcpgen: warning: tool "unsatisfiable-2020" is left out of the package, since no call of it can succeed: /inputSchema/properties/mode/enum: enum lists no value, and the property "mode" is required`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	client, err := os.ReadFile(filepath.Join(out, "client.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(client), `"get-netlify-coding-context"`) || strings.Contains(string(client), `"netlify-coding-rules"`) || strings.Contains(string(client), `"unsatisfiable-2020"`) {
		t.Errorf("client.go does not call exactly the good tool:\n%s", client)
	}

	code, _, stderr = runCLI(t, "generate", "--strict", "--snapshot", uncallableSnapshot, "--out", filepath.Join(dir, "strict"))
	if code == 0 || !strings.Contains(stderr, `tool "netlify-coding-rules": /inputSchema/properties/creationType/enum: the JSON Schema meta-schema rejects it, so every call would fail`) {
		t.Errorf("--strict: exit %d, stderr %q, want the refusal naming the tool", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "strict")); err == nil {
		t.Error("--strict wrote a package")
	}

	abs, err := filepath.Abs(uncallableSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	for _, strict := range []bool{false, true} {
		cfg := filepath.Join(dir, "mcpgen.yaml")
		text := "servers:\n  netlify:\n    snapshot: " + abs + "\n    out: cfgout\n    command: [netlify-mcp]\n"
		if strict {
			text += "    strict: true\n"
		}
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr = runCLI(t, "generate", "--config", cfg)
		switch {
		case strict && (code == 0 || !strings.Contains(stderr, `server netlify: generating from `) || !strings.Contains(stderr, `tool "netlify-coding-rules"`)):
			t.Errorf("strict: true: exit %d, stderr %q, want the refusal", code, stderr)
		case !strict && (code != 0 || !strings.Contains(stderr, `server netlify: tool "netlify-coding-rules" is left out`)):
			t.Errorf("config: exit %d, stderr %q, want the tool left out", code, stderr)
		}
	}
}
