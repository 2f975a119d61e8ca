package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/internal/schema"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// differentialSnapshots are the tool lists the schema consumers are
// compared on: every snapshot in testdata, the schema table, the allOf,
// $ref and $dynamicRef cases of testdata/consumers.json, and every
// JSON value in the fuzz seeds of the module that is a tool list, a
// snapshot or an object schema (taken as one tool's input schema).
func differentialSnapshots(t *testing.T) map[string][]snapshot.Tool {
	t.Helper()
	out := map[string][]snapshot.Tool{}
	files, _ := filepath.Glob("../../testdata/servers/*.json")
	more, _ := filepath.Glob("../../testdata/*.json")
	files = append(append(files, more...), "../../testdata/schematable/tools.json", consumerCases)
	for _, f := range files {
		s, err := snapshot.ReadFile(f)
		if err != nil {
			continue // not a snapshot, or one the reader refuses: nothing to compare
		}
		out[f] = s.Tools
	}
	var seeds []string
	for _, pattern := range []string{"../testdata/fuzz/*/*", "../*/testdata/fuzz/*/*", "../../runtime/*/testdata/fuzz/*/*", "testdata/fuzz/*/*"} {
		m, _ := filepath.Glob(pattern)
		seeds = append(seeds, m...)
	}
	for _, f := range seeds {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
			l = strings.TrimPrefix(strings.TrimPrefix(l, "string("), "[]byte(")
			s, err := strconv.Unquote(strings.TrimSuffix(l, ")"))
			if err != nil {
				continue // not a string argument
			}
			doc := s
			if n, err := jsontree.ParseUnique([]byte(s)); err != nil {
				continue
			} else if n.Kind == jsontree.Object && !n.Has("tools") {
				doc = fmt.Sprintf(`{"tools":[{"name":"seed","inputSchema":%s}]}`, s)
			} else if n.Kind == jsontree.Array {
				doc = fmt.Sprintf(`{"tools":%s}`, s)
			}
			if snap, err := snapshot.Read(f, []byte(doc)); err == nil {
				out[f+"#"+strconv.Itoa(i)] = snap.Tools
			}
		}
	}
	return out
}

// consumerCases are cases every consumer must build.
const consumerCases = "testdata/consumers.json"

// shape is what a consumer made of one schema once $refs, allOf and null
// branches are resolved.
type shape struct {
	null bool
	// kind is the single JSON type, "" when there is none or several.
	kind string
	// props and required are the properties of an object, in order, and
	// those it requires; object is false for any other schema.
	object          bool
	props, required []string
	// enum holds the values of a string enum; isEnum is false for any
	// other schema.
	isEnum bool
	enum   []string
}

