package gitfile

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo creates a git repository with one commit holding sub/a.txt.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "sub/a.txt"},
		{"-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "one"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestRead(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	got, err := Read(ctx, dir, "HEAD", "sub/a.txt")
	if err != nil || string(got) != "first\n" {
		t.Fatalf("Read = %q, %v", got, err)
	}
	// A path relative to the directory, as git show allows.
	got, err = Read(ctx, filepath.Join(dir, "sub"), "HEAD", "./a.txt")
	if err != nil || string(got) != "first\n" {
		t.Fatalf("Read ./a.txt = %q, %v", got, err)
	}

	for _, tc := range []struct {
		dir, rev, path, want string
	}{
		{dir, "no-such-branch", "sub/a.txt", "reading no-such-branch:sub/a.txt: git revision no-such-branch does not exist"},
		{dir, "HEAD~5", "sub/a.txt", "git revision HEAD~5 does not exist"},
		{dir, "--output=x", "sub/a.txt", "git revision --output=x does not exist"},
		{dir, "HEAD", "sub/missing.txt", "reading HEAD:sub/missing.txt: sub/missing.txt does not exist in revision HEAD"},
		{dir, "HEAD", "sub", "sub is a tree in revision HEAD, not a file"},
		{t.TempDir(), "HEAD", "a.txt", "is not inside a git repository"},
	} {
		_, err := Read(ctx, tc.dir, tc.rev, tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%s:%s) error = %v, want it to contain %q", tc.rev, tc.path, err, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		spec, rev, path string
		ok              bool
	}{
		{"HEAD:snap.json", "HEAD", "snap.json", true},
		{"v1.2.0:testdata/a.json", "v1.2.0", "testdata/a.json", true},
		{"HEAD~1:a:b.json", "HEAD~1", "a:b.json", true},
		{"snap.json", "", "", false},
		{":snap.json", "", "", false},
		{"HEAD:", "", "", false},
	} {
		rev, path, ok := Split(tc.spec)
		if rev != tc.rev || path != tc.path || ok != tc.ok {
			t.Errorf("Split(%q) = %q, %q, %v", tc.spec, rev, path, ok)
		}
	}
}
