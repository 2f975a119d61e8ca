package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// overrideAgreeTest is put beside the package generated with overrides: it
// uses the overridden field by its new name and type, and checks that the
// generated validator and the server's own schema agree on values around
// the bounds and beyond what the Go type holds.
const overrideAgreeTest = `package homeassistant

import (
	"encoding/json"
	"testing"
)

func TestOverriddenField(t *testing.T) {
	var v uint8 = 50
	data, err := json.Marshal(HassSetVolumeArgs{Volume: &v})
	if err != nil || string(data) != ` + "`" + `{"volume_level":50}` + "`" + ` {
		t.Fatalf("encoded %s, %v", data, err)
	}
	for _, raw := range []string{"0", "50", "100", "101", "255", "256", "300", "-1", "1.5", "\"50\""} {
		doc := []byte(` + "`" + `{"volume_level":` + "`" + ` + raw + "}")
		schemaErr := ValidateArguments("HassSetVolume", doc)
		var a HassSetVolumeArgs
		goErr := json.Unmarshal(doc, &a)
		if goErr == nil {
			goErr = a.Validate()
		}
		if (schemaErr == nil) != (goErr == nil) {
			t.Errorf("volume_level %s: the schema says %v, the Go code %v", raw, schemaErr, goErr)
		}
	}
}
`

// TestOverridesCompileAndAgree generates the Home Assistant package with
// volume_level renamed to Volume and typed uint8, and runs a test inside
// it that uses the field and compares both validators.
func TestOverridesCompileAndAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove("testdata") // only if empty: it is not checked in
	root, err := os.MkdirTemp("testdata", "override-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	dir := filepath.Join(root, "homeassistant")
	_, _, err = Run(Config{
		Snapshot: "../testdata/homeassistant-tools-list.json", Out: dir, Options: Options{Package: "homeassistant", Parts: []string{"types"},
			Overrides: map[string]ir.Override{"HassSetVolume#/inputSchema/properties/volume_level": {GoName: "Volume", GoType: "uint8"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	types, err := os.ReadFile(filepath.Join(dir, "types.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(types), "Volume *uint8 `json:\"volume_level,omitempty\"`") {
		t.Fatal("types.go does not declare Volume *uint8 for volume_level")
	}
	if err := os.WriteFile(filepath.Join(dir, "override_test.go"), []byte(overrideAgreeTest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "test", "-v", "-run", "TestOverriddenField", "./"+filepath.ToSlash(dir)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestOverriddenField") {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	// An override of a property the tool does not have names it.
	_, _, err = Run(Config{
		Snapshot: "../testdata/homeassistant-tools-list.json", Out: dir, Options: Options{Package: "homeassistant",
			Overrides: map[string]ir.Override{"HassSetVolume#/inputSchema/properties/volume": {GoName: "Volume"}}},
	})
	if err == nil || !strings.Contains(err.Error(), `tool "HassSetVolume" has no property at /inputSchema/properties/volume`) {
		t.Errorf("override of a missing property: %v", err)
	}
}
