package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFilesFailureLeavesOutput checks that WriteFiles, which cannot
// replace one of the files (a directory has its name), fails before it
// replaces any: the previous output stays as it was.
func TestWriteFilesFailureLeavesOutput(t *testing.T) {
	dir := t.TempDir()
	old := []File{
		{Name: "client.go", Data: []byte(Header + "\n\npackage p // old client\n")},
		{Name: "types.go", Data: []byte(Header + "\n\npackage p // old types\n")},
	}
	if _, _, err := WriteFiles(dir, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "validate.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := []File{
		{Name: "client.go", Data: []byte(Header + "\n\npackage p // new client\n")},
		{Name: "types.go", Data: []byte(Header + "\n\npackage p // new types\n")},
		{Name: "validate.go", Data: []byte(Header + "\n\npackage p // new validate\n")},
	}
	_, _, err := WriteFiles(dir, files)
	if err == nil || !strings.Contains(err.Error(), "validate.go") {
		t.Errorf("error = %v, want one naming validate.go", err)
	}
	for _, f := range old {
		got, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(f.Data) {
			t.Errorf("%s = %q after the failed write, want the previous %q", f.Name, got, f.Data)
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, ".mcpgen-*")); len(entries) > 0 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}
