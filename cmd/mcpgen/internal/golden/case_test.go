package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaseFileMistakes checks that a mistake in a case.yaml is an error
// naming the file, rather than a case that silently checks less.
func TestCaseFileMistakes(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"misspelt key", "provider: [anthropic]\n", "field provider not found"},
		{"unknown provider", "providers: [mistral]\n", `unknown provider "mistral"`},
		{"missing snapshot", "snapshot: nowhere.json\n", "nowhere.json"},
		{"missing diff snapshot", "diff: new.json\n", "new.json"},
		{"missing package", "package: ../nowhere\n", "nowhere"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "mycase")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "snapshot.json"), []byte(`{"tools":[]}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "case.yaml"), []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := loadCase(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("error %v, want one naming %s and saying %q", err, dir, c.want)
			}
		})
	}
}

// TestCaseDefaults checks that a folder holding only snapshot.json is a
// case: generated with the default flags into <file>.golden files, with no
// other outputs.
func TestCaseDefaults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mycase")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "snapshot.json"), []byte(`{"tools":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := loadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.name != "mycase" || c.snapshot != filepath.Join(dir, "snapshot.json") || c.pkg != "" || c.diff != "" || len(c.flags) != 0 || len(c.providers) != 0 {
		t.Errorf("case = %+v", c)
	}
}
