package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/internal/emit"
	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// exportedIdentifiers returns the exported identifiers the generated files
// declare: package-level names, methods (Type.Method) and struct fields
// (Type.Field), those of an alias's type under the alias's name too.
func exportedIdentifiers(t *testing.T, files []emit.File) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	aliases := map[string]string{}
	for _, f := range goFiles(t, files) {
		parsed, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, 0)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, d := range parsed.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if star, ok := recv.(*ast.StarExpr); ok {
						recv = star.X
					}
					name = recv.(*ast.Ident).Name + "." + name
				}
				ids[name] = true
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						ids[s.Name.Name] = true
						if id, ok := s.Type.(*ast.Ident); ok && s.Assign.IsValid() {
							aliases[s.Name.Name] = id.Name
						}
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								for _, n := range fld.Names {
									ids[s.Name.Name+"."+n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							ids[n.Name] = true
						}
					}
				}
			}
		}
	}
	for alias, typ := range aliases {
		for id := range ids {
			if rest, ok := strings.CutPrefix(id, typ+"."); ok {
				ids[alias+"."+rest] = true
			}
		}
	}
	for id := range ids {
		if !ast.IsExported(id) {
			delete(ids, id)
		}
	}
	return ids
}

// TestAddingACollidingNameKeepsTheGoAPI generates a package, then the same
// package from a tool list with one more tool, property or enum value that
// wants an identifier of the first and comes first: every exported
// identifier of the first package is still declared by the second.
func TestAddingACollidingNameKeepsTheGoAPI(t *testing.T) {
	const (
		tool = `{"name":"listEvents","inputSchema":{"type":"object","properties":{
			"userId":{"type":"string"},
			"filter":{"type":"object","properties":{"q":{"type":"string"}}},
			"order":{"enum":["asc","desc"]}}}}`
		collidingTool     = `{"name":"list-events","inputSchema":{"type":"object"}}`
		collidingNested   = `{"name":"list","inputSchema":{"type":"object","properties":{"events_filter":{"type":"object","properties":{"q":{"type":"string"}}}}}}`
		collidingProperty = `{"name":"listEvents","inputSchema":{"type":"object","properties":{
			"user-id":{"type":"integer"},
			"userId":{"type":"string"},
			"filter":{"type":"object","properties":{"q":{"type":"string"}}},
			"order":{"enum":["asc","desc"]}}}}`
		collidingValue = `{"name":"listEvents","inputSchema":{"type":"object","properties":{
			"userId":{"type":"string"},
			"filter":{"type":"object","properties":{"q":{"type":"string"}}},
			"order":{"enum":["_asc","asc","desc"]}}}}`
	)
	generate := func(tools string) map[string]bool {
		t.Helper()
		snap, err := snapshot.Read("t.json", []byte("["+tools+"]"))
		if err != nil {
			t.Fatal(err)
		}
		files, err := Generate(Config{From: snap, Options: Options{Package: "p"}})
		if err != nil {
			t.Fatal(err)
		}
		return exportedIdentifiers(t, files)
	}
	before := generate(tool)
	if !before["ListEventsArgs.UserID"] || !before["ListEventsFilter"] || !before["ListEventsOrderAsc"] {
		t.Fatalf("the first package lacks the identifiers the test is about: %v", before)
	}
	for name, tools := range map[string]string{
		"tool":        collidingTool + "," + tool,
		"nested type": collidingNested + "," + tool,
		"property":    collidingProperty,
		"enum value":  collidingValue,
	} {
		t.Run(name, func(t *testing.T) {
			after := generate(tools)
			for id := range before {
				if !after[id] {
					t.Errorf("%s is gone", id)
				}
			}
			if len(after) <= len(before) {
				t.Errorf("the second package declares no more identifiers (%d, %d)", len(after), len(before))
			}
		})
	}
}
