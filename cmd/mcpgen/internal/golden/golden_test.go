package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/cli"
	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/internal/testing/textdiff"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/anthropic"
	"github.com/mcpgen/mcpgen/runtime/openai"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of every case in testdata/golden")

// casesDir holds one folder per case, relative to the repository root,
// where the tests run.
const casesDir = "testdata/golden"

// caseFile is a case's case.yaml.
type caseFile struct {
	Snapshot  string   `yaml:"snapshot"`
	Flags     string   `yaml:"flags"`
	Package   string   `yaml:"package"`
	Providers []string `yaml:"providers"`
	Diff      string   `yaml:"diff"`
}

// goldenCase is one case folder, with the paths of its case.yaml made
// relative to the repository root.
type goldenCase struct {
	name, dir string
	// snapshot is the input; diff, when set, the snapshot to diff it
	// against.
	snapshot, diff string
	// pkg, when set, is the checked-in package that holds the generated
	// files under their own names, instead of <file>.golden in dir.
	pkg       string
	flags     []string
	providers []string
}

// output is one expected file of a case and the bytes it must hold.
type output struct {
	path string
	data []byte
}

// genFile is one file mcpgen generate wrote.
type genFile struct {
	name string
	data []byte
}

// providerOutputs builds the declarations each name of providers: pins,
// into <name>.json.
var providerOutputs = map[string]func(*testing.T, []runtime.Tool) []byte{
	"anthropic":     anthropicParams,
	"openai":        openaiDefinitions(false),
	"openai-strict": openaiDefinitions(true),
}

// diffFormats are the formats of mcpgen diff, each pinned in diff.<ext>.
var diffFormats = []struct{ format, ext string }{{"text", "txt"}, {"json", "json"}, {"markdown", "md"}}

// TestGolden runs every case of testdata/golden and compares its outputs
// with the expected files; with -update it rewrites them instead.
func TestGolden(t *testing.T) {
	t.Chdir(testenv.RepoRoot())
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			files, warnings := c.generate(t, t.TempDir())
			outs := c.outputs(t, files, warnings)
			for _, o := range outs {
				o.check(t)
			}
			c.checkStray(t, outs)
			// Generating again gives the same bytes.
			again, _ := c.generate(t, t.TempDir())
			if len(again) != len(files) {
				t.Fatalf("generating again wrote %d files, not %d", len(again), len(files))
			}
			for i := range files {
				if files[i].name != again[i].name || !bytes.Equal(files[i].data, again[i].data) {
					t.Errorf("%s: output is not deterministic", files[i].name)
				}
			}
		})
	}
}

// TestCompile writes the generated files of every case kept as .golden
// files into a package inside the module and runs go vet on them all,
// which type-checks them too. The checked-in packages of the other cases
// are vetted with the module.
func TestCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	t.Chdir(testenv.RepoRoot())
	// The packages must be inside the module to import its runtime; the go
	// command skips testdata directories in ./... patterns.
	parent := filepath.FromSlash("cmd/mcpgen/internal/golden/testdata")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(parent) // only if empty: it is not checked in
	root, err := os.MkdirTemp(parent, "compile-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	var pkgs []string
	for _, c := range loadCases(t) {
		if c.pkg != "" {
			continue
		}
		c.generate(t, root)
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join(root, c.name)))
	}
	cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
}

// loadCases reads every case folder of testdata/golden.
func loadCases(t *testing.T) []goldenCase {
	t.Helper()
	entries, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("%s: only case folders belong in %s", filepath.Join(casesDir, e.Name()), casesDir)
			continue
		}
		c, err := loadCase(filepath.Join(casesDir, e.Name()))
		if err != nil {
			t.Error(err)
			continue
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("%s holds no case", casesDir)
	}
	return cases
}

// loadCase reads the case in dir: its case.yaml, if it has one, and the
// defaults for the keys it leaves out.
func loadCase(dir string) (goldenCase, error) {
	cf := caseFile{Snapshot: "snapshot.json"}
	path := filepath.Join(dir, "case.yaml")
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&cf); err != nil && !errors.Is(err, io.EOF) {
			return goldenCase{}, fmt.Errorf("%s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return goldenCase{}, err
	}
	c := goldenCase{
		name:      filepath.Base(dir),
		dir:       dir,
		snapshot:  filepath.Join(dir, cf.Snapshot),
		flags:     strings.Fields(cf.Flags),
		providers: cf.Providers,
	}
	if cf.Package != "" {
		c.pkg = filepath.Join(dir, cf.Package)
	}
	if cf.Diff != "" {
		c.diff = filepath.Join(dir, cf.Diff)
	}
	for _, p := range c.providers {
		if _, ok := providerOutputs[p]; !ok {
			return goldenCase{}, fmt.Errorf("%s: unknown provider %q in providers (want anthropic, openai or openai-strict)", path, p)
		}
	}
	for _, in := range []string{c.snapshot, c.diff, c.pkg} {
		if in == "" {
			continue
		}
		if _, err := os.Stat(in); err != nil {
			return goldenCase{}, fmt.Errorf("%s: %w", dir, err)
		}
	}
	return c, nil
}

// generate runs mcpgen generate on the case's snapshot into a directory of
// parent named after the case (so the package takes the case's name unless
// its flags give --package) and returns the files written, sorted by name,
// and the warnings it printed.
func (c goldenCase) generate(t *testing.T, parent string) (files []genFile, warnings string) {
	t.Helper()
	out := filepath.Join(parent, c.name)
	args := append([]string{"generate", "--snapshot", c.snapshot, "--out", out}, c.flags...)
	var stdout, stderr bytes.Buffer
	if code := cli.Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("%s: mcpgen %s: exit status %d\n%s", c.dir, strings.Join(args, " "), code, stderr.String())
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, genFile{e.Name(), data})
	}
	var w strings.Builder
	for _, line := range strings.SplitAfter(stderr.String(), "\n") {
		if strings.HasPrefix(line, "mcpgen: warning: ") {
			w.WriteString(line)
		}
	}
	return files, w.String()
}

