package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generator/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/internal/schema"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// differentialSnapshots are the tool lists the schema consumers are
// compared on: every snapshot in testdata, the schema table, and the tools
// of the generator's fuzz seeds.
func differentialSnapshots(t *testing.T) map[string][]snapshot.Tool {
	t.Helper()
	out := map[string][]snapshot.Tool{}
	files, _ := filepath.Glob("../testdata/servers/*.json")
	more, _ := filepath.Glob("../testdata/*.json")
	files = append(append(files, more...), "../testdata/schematable/tools.json")
	for _, f := range files {
		s, err := snapshot.ReadFile(f)
		if err != nil {
			continue // not a snapshot, or one the reader refuses: nothing to compare
		}
		out[f] = s.Tools
	}
	seeds, _ := filepath.Glob("testdata/fuzz/FuzzGenerate/*")
	for _, f := range seeds {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 4 {
			continue
		}
		var args [3]string
		for i, l := range lines[1:] {
			s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(l, "string("), ")"))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			args[i] = s
		}
		doc := fmt.Sprintf(`{"tools":[{"name":%q,"description":%q,"inputSchema":%s}]}`, args[0], args[1], args[2])
		if s, err := snapshot.Read(f, []byte(doc)); err == nil {
			out[f] = s.Tools
		}
	}
	return out
}

// TestSchemaConsumersAgree builds the Go types, the typed Gemini
// declarations and the Anthropic and OpenAI schemas (strict too) of every
// tool in differentialSnapshots and compares, for each top-level property
// they keep, what each made of its schema once $refs, allOf and null
// branches are resolved: whether it accepts null, and, for Gemini, its
// JSON type when both give a single one.
func TestSchemaConsumersAgree(t *testing.T) {
	compared := 0
	for name, tools := range differentialSnapshots(t) {
		for i := range tools {
			one := tools[i : i+1]
			pkg, err := ir.BuildOptions(one, emit.Options{}.IROptions())
			if err != nil || len(pkg.Tools) != 1 || pkg.Tools[0].Args.Kind != ir.Struct {
				continue
			}
			rt := (&snapshot.Snapshot{Tools: one}).RuntimeTools()
			// The Anthropic and OpenAI declarations: the server's schema
			// with its root resolved, and OpenAI's strict form of it.
			root, _, err := provschema.Root(rt[0].Name, rt[0].InputSchema)
			if err != nil {
				continue
			}
			strict, reason := provschema.Strict(root)
			decls, _, err := gemini.Declarations(rt, nil)
			if err != nil || len(decls) != 1 || decls[0].Parameters == nil {
				continue
			}
			for _, f := range pkg.Tools[0].Args.Fields {
				if f.Type.Kind == ir.Raw || f.Type.Kind == ir.Nullable && f.Type.Elem.Kind == ir.Raw {
					continue
				}
				irNull, _ := irShape(f.Type)
				where := fmt.Sprintf("%s: tool %s, property %s", name, tools[i].Name, f.JSONName)
				if p := root.Get("properties").Get(f.JSONName); p != nil && !p.Has("nullable") {
					if got := acceptsNull(root, p, 0); got != irNull {
						t.Errorf("%s: the Go type accepts null: %v; the provider schema: %v", where, irNull, got)
					}
				}
				// Strict mode makes optional properties nullable.
				if p := strict.Get("properties").Get(f.JSONName); reason == "" && f.Required && p != nil && !p.Has("nullable") {
					if got := acceptsNull(strict, p, 0); got != irNull {
						t.Errorf("%s: the Go type accepts null: %v; the strict OpenAI schema: %v", where, irNull, got)
					}
				}
				g := decls[0].Parameters.Properties[f.JSONName]
				if g == nil {
					continue
				}
				compared++
				_, irKind := irShape(f.Type)
				gNull, gKind := geminiShape(g)
				if irNull != gNull {
					t.Errorf("%s: the Go type accepts null: %v; the Gemini declaration: %v", where, irNull, gNull)
				}
				if irKind != "" && gKind != "" && irKind != gKind {
					t.Errorf("%s: the Go type is %s, the Gemini declaration %s", where, irKind, gKind)
				}
				if gReq := slices.Contains(decls[0].Parameters.Required, f.JSONName); gReq != f.Required {
					t.Errorf("%s: the Go field is required: %v; the Gemini declaration: %v", where, f.Required, gReq)
				}
				if pReq := slices.Contains(provschema.Required(root), f.JSONName); pReq != f.Required {
					t.Errorf("%s: the Go field is required: %v; the provider schema: %v", where, f.Required, pReq)
				}
				irProps, irReq := irObject(f.Type)
				gProps, gReq := geminiObject(g)
				if irProps != nil && gProps != nil && !slices.Equal(irProps, gProps) {
					t.Errorf("%s: the Go struct has properties %v, the Gemini declaration %v", where, irProps, gProps)
				}
				if irProps != nil && gProps != nil && !slices.Equal(irReq, gReq) {
					t.Errorf("%s: the Go struct requires %v, the Gemini declaration %v", where, irReq, gReq)
				}
				if irEnum, gEnum := irStringEnum(f.Type), geminiEnum(g); irEnum != nil && gEnum != nil && !slices.Equal(irEnum, gEnum) {
					t.Errorf("%s: the Go enum has values %v, the Gemini declaration %v", where, irEnum, gEnum)
				}
			}
		}
	}
	if compared < 500 {
		t.Errorf("only %d properties compared", compared)
	}
	t.Logf("%d properties compared", compared)
}

