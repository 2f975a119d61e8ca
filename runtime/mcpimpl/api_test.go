package mcpimpl

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// generatedOnly are helpers only generated code calls. Package runtime,
// which hand-written code uses, must not export them.
var generatedOnly = []string{
	"AsTool", "CheckFormat", "CheckObject", "ConstMatches", "DecodeExtra", "DecodeObject",
	"DecodeUnion", "DecodeValid", "Decoded", "DoNotCompare", "EncodeExtra", "EscapePointerToken",
	"FieldShape", "ForTool", "Invalid", "JSONKind", "KindArray", "KindBool",
	"KindInvalid", "KindNull", "KindNumber", "KindObject", "KindString",
	"MustCompilePattern", "ObjectShape", "Pointer", "UnionBranch",
	"ValidateEncoded", "Within",
	"CheckURIVars", "ExpandURI", "GetPrompt", "PromptArg", "PromptGetter", "ReadTemplate",
	"RequiredArg", "ResourceReader", "URIParams", "URIVar",
}

// exported returns the exported package-level identifiers declared by the
// non-test Go files of dir.
func exported(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	names := map[string]bool{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names
}

// TestRuntimeExportsNoGeneratedCodeHelpers checks that the API of package
// runtime, as go doc lists it, holds none of the helpers of this package
// nor any name of generatedOnly.
func TestRuntimeExportsNoGeneratedCodeHelpers(t *testing.T) {
	rt := exported(t, "..")
	impl := exported(t, ".")
	if len(rt) == 0 {
		t.Fatal("found no exported names in package runtime")
	}
	var leaked []string
	for name := range impl {
		if rt[name] {
			leaked = append(leaked, name)
		}
	}
	for _, name := range generatedOnly {
		if rt[name] && !impl[name] {
			leaked = append(leaked, name)
		}
	}
	sort.Strings(leaked)
	if len(leaked) > 0 {
		t.Errorf("package runtime exports helpers for generated code: %s", strings.Join(leaked, ", "))
	}
}
