package docblocks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docPackages are the packages of this module the docs name by their
// package name, as in `runtime.ToolSearch` or `gemini.Chat.MaxSteps`, and
// their folders. others names, for each, the packages of the same name the
// docs also mean (Go's own runtime, the providers' SDKs), whose
// identifiers `go doc` looks up.
var (
	docPackages = map[string]string{
		"runtime":   "runtime",
		"gemini":    "runtime/gemini",
		"anthropic": "runtime/anthropic",
		"openai":    "runtime/openai",
		"server":    "runtime/server",
		"otelmcp":   "runtime/otelmcp",
		"auth":      "runtime/auth",
		"mcpimpl":   "runtime/mcpimpl",
	}
	others = map[string]string{
		"runtime":   "runtime",
		"anthropic": "github.com/anthropics/anthropic-sdk-go",
		"openai":    "github.com/openai/openai-go/v3",
	}
)

// docIdent matches an exported identifier of one of docPackages, with the
// member of a type after it if any: runtime.Options.TaskTimeout.
var docIdent = regexp.MustCompile(`(?:^|[^\w./])(runtime|gemini|anthropic|openai|server|otelmcp|auth|mcpimpl)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)

// codeSpan matches a code span of a line of Markdown.
var codeSpan = regexp.MustCompile("`[^`]+`")

// exported holds the exported identifiers of a package: its top-level
// names, and Type.Member for the fields and methods of its types. open
// holds the types whose members cannot all be listed from their
// declaration: aliases, types defined from other types, and structs
// that embed one.
type exported struct {
	names map[string]bool
	open  map[string]bool
}

// has reports whether the package declares name, and member of it when
// member is not empty.
func (e exported) has(name, member string) bool {
	if member == "" {
		return e.names[name]
	}
	return e.names[name+"."+member] || e.names[name] && e.open[name]
}

// exportedOf reads the exported identifiers of the package in dir from its
// non-test files.
func exportedOf(t *testing.T, dir string) exported {
	t.Helper()
	e := exported{names: map[string]bool{}, open: map[string]bool{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					e.names[d.Name.Name] = true
				} else if recv := receiverName(d.Recv.List[0].Type); recv != "" {
					e.names[recv+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							e.names[n.Name] = true
						}
					case *ast.TypeSpec:
						e.addType(s)
					}
				}
			}
		}
	}
	return e
}

// addType records a type and the members its declaration lists.
func (e exported) addType(s *ast.TypeSpec) {
	name := s.Name.Name
	e.names[name] = true
	switch typ := s.Type.(type) {
	case *ast.StructType:
		for _, f := range typ.Fields.List {
			if len(f.Names) == 0 {
				e.open[name] = true
				if n := receiverName(f.Type); n != "" {
					e.names[name+"."+n] = true
				}
			}
			for _, n := range f.Names {
				e.names[name+"."+n.Name] = true
			}
		}
	case *ast.InterfaceType:
		for _, m := range typ.Methods.List {
			for _, n := range m.Names {
				e.names[name+"."+n.Name] = true
			}
		}
	default:
		e.open[name] = true
	}
	if s.Assign.IsValid() {
		e.open[name] = true
	}
}

// receiverName returns the name of the type of a receiver or of an
// embedded field: T, *T, T[P] or pkg.T.
func receiverName(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.IndexExpr:
		return receiverName(x.X)
	case *ast.IndexListExpr:
		return receiverName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// TestDocsNameExportedIdentifiers checks that every identifier of the
// module's packages that a code span of the README or of docs/ names by
// its package, as `runtime.ForTool` or `otelmcp.Options.RecordContent`,
// is declared there (or, for runtime, anthropic and openai, in the package
// of that name it may mean instead), so that a rename or a move to another
// package leaves no reference behind. Tests, benchmarks and fuzz targets
// are TestDocsNameWhatExists's; examples are not looked up.
func TestDocsNameExportedIdentifiers(t *testing.T) {
	root := repoRoot(t)
	pkgs := map[string]exported{}
	for name, dir := range docPackages {
		pkgs[name] = exportedOf(t, filepath.Join(root, filepath.FromSlash(dir)))
	}
	checked := 0
	for _, path := range docFiles(t, root) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for i, line := range prose(string(text)) {
			for _, span := range codeSpan.FindAllString(line, -1) {
				for _, m := range docIdent.FindAllStringSubmatch(span, -1) {
					pkg, name, member := m[1], m[2], m[3]
					if strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Benchmark") || strings.HasPrefix(name, "Fuzz") || strings.HasPrefix(name, "Example") {
						continue
					}
					checked++
					if pkgs[pkg].has(name, member) || inOther(t, root, pkg, name, member) {
						continue
					}
					ident := pkg + "." + name
					if member != "" {
						ident += "." + member
					}
					t.Errorf("%s:%d: %s is not declared in %s", rel, i+1, ident, docPackages[pkg])
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no identifier of the module's packages was found in the docs")
	}
}

// inOther reports whether `go doc` finds name (and member) in the other
// package of the name pkg, if there is one.
func inOther(t *testing.T, root, pkg, name, member string) bool {
	t.Helper()
	other, ok := others[pkg]
	if !ok {
		return false
	}
	sym := name
	if member != "" {
		sym += "." + member
	}
	cmd := exec.Command("go", "doc", other, sym)
	cmd.Dir = root
	return cmd.Run() == nil
}

// TestExportedOf checks the identifiers read from a made-up package.
func TestExportedOf(t *testing.T) {
	dir := t.TempDir()
	src := `package p

type Options struct {
	Timeout int
	inner
}

type inner struct{ Hidden int }

type Alias = Options

type Handler interface{ Handle() }

func (o *Options) Check() error { return nil }

func New() {}

const Limit = 1
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e := exportedOf(t, dir)
	for _, c := range []struct {
		name, member string
		want         bool
	}{
		{"Options", "", true}, {"Options", "Timeout", true}, {"Options", "Check", true},
		{"Options", "Hidden", true}, // promoted through the embedded struct
		{"Alias", "Anything", true}, {"Handler", "Handle", true}, {"Handler", "Other", false},
		{"New", "", true}, {"Limit", "", true}, {"ForTool", "", false},
	} {
		if got := e.has(c.name, c.member); got != c.want {
			t.Errorf("has(%q, %q) = %v, want %v", c.name, c.member, got, c.want)
		}
	}
	var got []string
	for _, m := range docIdent.FindAllStringSubmatch("`runtime.ForTool`, `*runtime.ValidationError`, `runtime/gemini.X`, `gemini.Chat.MaxSteps`, `server.address`", -1) {
		got = append(got, strings.Trim(strings.Join(m[1:], "."), "."))
	}
	if strings.Join(got, " ") != "runtime.ForTool runtime.ValidationError gemini.Chat.MaxSteps" {
		t.Errorf("identifiers = %q", got)
	}
}
