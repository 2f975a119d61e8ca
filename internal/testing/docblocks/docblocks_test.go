// Package docblocks holds the tests that keep the README and docs/ honest:
// a Go block that is a whole program is type-checked and vetted against the
// module, and every other block must parse as Go; the tests, Go files,
// relative links and package-qualified identifiers the pages name exist,
// and the //go:generate lines they show are the repository's own.
package docblocks

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A block is one fenced Go code block of a Markdown file.
type block struct {
	file string
	line int // of the block's first line of code
	code string
	// module is the folder of the nested module a program is checked in,
	// named by a "<!-- go module: DIR -->" line just before the block;
	// empty for the main module.
	module string
}

// moduleMarker names the nested module of the next block.
var moduleMarker = regexp.MustCompile(`^<!-- go module: (\S+) -->$`)

func (b block) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// goBlocks returns the ```go blocks of the Markdown text of file.
func goBlocks(file string, text []byte) []block {
	var out []block
	var cur *block
	var code []string
	var module string
	for i, line := range strings.Split(string(text), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && moduleMarker.MatchString(trimmed):
			module = moduleMarker.FindStringSubmatch(trimmed)[1]
			continue
		case cur == nil && trimmed == "```go":
			cur = &block{file: file, line: i + 2, module: module}
			code = nil
		case cur != nil && trimmed == "```":
			cur.code = strings.Join(code, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			code = append(code, line)
		}
		module = ""
	}
	return out
}

// elided matches the "{ ... }" with which a fragment leaves out a body.
var elided = regexp.MustCompile(`\{ \.\.\. \}`)

// parseFragment parses code as top-level declarations or, failing that, as
// the statements of a function body.
func parseFragment(code string) error {
	code = elided.ReplaceAllString(code, "{}")
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "fragment.go", "package p\n"+code, parser.SkipObjectResolution); err == nil {
		return nil
	}
	_, err := parser.ParseFile(fset, "fragment.go", "package p\nfunc _() {\n"+code+"\n}\n", parser.SkipObjectResolution)
	return err
}

// repoRoot returns the main module's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod)))
}

// docFiles are the Markdown files whose Go blocks are checked: the README
// and every page of docs/.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, pages...)
}

// TestDocGoBlocks checks every Go block of the README and of docs/.
func TestDocGoBlocks(t *testing.T) {
	root := repoRoot(t)
	programs := 0
	for _, path := range docFiles(t, root) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, b := range goBlocks(filepath.ToSlash(rel), text) {
			if strings.HasPrefix(b.code, "package ") {
				programs++
				vetProgram(t, root, b)
				continue
			}
			if err := parseFragment(b.code); err != nil {
				t.Errorf("%s: the Go block does not parse: %v", b, err)
			}
		}
	}
	if programs == 0 {
		t.Error("no Go block is a whole program: the README's first program should be one")
	}
}

// vetProgram type-checks and vets a whole program with the packages of
// its module (the main one, or the nested one the block names), in a
// folder of that module that package patterns skip.
func vetProgram(t *testing.T, root string, b block) {
	t.Helper()
	if b.module != "" {
		root = filepath.Join(root, filepath.FromSlash(b.module))
	}
	dir, err := os.MkdirTemp(root, "_docblock-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(b.code), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "vet", file)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("%s: the program does not compile or vet: %v\n%s", b, err, out.Bytes())
	}
}

// TestGoBlocksAndFragments checks the extraction and the fragment parser on
// made-up Markdown.
func TestGoBlocksAndFragments(t *testing.T) {
	md := "text\n```go\nx := 1\nif x > 0 { ... }\n```\n```sh\nmake test\n```\n<!-- go module: examples/x -->\n```go\ntype T struct{}\n```\n```go\nfunc (\n```\n"
	bs := goBlocks("a.md", []byte(md))
	if len(bs) != 3 || bs[0].line != 3 || bs[1].code != "type T struct{}\n" {
		t.Fatalf("blocks = %+v", bs)
	}
	if bs[0].module != "" || bs[1].module != "examples/x" || bs[2].module != "" {
		t.Errorf("modules = %q, %q, %q; want \"\", examples/x, \"\"", bs[0].module, bs[1].module, bs[2].module)
	}
	if err := parseFragment(bs[0].code); err != nil {
		t.Errorf("statements: %v", err)
	}
	if err := parseFragment(bs[1].code); err != nil {
		t.Errorf("declarations: %v", err)
	}
	if err := parseFragment(bs[2].code); err == nil {
		t.Error("a broken block parsed")
	}
}