// TestSchemaConsumersAgree builds every tool of differentialSnapshots with
// each schema consumer: the Go types of the IR, diff's view, the typed
// Gemini declaration, and the Anthropic and OpenAI schemas (strict too).
// For every top-level property they keep, all must agree on whether it
// accepts null and is required, on its JSON type, and, where two of them
// describe it as an object or a string enum, on its properties, which of
// them are required, and its values.
func TestSchemaConsumersAgree(t *testing.T) {
	compared := 0
	for name, tools := range differentialSnapshots(t) {
		for i := range tools {
			one := tools[i : i+1]
			pkg, err := ir.BuildOptions(one, ir.Options{})
			if err != nil && name == consumerCases {
				t.Errorf("%s: tool %s: %v", name, tools[i].Name, err)
			}
			if err != nil || len(pkg.Tools) != 1 || pkg.Tools[0].Args.Kind != ir.Struct {
				continue
			}
			rt := (&snapshot.Snapshot{Tools: one}).RuntimeTools()
			root, _, err := provschema.Root(rt[0].Name, rt[0].InputSchema)
			if err != nil {
				continue
			}
			strict, reason := provschema.Strict(root)
			decls, _, err := gemini.Declarations(rt, nil)
			if err != nil || len(decls) != 1 || decls[0].Parameters == nil {
				continue
			}
			doc, err := parseSchema(rt[0].InputSchema)
			if err != nil || doc == nil {
				continue
			}
			r := newResolver(doc)
			top := r.view(doc)
			diffRequired := requiredSet(top.obj)
			for _, f := range pkg.Tools[0].Args.Fields {
				if f.Type.Kind == ir.Raw || f.Type.Kind == ir.Nullable && f.Type.Elem.Kind == ir.Raw {
					continue
				}
				where := fmt.Sprintf("%s: tool %s, property %s", name, tools[i].Name, f.JSONName)
				goShape := irShape(f.Type)
				check := func(consumer string, got shape, required bool) {
					if got.null != goShape.null {
						t.Errorf("%s: the Go type accepts null: %v; %s: %v", where, goShape.null, consumer, got.null)
					}
					if required != f.Required {
						t.Errorf("%s: the Go field is required: %v; %s: %v", where, f.Required, consumer, required)
					}
					if goShape.kind != "" && got.kind != "" && goShape.kind != got.kind {
						t.Errorf("%s: the Go type is %s; %s: %s", where, goShape.kind, consumer, got.kind)
					}
					if goShape.object && got.object && (!slices.Equal(goShape.props, got.props) || !slices.Equal(goShape.required, got.required)) {
						t.Errorf("%s: the Go struct has %v requiring %v; %s: %v requiring %v", where, goShape.props, goShape.required, consumer, got.props, got.required)
					}
					if goShape.isEnum && got.isEnum && !slices.Equal(goShape.enum, got.enum) {
						t.Errorf("%s: the Go enum has %v; %s: %v", where, goShape.enum, consumer, got.enum)
					}
				}
				if p := root.Get("properties").Get(f.JSONName); p != nil && !p.Has("nullable") {
					// OpenAPI's nullable is no JSON Schema keyword: the Go
					// type and the validators ignore it, and diff and the
					// provider schemas keep it on purpose, as models read it.
					check("the provider schema", shape{null: acceptsNull(root, p, 0)}, slices.Contains(provschema.Required(root), f.JSONName))
					if reason == "" && f.Required {
						// Strict mode makes optional properties nullable.
						sp := strict.Get("properties").Get(f.JSONName)
						check("the strict OpenAI schema", shape{null: acceptsNull(strict, sp, 0)}, true)
					}
					check("diff", viewShape(r, r.view(top.obj.Get("properties").Get(f.JSONName))), diffRequired[f.JSONName])
				}
				if g := decls[0].Parameters.Properties[f.JSONName]; g != nil {
					compared++
					check("the Gemini declaration", geminiShape(g), slices.Contains(decls[0].Parameters.Required, f.JSONName))
				}
			}
		}
	}
	if compared < 2000 {
		t.Errorf("only %d properties compared", compared)
	}
	t.Logf("%d properties compared", compared)
}

// acceptsNull reports whether the JSON Schema n, within doc, accepts null:
// its type, const or enum allows it, a union branch does, or every allOf
// part does.
func acceptsNull(doc, n *jsontree.Node, depth int) bool {
	if depth > 32 || n == nil {
		return false
	}
	if n.Kind == jsontree.Bool {
		return n.Bool
	}
	if ref, ok := n.Get("$ref").StringValue(); ok {
		t, _, err := schema.Resolve(doc, ref)
		return err == nil && acceptsNull(doc, t, depth+1)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if u := n.Get(kw); u != nil {
			return slices.ContainsFunc(u.Items, func(b *jsontree.Node) bool { return acceptsNull(doc, b, depth+1) })
		}
	}
	if all := n.Get("allOf"); all != nil {
		// Every part must accept null, and the keywords beside them.
		rest := n.Without("allOf")
		return !slices.ContainsFunc(all.Items, func(b *jsontree.Node) bool { return !acceptsNull(doc, b, depth+1) }) &&
			(!slices.ContainsFunc(rest.Keys(), func(k string) bool { return k == "type" || k == "const" || k == "enum" }) || acceptsNull(doc, rest, depth+1))
	}
	// Null must pass each of const, enum and type that is there.
	if k := n.Get("const"); k != nil && k.Kind != jsontree.Null {
		return false
	}
	if e := n.Get("enum"); e != nil && !slices.ContainsFunc(e.Items, func(x *jsontree.Node) bool { return x.Kind == jsontree.Null }) {
		return false
	}
	if t := n.Get("type"); t != nil {
		return slices.Contains(schema.Types(t), "null")
	}
	return n.Has("const") || n.Has("enum")
}

