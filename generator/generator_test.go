package generator

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/emit"
)

var update = flag.Bool("update", false, "rewrite golden files and checked-in generated packages")

// goldenCase is one generator input with its expected output: either golden
// files in testdata/golden/<name>, or a checked-in package directory.
type goldenCase struct {
	name     string
	snapshot string
	cfg      Config
	// dir holds the expected files; checked-in packages keep them as .go
	// files, golden cases as .golden files.
	dir     string
	inPlace bool
}

var goldenCases = []goldenCase{
	{name: "homeassistant", snapshot: "../testdata/homeassistant-tools-list.json", dir: "../generated/homeassistant", inPlace: true,
		cfg: Config{Package: "homeassistant"}},
	{name: "schematable", snapshot: "../testdata/schematable/tools.json", dir: "internal/schematable", inPlace: true,
		cfg: Config{Package: "schematable", Parts: []string{emit.PartTypes}}},
	{name: "hostile", snapshot: "../testdata/golden/hostile/snapshot.json", dir: "../testdata/golden/hostile",
		cfg: Config{Package: "hostile"}},
	{name: "outputs", snapshot: "../testdata/golden/outputs/snapshot.json", dir: "internal/outputs", inPlace: true,
		cfg: Config{Package: "outputs"}},
	{name: "geminijson", snapshot: "../testdata/homeassistant-tools-list.json", dir: "../testdata/golden/geminijson",
		cfg: Config{Package: "geminijson", Gemini: emit.GeminiJSON, Parts: []string{emit.PartGemini}}},
	{name: "providers", snapshot: "../internal/providertest/testdata/survey-tools.json", dir: "internal/providers", inPlace: true,
		cfg: Config{Package: "providers", Parts: []string{emit.PartTypes, emit.PartGemini, emit.PartAnthropic, emit.PartOpenAI}, OpenAIStrict: true}},
	{name: "nonstrict", snapshot: "../testdata/golden/providers/snapshot.json", dir: "../testdata/golden/providers",
		cfg: Config{Package: "providers", Parts: []string{emit.PartTypes, emit.PartAnthropic, emit.PartOpenAI}}},
}

func (c goldenCase) generate(t *testing.T) []emit.File {
	t.Helper()
	cfg := c.cfg
	cfg.Snapshot = c.snapshot
	files, err := Generate(cfg)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	return files
}

func (c goldenCase) goldenPath(name string) string {
	if c.inPlace {
		return filepath.Join(c.dir, name)
	}
	return filepath.Join(c.dir, name+".golden")
}

// TestGolden compares generated code with the golden files and the
// checked-in packages. Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			files := c.generate(t)
			for _, f := range files {
				path := c.goldenPath(f.Name)
				if *update {
					if err := os.WriteFile(path, f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./generator -update)", err)
				}
				if !bytes.Equal(f.Data, want) {
					t.Errorf("%s differs from the generated code (run go test ./generator -update):\n%s", path, firstDiff(string(want), string(f.Data)))
				}
			}
			// Generating again gives the same bytes.
			again := c.generate(t)
			for i := range files {
				if !bytes.Equal(files[i].Data, again[i].Data) {
					t.Errorf("%s: output is not deterministic", files[i].Name)
				}
			}
		})
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(no line differs)"
}

// TestCompile writes every golden case into a package inside the module and
// runs go vet on all of them, which type-checks them too. The checked-in
// packages are type-checked by go vet ./... and their own tests.
func TestCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	// The packages must be inside the module to import its runtime; the go
	// command skips testdata directories in ./... patterns.
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove("testdata") // only if empty: it is not checked in
	root, err := os.MkdirTemp("testdata", "compile-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	var pkgs []string
	for _, c := range goldenCases {
		if c.inPlace {
			continue
		}
		dir := filepath.Join(root, c.name)
		if _, _, err := WriteFiles(dir, c.generate(t)); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(dir))
	}
	cmd := exec.Command(goBin, append([]string{"vet"}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
}

// TestHostileTextStaysInCommentsAndStrings checks that text from hostile
// descriptions, titles and names appears only inside comments and string
// literals of the generated code.
func TestHostileTextStaysInCommentsAndStrings(t *testing.T) {
	c := goldenCases[slices.IndexFunc(goldenCases, func(c goldenCase) bool { return c.name == "hostile" })]
	files := c.generate(t)
	seenInComment, seenInString := false, false
	for _, f := range files {
		fset := token.NewFileSet()
		parsed, err := parser.ParseFile(fset, f.Name, f.Data, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s does not parse: %v", f.Name, err)
		}
		for _, d := range parsed.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && strings.HasPrefix(fd.Name.Name, "Evil") {
				t.Errorf("%s declares %s, taken from a description", f.Name, fd.Name.Name)
			}
		}
		if parsed.Name.Name != "hostile" {
			t.Errorf("%s has package %s", f.Name, parsed.Name.Name)
		}
		var s scanner.Scanner
		file := fset.AddFile(f.Name, fset.Base(), len(f.Data))
		s.Init(file, f.Data, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, scanner.ScanComments)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			switch tok {
			case token.COMMENT:
				if strings.Contains(lit, "EVILMARK") {
					seenInComment = true
				}
				if strings.ContainsAny(lit, "\u2028\u2029\r\x00\u202e\ufeff") {
					t.Errorf("%s: comment holds a line separator or control character: %q", fset.Position(pos), lit)
				}
				if strings.HasPrefix(lit, "/*") {
					t.Errorf("%s: block comment %q", fset.Position(pos), lit)
				}
			case token.STRING, token.CHAR:
				if strings.Contains(lit, "EVILMARK") {
					seenInString = true
				}
			default:
				if strings.Contains(lit, "EVILMARK") || strings.Contains(lit, "Evil") {
					t.Errorf("%s: %s token %q carries hostile text", fset.Position(pos), tok, lit)
				}
			}
		}
	}
	if !seenInComment || !seenInString {
		t.Errorf("the hostile text was not found (in comments: %v, in strings: %v): the test checks nothing", seenInComment, seenInString)
	}
}
