package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// corpusDir is the corpus, relative to this package.
var corpusDir = testenv.FromRoot("testdata/servers")

// minServers is the size the corpus must keep.
const minServers = 20

// server is one snapshot of the corpus, loaded and generated.
type server struct {
	file  string // base name of the snapshot
	pkg   string // Go package name
	snap  *snapshot.Snapshot
	ir    *ir.Package
	files []generator.File
}

var (
	corpusOnce    sync.Once
	corpusServers []*server
	corpusErr     error
	generateOnce  sync.Once
	generateErr   error
)

// loadCorpus reads every snapshot of the corpus, once per test binary.
func loadCorpus(t *testing.T) []*server {
	t.Helper()
	corpusOnce.Do(func() { corpusServers, corpusErr = readCorpus() })
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	if len(corpusServers) < minServers {
		t.Fatalf("the corpus has %d servers, want at least %d", len(corpusServers), minServers)
	}
	return corpusServers
}

func readCorpus() ([]*server, error) {
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*server
	for _, p := range paths {
		base := filepath.Base(p)
		if base == "package.json" || base == "package-lock.json" {
			continue
		}
		s := &server{file: base, pkg: packageName(base)}
		if s.snap, err = snapshot.ReadFile(p); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// generateCorpus reads the corpus and generates the package of every
// server, once per test binary, using every CPU.
func generateCorpus(t *testing.T) []*server {
	t.Helper()
	servers := loadCorpus(t)
	generateOnce.Do(func() {
		errs := make([]error, len(servers))
		next := make(chan int)
		var wg sync.WaitGroup
		for w := 0; w < goruntime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					errs[i] = servers[i].generate()
				}
			}()
		}
		for i := range servers {
			next <- i
		}
		close(next)
		wg.Wait()
		generateErr = errors.Join(errs...)
	})
	if generateErr != nil {
		t.Fatal(generateErr)
	}
	return servers
}

// generate builds the IR and the files of the server's package.
func (s *server) generate() error {
	var err error
	if s.ir, err = ir.Build(s.snap.Tools); err != nil {
		return fmt.Errorf("%s: %w", s.file, err)
	}
	if s.files, err = generator.Generate(generator.Config{From: s.snap, Options: generator.Options{Package: s.pkg}}); err != nil {
		return fmt.Errorf("%s: %w", s.file, err)
	}
	return nil
}

// packageName turns a snapshot file name into a Go package name.
func packageName(file string) string {
	var b strings.Builder
	for _, r := range strings.TrimSuffix(file, ".json") {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9' && b.Len() > 0:
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r - 'A' + 'a')
		}
	}
	return b.String()
}

// TestSnapshotsAreCanonical checks that every snapshot is in the canonical
// form mcpgen snapshot writes, so that a re-capture diffs cleanly, and that
// its header says where it came from.
func TestSnapshotsAreCanonical(t *testing.T) {
	for _, s := range loadCorpus(t) {
		data, err := os.ReadFile(filepath.Join(corpusDir, s.file))
		if err != nil {
			t.Fatal(err)
		}
		want, err := snapshot.Marshal(s.snap)
		if err != nil {
			t.Fatalf("%s: %v", s.file, err)
		}
		if !bytes.Equal(data, want) {
			t.Errorf("%s is not a canonical snapshot: re-capture it with testdata/servers/capture.sh", s.file)
		}
		if s.snap.Server.Name == "" || s.snap.Source == "" || s.snap.ProtocolVersion == "" {
			t.Errorf("%s: header lacks the server name, source or protocol version", s.file)
		}
		if len(s.snap.Tools) == 0 {
			t.Errorf("%s has no tools", s.file)
		}
	}
}