// acceptsNull reports whether the JSON Schema n, within doc, accepts null:
// its type, const or enum allows it, or a union branch does.
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
	if k := n.Get("const"); k != nil {
		return k.Kind == jsontree.Null
	}
	if e := n.Get("enum"); e != nil {
		return slices.ContainsFunc(e.Items, func(x *jsontree.Node) bool { return x.Kind == jsontree.Null })
	}
	types := schema.Types(n.Get("type"))
	return slices.Contains(types, "null")
}

// irShape returns whether an IR type accepts null and its JSON type, when
// it has one. A Raw type holds any JSON value and leaves the schema to the
// raw validator, so it says nothing about null: the callers skip it.
func irShape(t *ir.Type) (null bool, kind string) {
	if t.Kind == ir.Nullable {
		null, t = true, t.Elem
	}
	switch t.Kind {
	case ir.Bool:
		return null, "boolean"
	case ir.Int:
		return null, "integer"
	case ir.Number:
		return null, "number"
	case ir.String:
		return null, "string"
	case ir.Struct, ir.Map:
		return null, "object"
	case ir.Slice:
		return null, "array"
	}
	return null, ""
}

// geminiShape is irShape for a typed Gemini schema. An anyOf accepts null
// when one of its branches does.
func geminiShape(s *genai.Schema) (null bool, kind string) {
	null = s.Nullable != nil && *s.Nullable
	for _, b := range s.AnyOf {
		if n, _ := geminiShape(b); n {
			null = true
		}
	}
	switch s.Type {
	case genai.TypeBoolean:
		return null, "boolean"
	case genai.TypeInteger:
		return null, "integer"
	case genai.TypeNumber:
		return null, "number"
	case genai.TypeString:
		if len(s.Enum) > 0 {
			return null, "" // enums of any type are declared as strings
		}
		return null, "string"
	case genai.TypeObject:
		return null, "object"
	case genai.TypeArray:
		return null, "array"
	}
	return null, ""
}

// irObject returns the properties of a struct type and those it requires,
// both in schema order; nil for any other type.
func irObject(t *ir.Type) (props, required []string) {
	if t.Kind == ir.Nullable {
		t = t.Elem
	}
	if t.Kind != ir.Struct {
		return nil, nil
	}
	props = []string{}
	for _, f := range t.Fields {
		props = append(props, f.JSONName)
		if f.Required {
			required = append(required, f.JSONName)
		}
	}
	return props, required
}

// geminiObject is irObject for a typed Gemini schema of one object.
func geminiObject(s *genai.Schema) (props, required []string) {
	if s.Type != genai.TypeObject || len(s.AnyOf) > 0 {
		return nil, nil
	}
	props = append([]string{}, s.PropertyOrdering...)
	for _, p := range props {
		if slices.Contains(s.Required, p) {
			required = append(required, p)
		}
	}
	return props, required
}

// irStringEnum returns the values of a string enum type, nil for any other
// type.
func irStringEnum(t *ir.Type) []string {
	if t.Kind == ir.Nullable {
		t = t.Elem
	}
	if t.Kind != ir.Enum || t.Base != ir.String {
		return nil
	}
	out := []string{}
	for _, v := range t.Values {
		out = append(out, v.Value.Str)
	}
	return out
}

// geminiEnum returns the values of a Gemini string enum, nil for a schema
// without one.
func geminiEnum(s *genai.Schema) []string {
	if s.Type != genai.TypeString || len(s.Enum) == 0 {
		return nil
	}
	return s.Enum
}