// irShape is the shape of an IR type. A Raw type holds any JSON value and
// leaves the schema to the raw validator, so it says nothing: the callers
// skip it. A field the struct adds for a required property that the schema
// does not describe is left out of props.
func irShape(t *ir.Type) shape {
	var s shape
	if t.Kind == ir.Nullable {
		s.null, t = true, t.Elem
	}
	s.kind = map[ir.Kind]string{ir.Bool: "boolean", ir.Int: "integer", ir.Number: "number", ir.String: "string",
		ir.Struct: "object", ir.Map: "object", ir.Slice: "array"}[t.Kind]
	switch t.Kind {
	case ir.Struct:
		s.object = true
		for _, f := range t.Fields {
			if f.Type.Kind == ir.Raw && f.Required && f.Type.Pointer == "" {
				continue
			}
			s.props = append(s.props, f.JSONName)
			if f.Required {
				s.required = append(s.required, f.JSONName)
			}
		}
	case ir.Enum:
		if t.Base == ir.String {
			s.isEnum, s.kind = true, "string"
			for _, v := range t.Values {
				s.enum = append(s.enum, v.Value.Str)
			}
		}
	}
	return s
}

// viewShape is the shape of diff's view of a schema. A union accepts null
// when one of its branches does.
func viewShape(r resolver, v *view) shape {
	s := shape{null: v.nullable || slices.ContainsFunc(v.union, func(b *jsontree.Node) bool { return r.view(b).nullable })}
	if v.union != nil || len(v.types) != 1 {
		return s
	}
	s.kind = v.types[0]
	switch {
	case s.kind == "object":
		s.object = true
		in := requiredSet(v.obj)
		if p := v.obj.Get("properties"); p != nil {
			for _, m := range p.Members {
				s.props = append(s.props, m.Key)
				if in[m.Key] {
					s.required = append(s.required, m.Key)
				}
			}
		}
	case s.kind == "string" && v.hasEnum:
		s.isEnum = true
		for _, e := range v.enum {
			if !slices.Contains(s.enum, e.Str) {
				s.enum = append(s.enum, e.Str)
			}
		}
	}
	return s
}

// geminiShape is the shape of a typed Gemini schema. An anyOf accepts null
// when one of its branches does.
func geminiShape(g *genai.Schema) shape {
	s := shape{null: g.Nullable != nil && *g.Nullable}
	for _, b := range g.AnyOf {
		if geminiShape(b).null {
			s.null = true
		}
	}
	s.kind = map[genai.Type]string{genai.TypeBoolean: "boolean", genai.TypeInteger: "integer", genai.TypeNumber: "number",
		genai.TypeString: "string", genai.TypeObject: "object", genai.TypeArray: "array"}[g.Type]
	switch {
	case g.Type == genai.TypeString && len(g.Enum) > 0:
		// Enums of any type are declared as strings.
		s.kind, s.isEnum, s.enum = "", true, g.Enum
	case g.Type == genai.TypeObject && len(g.AnyOf) == 0:
		s.object = true
		s.props = g.PropertyOrdering
		for _, p := range g.PropertyOrdering {
			if slices.Contains(g.Required, p) {
				s.required = append(s.required, p)
			}
		}
	}
	return s
}