// TestRuntimeGeminiDeclarations checks the declarations the runtime makes
// at run time from the live tool list, in both forms, against the Gemini
// rules. The generated ones are checked by the agreement program.
func TestRuntimeGeminiDeclarations(t *testing.T) {
	for _, s := range loadCorpus(t) {
		for _, jsonForm := range []bool{false, true} {
			decls, names, err := gemini.Declarations(s.snap.RuntimeTools(), &gemini.DeclarationOptions{JSONSchema: jsonForm})
			if err != nil {
				t.Errorf("%s: %v", s.file, err)
				continue
			}
			if len(names) != len(s.snap.Tools) {
				t.Errorf("%s: %d declared names for %d tools", s.file, len(names), len(s.snap.Tools))
			}
			for _, e := range providertest.CheckGemini(decls) {
				t.Errorf("%s (json form %v): %v", s.file, jsonForm, e)
			}
		}
	}
}

// toolInstances are the instances of one tool the agreement program checks.
type toolInstances struct {
	Args   []json.RawMessage `json:"args"`
	Result []json.RawMessage `json:"result,omitempty"`
}

// serverReport is what the agreement program found for one server.
type serverReport struct {
	Server        string   `json:"server"`
	Tools         int      `json:"tools"`
	Declarations  int      `json:"declarations"`
	Instances     int      `json:"instances"`
	Accepted      int      `json:"accepted"`
	Rejected      int      `json:"rejected"`
	ToolsAccepted int      `json:"toolsAccepted"`
	Disagreements []string `json:"disagreements"`
	Gemini        []string `json:"gemini"`
}

