package docblocks

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docTestName matches a test, benchmark or fuzz target named on its own in
// a code span of the docs, as in `TestLegacyGetFollowsFirstAnswer` or
// `BenchmarkCallToolStdio/legacy`.
var docTestName = regexp.MustCompile("`((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)(?:/[^`]*)?`")

// docPath matches a Go file of the repository named by its path in a code
// span, as in `runtime/session_readturn.go`.
var docPath = regexp.MustCompile("`([a-z][a-z0-9_.-]*(?:/[a-z0-9_.-]+)+\\.go)`")

// testFunc matches the declaration of a test, benchmark or fuzz target.
var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)\(`)

// TestDocsNameWhatExists checks that every test, benchmark and fuzz target
// the README and docs/ name is declared in the repository (or in a Go block
// of the docs), and that every Go file they name by its path exists, so
// that a rename leaves no reference behind.
func TestDocsNameWhatExists(t *testing.T) {
	root := repoRoot(t)
	declared := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			declared[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !declared["TestDocsNameWhatExists"] {
		t.Fatal("the walk found no test declarations, not even this test's")
	}
	for _, path := range docFiles(t, root) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		inDoc := map[string]bool{}
		for _, b := range goBlocks(rel, text) {
			for _, m := range testFunc.FindAllStringSubmatch(b.code, -1) {
				inDoc[m[1]] = true
			}
		}
		for i, line := range strings.Split(string(text), "\n") {
			for _, m := range docTestName.FindAllStringSubmatch(line, -1) {
				if !declared[m[1]] && !inDoc[m[1]] {
					t.Errorf("%s:%d: %s is declared nowhere in the repository", rel, i+1, m[1])
				}
			}
			for _, m := range docPath.FindAllStringSubmatch(line, -1) {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m[1]))); err != nil {
					t.Errorf("%s:%d: %s does not exist", rel, i+1, m[1])
				}
			}
		}
	}
}

// TestDocNamePatterns checks what the patterns above take from a line.
func TestDocNamePatterns(t *testing.T) {
	line := "see `TestA`, `BenchmarkB/legacy`, `go test -run TestC`, `runtime/x_y.go`, `x.go` and `testdata/fuzz/FuzzXxx/`"
	var names, paths []string
	for _, m := range docTestName.FindAllStringSubmatch(line, -1) {
		names = append(names, m[1])
	}
	for _, m := range docPath.FindAllStringSubmatch(line, -1) {
		paths = append(paths, m[1])
	}
	if strings.Join(names, " ") != "TestA BenchmarkB" {
		t.Errorf("names = %q, want TestA and BenchmarkB", names)
	}
	if strings.Join(paths, " ") != "runtime/x_y.go" {
		t.Errorf("paths = %q, want runtime/x_y.go", paths)
	}
}

// TestDocGoGenerateLinesExist checks that every //go:generate line in a Go
// block of the README and of docs/ is, word for word, a line of a Go file
// of the repository, as the pages present each as the one a package of
// this repository or of its example consumer runs.
func TestDocGoGenerateLinesExist(t *testing.T) {
	root := repoRoot(t)
	lines := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(line, "//go:generate ") {
				lines[strings.TrimSpace(line)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range docFiles(t, root) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, b := range goBlocks(filepath.ToSlash(rel), text) {
			for _, line := range strings.Split(b.code, "\n") {
				line = strings.TrimSpace(line)
				if !strings.HasPrefix(line, "//go:generate ") {
					continue
				}
				checked++
				if !lines[line] {
					t.Errorf("%s: no Go file of the repository has the line %s", b, line)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no //go:generate line was found in the docs")
	}
}
