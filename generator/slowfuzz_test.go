//go:build slowfuzz

package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// maxCompiled bounds how many fuzz inputs TestCompileFuzzOutputs builds.
const maxCompiled = 60

// TestCompileFuzzOutputs generates a package from each seed of FuzzGenerate,
// each input of its checked-in corpus and a sample of the inputs the fuzzer
// found on this machine (in the Go build cache), and builds and vets them
// all: whatever the generator accepts must compile. Run it with
// go test -tags slowfuzz -run TestCompileFuzzOutputs ./generator.
func TestCompileFuzzOutputs(t *testing.T) {
	inputs := fuzzSeeds()
	inputs = append(inputs, hostileInputs()...)
	inputs = append(inputs, corpusInputs(t, "testdata/fuzz/FuzzGenerate")...)
	if out, err := exec.Command(goCommand(), "env", "GOCACHE").Output(); err == nil {
		cached := corpusInputs(t, filepath.Join(strings.TrimSpace(string(out)), "fuzz", "github.com/mcpgen/mcpgen/generator", "FuzzGenerate"))
		// Take an even sample of the cached inputs.
		if n := maxCompiled - len(inputs); n > 0 && len(cached) > n {
			step := len(cached) / n
			var sample [][3]string
			for i := 0; i < len(cached) && len(sample) < n; i += step {
				sample = append(sample, cached[i])
			}
			cached = sample
		}
		inputs = append(inputs, cached...)
	}
	root, err := os.MkdirTemp("testdata", "slowfuzz-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	var pkgs []string
	for i, in := range inputs {
		if len(pkgs) == maxCompiled {
			break
		}
		snap, ok := fuzzSnapshot(in[0], in[1], in[2])
		if !ok {
			continue
		}
		files, err := Generate(Config{From: snap, Options: Options{Package: "fuzz"}})
		if err != nil {
			continue
		}
		dir := filepath.Join(root, fmt.Sprintf("p%03d", i))
		if _, _, err := WriteFiles(dir, files); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(dir))
	}
	if len(pkgs) < 10 {
		t.Fatalf("only %d inputs generated a package: the test checks too little", len(pkgs))
	}
	cmd := exec.Command(goCommand(), append([]string{"vet"}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of %d generated packages: %v\n%s", len(pkgs), err, out)
	}
	t.Logf("built and vetted %d packages generated from fuzz inputs", len(pkgs))
}

func goCommand() string {
	goBin := filepath.Join(goruntime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		return "go"
	}
	return goBin
}

// corpusInputs reads the (name, description, schema) inputs of a fuzz corpus
// directory; a missing directory has none.
func corpusInputs(t *testing.T, dir string) [][3]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out [][3]string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		vals, err := parseCorpusFile(string(data))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if len(vals) == 3 {
			out = append(out, [3]string{vals[0], vals[1], vals[2]})
		}
	}
	return out
}

// parseCorpusFile reads the string values of a corpus file in the
// "go test fuzz v1" format.
func parseCorpusFile(data string) ([]string, error) {
	lines := strings.Split(strings.TrimSpace(data), "\n")
	if len(lines) == 0 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("not a fuzz corpus file")
	}
	var vals []string
	for _, line := range lines[1:] {
		expr, err := parser.ParseExpr(line)
		if err != nil {
			return nil, err
		}
		call, ok := expr.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return nil, fmt.Errorf("unexpected line %q", line)
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok {
			return nil, fmt.Errorf("unexpected value in %q", line)
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil, err
		}
		vals = append(vals, s)
	}
	return vals, nil
}

// hostileInputs are tools a hostile server could send that the generator
// accepts: enormous names, nesting just under the limit, recursion.
func hostileInputs() [][3]string {
	huge := strings.Repeat("x", 100_000)
	return [][3]string{
		{huge, huge, `{"type":"object","properties":{"` + huge + `":{"type":"string","enum":["` + huge + `","*/"]}}}`},
		{"deep", "", nested(63)},
		{"recursive", "", `{"type":"object","properties":{"node":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"},"kids":{"type":"array","items":{"$ref":"#/$defs/n"}}}}}}`},
	}
}

// TestGenerateAtToolLimit generates a package from exactly
// ir.DefaultMaxTools tools, the most a snapshot may list.
func TestGenerateAtToolLimit(t *testing.T) {
	files, err := generateText(toolList(ir.DefaultMaxTools, `{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer","minimum":0}},"required":["q"]}`), ir.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range goFiles(t, files) {
		if _, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, parser.SkipObjectResolution); err != nil {
			t.Fatalf("%s does not parse: %v", f.Name, err)
		}
	}
}
