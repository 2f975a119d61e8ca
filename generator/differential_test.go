package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generator/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
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

// TestSchemaConsumersAgree builds the Go types and the typed Gemini
// declarations of every tool in differentialSnapshots and compares, for
// each top-level property both keep, what the two made of its schema once
// $refs, allOf and null branches are resolved: whether it accepts null,
// and its JSON type when both give a single one.
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
			decls, _, err := gemini.Declarations(rt, nil)
			if err != nil || len(decls) != 1 || decls[0].Parameters == nil {
				continue
			}
			for _, f := range pkg.Tools[0].Args.Fields {
				g := decls[0].Parameters.Properties[f.JSONName]
				if g == nil {
					continue
				}
				compared++
				irNull, irKind := irShape(f.Type)
				gNull, gKind := geminiShape(g)
				where := fmt.Sprintf("%s: tool %s, property %s", name, tools[i].Name, f.JSONName)
				if irNull != gNull {
					t.Errorf("%s: the Go type accepts null: %v; the Gemini declaration: %v", where, irNull, gNull)
				}
				if irKind != "" && gKind != "" && irKind != gKind {
					t.Errorf("%s: the Go type is %s, the Gemini declaration %s", where, irKind, gKind)
				}
			}
		}
	}
	if compared < 500 {
		t.Errorf("only %d properties compared", compared)
	}
	t.Logf("%d properties compared", compared)
}

// irShape returns whether an IR type accepts null and its JSON type, when
// it has one.
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
