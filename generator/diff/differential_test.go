package diff

import (
	"github.com/mcpgen/mcpgen/internal/jsontree"

	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/generator/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// TestViewsAgreeWithGoTypes reads every top-level property of every tool
// in the testdata snapshots and the schema table as diff's view does, and
// checks it against the Go type generate builds: both accept null or
// neither, and a single JSON type is the Go type's. Together with
// generator.TestSchemaConsumersAgree it holds diff, the IR and the Gemini
// converter to one reading of each schema.
func TestViewsAgreeWithGoTypes(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/servers/*.json")
	more, _ := filepath.Glob("../../testdata/*.json")
	files = append(append(files, more...), "../../testdata/schematable/tools.json")
	compared := 0
	for _, f := range files {
		snap, err := snapshot.ReadFile(f)
		if err != nil {
			continue // not a snapshot
		}
		for i, rt := range snap.RuntimeTools() {
			pkg, err := ir.BuildOptions(snap.Tools[i:i+1], emit.Options{}.IROptions())
			if err != nil || pkg.Tools[0].Args.Kind != ir.Struct {
				continue
			}
			root, err := jsontree.ParseUnique(rt.InputSchema)
			if err != nil || root.Has("$ref") || root.Has("allOf") {
				continue
			}
			r := newResolver(root)
			props := root.Get("properties")
			for _, fl := range pkg.Tools[0].Args.Fields {
				p := props.Get(fl.JSONName)
				if p == nil || p.Has("nullable") {
					// OpenAPI's nullable is no JSON Schema keyword: the Go
					// type and the validators ignore it, and diff reports
					// it on purpose, as the models read it.
					continue
				}
				compared++
				v := r.view(p)
				goType := fl.Type
				goNull := goType.Kind == ir.Nullable
				if goNull {
					goType = goType.Elem
				}
				// A union accepts null when one of its branches does.
				null := v.nullable || slices.ContainsFunc(v.union, func(b *jsontree.Node) bool { return r.view(b).nullable })
				if null != goNull {
					t.Errorf("%s: tool %s, property %s: diff reads nullable %v, the Go type %v", f, rt.Name, fl.JSONName, null, goNull)
				}
				want := map[ir.Kind][]string{ir.Bool: {"boolean"}, ir.Int: {"integer"}, ir.Number: {"number"}, ir.String: {"string"}, ir.Slice: {"array"}}[goType.Kind]
				if want != nil && v.union == nil && len(v.types) == 1 && !slices.Equal(v.types, want) {
					t.Errorf("%s: tool %s, property %s: diff reads type %v, the Go type is %v", f, rt.Name, fl.JSONName, v.types, want)
				}
				if req := requiredSet(root)[fl.JSONName]; req != fl.Required {
					t.Errorf("%s: tool %s, property %s: diff reads required %v, the Go field %v", f, rt.Name, fl.JSONName, req, fl.Required)
				}
				if goType.Kind == ir.Struct && v.union == nil {
					var goProps, goReq, props, req []string
					in := requiredSet(v.obj)
					described := orEmpty(v.obj.Get("properties"))
					for _, sf := range goType.Fields {
						if sf.Type.Kind == ir.Raw && in[sf.JSONName] && !described.Has(sf.JSONName) {
							continue // required, not described: the Go struct adds a raw field
						}
						goProps = append(goProps, sf.JSONName)
						if sf.Required {
							goReq = append(goReq, sf.JSONName)
						}
					}
					for _, m := range described.Members {
						props = append(props, m.Key)
						if in[m.Key] {
							req = append(req, m.Key)
						}
					}
					if !slices.Equal(props, goProps) || !slices.Equal(req, goReq) {
						t.Errorf("%s: tool %s, property %s: diff reads properties %v requiring %v, the Go struct %v requiring %v", f, rt.Name, fl.JSONName, props, req, goProps, goReq)
					}
				}
				if goType.Kind == ir.Enum && goType.Base == ir.String && v.union == nil {
					var goVals, vals []string
					for _, ev := range goType.Values {
						goVals = append(goVals, ev.Value.Str)
					}
					for _, e := range v.enum {
						if !slices.Contains(vals, e.Str) {
							vals = append(vals, e.Str)
						}
					}
					if !slices.Equal(vals, goVals) {
						t.Errorf("%s: tool %s, property %s: diff reads enum %v, the Go enum %v", f, rt.Name, fl.JSONName, vals, goVals)
					}
				}
			}
		}
	}
	if compared < 500 {
		t.Errorf("only %d properties compared", compared)
	}
}

// orEmpty returns n, or an empty object for nil.
func orEmpty(n *jsontree.Node) *jsontree.Node {
	if n == nil {
		return &jsontree.Node{Kind: jsontree.Object}
	}
	return n
}
