package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratePackageFromRelativeOut names the package after the directory
// that --out stands for, also when it is "." or "..", and refuses a root,
// which has no name to give, naming --package.
func TestGeneratePackageFromRelativeOut(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "weather", "sub")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	snap, err := filepath.Abs(haSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tc := range []struct{ out, dir, pkg string }{
		{".", dir, "sub"},
		{"./", dir, "sub"},
		{"..", filepath.Dir(dir), "weather"},
		{"../", filepath.Dir(dir), "weather"},
	} {
		code, _, stderr := runCLI(t, "generate", "--snapshot", snap, "--out", tc.out, "--emit", "types")
		if code != 0 {
			t.Errorf("--out %s: exit %d: %s", tc.out, code, stderr)
			continue
		}
		data, err := os.ReadFile(filepath.Join(tc.dir, "types.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "\npackage "+tc.pkg+"\n") {
			t.Errorf("--out %s: types.go is not package %s", tc.out, tc.pkg)
		}
		if err := os.Remove(filepath.Join(tc.dir, "types.go")); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := runCLI(t, "generate", "--snapshot", snap, "--out", string(filepath.Separator), "--emit", "types")
	if code != 2 || !strings.Contains(stderr, "set --package") || !strings.Contains(stderr, "--out") {
		t.Errorf("--out /: exit %d, stderr %q; want exit 2 naming --out and --package", code, stderr)
	}
}