// TestCorpus generates every server's package into a directory inside the
// module, runs go vet over all of them at once, and runs a generated test
// that checks the Gemini declarations and the agreement of the generated
// Validate methods with the tools' own schemas on the instances Instances
// builds. Under -short it stops after generation.
func TestCorpus(t *testing.T) {
	servers := generateCorpus(t)
	if testing.Short() {
		t.Skip("compiling the corpus takes a minute; run without -short")
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", "gen-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	root := testenv.RepoRoot()
	rel, err := filepath.Rel(root, must(filepath.Abs(dir)))
	if err != nil {
		t.Fatal(err)
	}
	importBase := "github.com/mcpgen/mcpgen/" + filepath.ToSlash(rel)

	agreeDir := filepath.Join(dir, "agree")
	if err := os.MkdirAll(filepath.Join(agreeDir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	var tmpl []tmplServer
	for i, s := range servers {
		if err := os.Mkdir(filepath.Join(dir, s.pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range s.files {
			if err := os.WriteFile(filepath.Join(dir, s.pkg, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join(rel, s.pkg)))
		ts := tmplServer{Alias: fmt.Sprintf("p%d", i), Import: importBase + "/" + s.pkg, Name: s.file}
		inst := map[string]toolInstances{}
		for _, tool := range s.ir.Tools {
			snapTool := findTool(s.snap, tool.Name)
			ti := toolInstances{}
			if ti.Args, err = Instances(snapTool.InputSchema); err != nil {
				t.Fatalf("%s: tool %q: %v", s.file, tool.Name, err)
			}
			ts.Tools = append(ts.Tools, tmplTool{Name: tool.Name, Args: tool.Args.Name})
			if tool.Result != nil {
				if ti.Result, err = Instances(snapTool.OutputSchema); err != nil {
					t.Fatalf("%s: tool %q: output schema: %v", s.file, tool.Name, err)
				}
				ts.Results = append(ts.Results, tmplTool{Name: tool.Name, Args: tool.Result.Name})
			}
			inst[tool.Name] = ti
		}
		data, err := json.Marshal(inst)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(agreeDir, "testdata", s.file), data, 0o644); err != nil {
			t.Fatal(err)
		}
		tmpl = append(tmpl, ts)
	}
	var src bytes.Buffer
	if err := agreeTemplate.Execute(&src, tmpl); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agreeDir, "agree_test.go"), src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	agreePkg := "./" + filepath.ToSlash(filepath.Join(rel, "agree"))

	goCmd(t, root, append([]string{"vet"}, append(pkgs, agreePkg)...)...)
	report := filepath.Join(must(filepath.Abs(dir)), "report.json")
	goCmd(t, root, "test", "-count=1", "-vet=off", agreePkg, "-args", "-report="+report)

	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the agreement program wrote no report: %v", err)
	}
	var reports []serverReport
	if err := json.Unmarshal(data, &reports); err != nil {
		t.Fatal(err)
	}
	if len(reports) != len(servers) {
		t.Fatalf("report covers %d servers, want %d", len(reports), len(servers))
	}
	total := serverReport{Server: "total"}
	for _, r := range reports {
		for _, d := range r.Disagreements {
			t.Errorf("%s: %s", r.Server, d)
		}
		for _, g := range r.Gemini {
			t.Errorf("%s: Gemini: %s", r.Server, g)
		}
		if r.Declarations != r.Tools {
			t.Errorf("%s: %d Gemini declarations for %d tools", r.Server, r.Declarations, r.Tools)
		}
		// The instances must exercise both verdicts, and a valid instance
		// must be found for most tools, or the agreement proves little.
		if r.Accepted == 0 || r.Rejected == 0 {
			t.Errorf("%s: %d instances accepted and %d rejected: the generator does not exercise both verdicts", r.Server, r.Accepted, r.Rejected)
		}
		if r.ToolsAccepted*10 < r.Tools*9 {
			t.Errorf("%s: only %d of %d tools have an instance their schema accepts", r.Server, r.ToolsAccepted, r.Tools)
		}
		t.Logf("%-40s %4d tools %6d instances (%d valid, %d invalid), %d tools with a valid instance", r.Server, r.Tools, r.Instances, r.Accepted, r.Rejected, r.ToolsAccepted)
		total.Tools += r.Tools
		total.Instances += r.Instances
		total.Accepted += r.Accepted
		total.Rejected += r.Rejected
		total.ToolsAccepted += r.ToolsAccepted
	}
	t.Logf("%d servers, %d tools, %d instances (%d valid, %d invalid), %d tools with a valid instance", len(reports), total.Tools, total.Instances, total.Accepted, total.Rejected, total.ToolsAccepted)
}

func findTool(s *snapshot.Snapshot, name string) *snapshot.Tool {
	for i := range s.Tools {
		if s.Tools[i].Name == name {
			return &s.Tools[i]
		}
	}
	panic("tool " + name + " is in the IR but not in the snapshot")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// goCmd runs the go command in dir and fails the test with its output when
// it fails.
func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", args[0], err, out)
	}
	t.Logf("go %s: %v (%v of CPU)", args[0], time.Since(start).Round(time.Millisecond), (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Round(time.Millisecond))
}

type tmplTool struct{ Name, Args string }

type tmplServer struct {
	Alias, Import, Name string
	Tools, Results      []tmplTool
}

var agreeTemplate = template.Must(template.New("agree").Funcs(template.FuncMap{"quote": func(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}}).Parse(`package agree

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/runtime"
{{range .}}	{{.Alias}} {{quote .Import}}
{{end}})

var reportPath = flag.String("report", "", "where to write the JSON report")

type validator interface{ Validate() error }

type server struct {
	name           string
	validateArgs   func(string, []byte) error
	validateResult func(string, []byte) error
	decls          func() []*genai.FunctionDeclaration
	args, results  map[string]func() validator
}

var servers = []server{
{{range .}}	{
		name:           {{quote .Name}},
		validateArgs:   {{.Alias}}.ValidateArguments,
		validateResult: {{.Alias}}.ValidateResult,
		decls:          {{.Alias}}.FunctionDeclarations,
		args: map[string]func() validator{
{{$a := .Alias}}{{range .Tools}}			{{quote .Name}}: func() validator { return new({{$a}}.{{.Args}}) },
{{end}}		},
		results: map[string]func() validator{
{{range .Results}}			{{quote .Name}}: func() validator { return new({{$a}}.{{.Args}}) },
{{end}}		},
	},
{{end}}}

type toolInstances struct {
	Args   []json.RawMessage ` + "`json:\"args\"`" + `
	Result []json.RawMessage ` + "`json:\"result\"`" + `
}

type report struct {
	Server        string   ` + "`json:\"server\"`" + `
	Tools         int      ` + "`json:\"tools\"`" + `
	Declarations  int      ` + "`json:\"declarations\"`" + `
	Instances     int      ` + "`json:\"instances\"`" + `
	Accepted      int      ` + "`json:\"accepted\"`" + `
	Rejected      int      ` + "`json:\"rejected\"`" + `
	ToolsAccepted int      ` + "`json:\"toolsAccepted\"`" + `
	Disagreements []string ` + "`json:\"disagreements\"`" + `
	Gemini        []string ` + "`json:\"gemini\"`" + `
}

// verdict decodes inst into a new value of the generated type and validates
// it, and validates inst against the schema; when both accept it, the value
// encoded again (what the generated client sends) must satisfy the schema
// too. It reports a disagreement, or "" and the schema's verdict.
func verdict(mk func() validator, raw func([]byte) error, inst []byte) (msg string, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("panic: %v", r)
		}
	}()
	rawErr := raw(inst)
	var ve *runtime.ValidationError
	if rawErr != nil && !errors.As(rawErr, &ve) {
		return fmt.Sprintf("the schema validator failed to run: %v", rawErr), false
	}
	v := mk()
	goErr := json.Unmarshal(inst, v)
	if goErr == nil {
		goErr = v.Validate()
	}
	if (rawErr == nil) != (goErr == nil) {
		return fmt.Sprintf("schema says %v, decode+Validate says %v", rawErr, goErr), false
	}
	if rawErr == nil {
		// What the generated client would send must satisfy the schema too.
		enc, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprintf("the decoded value does not encode: %v", err), false
		}
		if err := raw(enc); err != nil {
			return fmt.Sprintf("re-encoded as %s, the schema says %v", enc, err), false
		}
	}
	return "", rawErr == nil
}

func TestAgree(t *testing.T) {
	var reports []report
	for _, s := range servers {
		r := report{Server: s.name, Tools: len(s.args)}
		decls := s.decls()
		r.Declarations = len(decls)
		for _, e := range providertest.CheckGemini(decls) {
			r.Gemini = append(r.Gemini, e.Error())
		}
		data, err := os.ReadFile(filepath.Join("testdata", s.name))
		if err != nil {
			t.Fatal(err)
		}
		var insts map[string]toolInstances
		if err := json.Unmarshal(data, &insts); err != nil {
			t.Fatal(err)
		}
		names := make([]string, 0, len(s.args))
		for name := range s.args {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			toolAccepted := false
			check := func(kind string, mk func() validator, raw func([]byte) error, list []json.RawMessage) {
				for _, inst := range list {
					r.Instances++
					msg, ok := verdict(mk, raw, inst)
					if msg != "" {
						r.Disagreements = append(r.Disagreements, fmt.Sprintf("tool %q %s %s: %s", name, kind, inst, msg))
						continue
					}
					if ok {
						r.Accepted++
						if kind == "arguments" {
							toolAccepted = true
						}
					} else {
						r.Rejected++
					}
				}
			}
			ti := insts[name]
			check("arguments", s.args[name], func(b []byte) error { return s.validateArgs(name, b) }, ti.Args)
			if mk, ok := s.results[name]; ok {
				check("result", mk, func(b []byte) error { return s.validateResult(name, b) }, ti.Result)
			}
			if toolAccepted {
				r.ToolsAccepted++
			}
		}
		reports = append(reports, r)
	}
	if *reportPath != "" {
		data, err := json.MarshalIndent(reports, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*reportPath, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
`))
