package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffWithToolSelection compares two snapshots with a config entry that
// generates only some of the tools. The package keeps tool a and leaves out
// b, which shares a's enum: a's type is ADeviceClass while a alone uses it,
// and becomes DeviceClass once the added tool c shares it. Code that named
// ADeviceClass no longer compiles, so diff --config must mark GO_API,
// although with b in the package the type would have been DeviceClass all
// along.
func TestDiffWithToolSelection(t *testing.T) {
	dir := t.TempDir()
	tool := func(name string) string {
		return `{"name":"` + name + `","inputSchema":{"type":"object","properties":{"device_class":{"type":"array","items":{"type":"string","enum":["tv","speaker"]}}}}}`
	}
	old := writeSnapshot(t, dir, "old.json", "s", tool("a")+","+tool("b"))
	new := writeSnapshot(t, dir, "new.json", "s", tool("a")+","+tool("b")+","+tool("c"))
	cfg := filepath.Join(dir, "mcpgen.yaml")
	yaml := "servers:\n  s:\n    snapshot: old.json\n    out: s\n    tools:\n      exclude: [b]\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "diff", "--config", cfg, old, new)
	if code == 2 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "GO_API") || !strings.Contains(stdout, "ADeviceClass") {
		t.Errorf("the report does not mark the renamed type ADeviceClass GO_API:\n%s", stdout)
	}
}