// outputs returns every expected file of the case with the bytes it must
// hold: the generated files, the warnings of generate, the provider
// declarations and the diff reports.
func (c goldenCase) outputs(t *testing.T, files []genFile, warnings string) []output {
	t.Helper()
	var outs []output
	if warnings != "" {
		outs = append(outs, output{filepath.Join(c.dir, "warnings.txt"), []byte(warnings)})
	}
	for _, f := range files {
		path := filepath.Join(c.dir, f.name+".golden")
		if c.pkg != "" {
			path = filepath.Join(c.pkg, f.name)
		}
		outs = append(outs, output{path, f.data})
	}
	if len(c.providers) > 0 {
		s, err := snapshot.ReadFile(c.snapshot)
		if err != nil {
			t.Fatal(err)
		}
		tools := s.RuntimeTools()
		for _, p := range c.providers {
			outs = append(outs, output{filepath.Join(c.dir, p+".json"), providerOutputs[p](t, tools)})
		}
	}
	if c.diff != "" {
		for _, f := range diffFormats {
			args := []string{"diff", "--format", f.format, c.snapshot, c.diff}
			var stdout, stderr bytes.Buffer
			// Exit status 1 says the diff has changes at ERR.
			if code := cli.Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 && code != 1 {
				t.Fatalf("%s: mcpgen %s: exit status %d\n%s", c.dir, strings.Join(args, " "), code, stderr.String())
			}
			outs = append(outs, output{filepath.Join(c.dir, "diff."+f.ext), stdout.Bytes()})
		}
	}
	return outs
}

// check compares the expected file with the output, or with -update
// rewrites it.
func (o output) check(t *testing.T) {
	t.Helper()
	want, err := os.ReadFile(o.path)
	if *update {
		if err == nil && bytes.Equal(want, o.data) {
			return
		}
		if err := os.WriteFile(o.path, o.data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", o.path)
		return
	}
	if err != nil {
		t.Errorf("%v (run go test ./cmd/mcpgen/internal/golden -update)", err)
		return
	}
	if !bytes.Equal(o.data, want) {
		t.Errorf("%s differs from the output (run go test ./cmd/mcpgen/internal/golden -update and review the diff):\n%s", o.path, textdiff.FirstLine(string(want), string(o.data)))
	}
}

// checkStray reports the files of the case folder that are neither its
// inputs nor its outputs, and the generated files of its checked-in
// package that are no longer generated. With -update it deletes the
// .golden files and generated files among them.
func (c goldenCase) checkStray(t *testing.T, outs []output) {
	t.Helper()
	known := []string{filepath.Join(c.dir, "case.yaml"), c.snapshot, c.diff}
	for _, o := range outs {
		known = append(known, o.path)
	}
	stale := func(path string, removable bool) {
		if *update && removable {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			t.Logf("removed %s", path)
			return
		}
		if removable {
			t.Errorf("%s is no longer generated (run go test ./cmd/mcpgen/internal/golden -update to delete it)", path)
		} else {
			t.Errorf("%s is neither an input nor an output of the case: delete it, or name it in case.yaml", path)
		}
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		path := filepath.Join(c.dir, e.Name())
		if !slices.Contains(known, path) {
			stale(path, !e.IsDir() && strings.HasSuffix(e.Name(), ".golden"))
		}
	}
	if c.pkg == "" {
		return
	}
	entries, err = os.ReadDir(c.pkg)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		path := filepath.Join(c.pkg, e.Name())
		if strings.HasSuffix(e.Name(), ".go") && !slices.Contains(known, path) && generator.IsGenerated(path) {
			stale(path, true)
		}
	}
}

// anthropicParams returns the Anthropic tool parameters of tools as
// indented JSON, after checking them against the Messages API's rules and
// that each declared name maps back to its tool.
func anthropicParams(t *testing.T, tools []runtime.Tool) []byte {
	t.Helper()
	params, names, err := anthropic.ToolParams(tools)
	if err != nil {
		t.Fatal(err)
	}
	got := indentJSON(t, params)
	for _, err := range providertest.CheckAnthropic(got) {
		t.Error(err)
	}
	for i, p := range params {
		if names[p.Name] != tools[i].Name {
			t.Errorf("%q maps back to %q, want %q", p.Name, names[p.Name], tools[i].Name)
		}
	}
	return got
}

// openaiDefinitions returns a function giving the OpenAI function
// definitions of tools as indented JSON, strict where strict asks and the
// schemas allow, after checking them against OpenAI's rules and that each
// declared name maps back to its tool.
func openaiDefinitions(strict bool) func(*testing.T, []runtime.Tool) []byte {
	return func(t *testing.T, tools []runtime.Tool) []byte {
		t.Helper()
		defs, names, err := openai.FunctionDefinitions(tools, &openai.Options{Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		got := indentJSON(t, defs)
		for _, err := range providertest.CheckOpenAI(got) {
			t.Error(err)
		}
		strictCount := 0
		for i, d := range defs {
			if names[d.Name] != tools[i].Name {
				t.Errorf("%q maps back to %q, want %q", d.Name, names[d.Name], tools[i].Name)
			}
			if d.Strict.Value {
				strictCount++
			}
		}
		if strict && strictCount == 0 {
			t.Error("no definition is strict")
		}
		return got
	}
}

// indentJSON marshals v with two-space indentation and a final newline.
func indentJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
