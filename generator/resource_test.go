package generator

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestRefInEmbeddedResource generates from schemas whose $ref sits in a
// subschema with a $id of its own, an embedded resource: JSON Schema
// resolves "#/$defs/y" there against that subschema, as the runtime's
// validator does, but the generator resolved it against the tool's root,
// so the field had the root's type (an integer where the schema wants a
// string): Validate() accepted {"a":{"y":1}}, which ValidateArguments
// rejects. Generation now refuses such a $ref, naming the tool and its
// pointer; a $id that is only a fragment (draft-07's plain-name anchor),
// or a $ref beside it in draft-07, which ignores its siblings, changes no
// base and still generates.
func TestRefInEmbeddedResource(t *testing.T) {
	embedded := `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$id":"http://example.com/x.json","type":"object","properties":{"y":{"$ref":"#/$defs/y"}},"$defs":{"y":{"type":"string"}}},"y":{"type":"integer"}}}`
	// What the runtime's validator reads: y is the embedded string.
	s := runtime.NewSchema("t", []byte(embedded))
	if err := s.Validate([]byte(`{"a":{"y":"s"}}`)); err != nil {
		t.Fatalf("the validator resolves the $ref otherwise: %v", err)
	}
	if err := s.Validate([]byte(`{"a":{"y":1}}`)); err == nil {
		t.Fatal("the validator accepts an integer y")
	}
	for _, tc := range []struct{ name, schema, output, want string }{
		{"embedded $id", embedded, "",
			`tool "t": /inputSchema/$defs/x/properties/y/$ref: $ref "#/$defs/y" is inside the schema at /inputSchema/$defs/x, whose $id "http://example.com/x.json" makes it resolve against that schema rather than the tool's, which mcpgen does not do`},
		{"relative $id", `{"type":"object","properties":{"a":{"type":"object","$id":"a.json","properties":{"b":{"$ref":"#"}}}}}`, "",
			`tool "t": /inputSchema/properties/a/properties/b/$ref: $ref "#" is inside the schema at /inputSchema/properties/a, whose $id "a.json"`},
		{"draft-04 id", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"id":"http://example.com/a","type":"object","properties":{"b":{"$ref":"#/definitions/c"}},"definitions":{"c":{"type":"string"}}}},"definitions":{"c":{"type":"integer"}}}`, "",
			`tool "t": /inputSchema/properties/a/properties/b/$ref: $ref "#/definitions/c" is inside the schema at /inputSchema/properties/a, whose id "http://example.com/a"`},
		{"output schema", `{"type":"object"}`, embedded,
			`tool "t": /outputSchema/$defs/x/properties/y/$ref: $ref "#/$defs/y" is inside the schema at /outputSchema/$defs/x`},
		{"fragment $id", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$id":"#a","type":"object","properties":{"b":{"$ref":"#/definitions/c"}}}},"definitions":{"c":{"type":"string"}}}`, "", ""},
		{"draft-07 $id beside $ref", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$id":"http://example.com/a","$ref":"#/definitions/c"}},"definitions":{"c":{"type":"string"}}}`, "", ""},
		{"root $id", `{"$id":"http://example.com/root.json","type":"object","properties":{"a":{"$ref":"#/$defs/c"}},"$defs":{"c":{"type":"string"}}}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := runtime.Tool{Name: "t", InputSchema: []byte(tc.schema)}
			if tc.output != "" {
				tool.OutputSchema = []byte(tc.output)
			}
			want := tc.want
			_, err := generateLive(tool)
			if want == "" {
				if err != nil {
					t.Fatalf("generating: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("generating: error = %v, want one starting %s", err, want)
			}
			// From a file, the same error, after the file's name.
			doc := `{"tools":[{"name":"t","inputSchema":` + string(tool.InputSchema) + `}]}`
			if tool.OutputSchema != nil {
				doc = `{"tools":[{"name":"t","inputSchema":` + string(tool.InputSchema) + `,"outputSchema":` + string(tool.OutputSchema) + `}]}`
			}
			if _, err := generateText(doc, ir.Limits{}); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("generating from a file: error = %v, want one containing %s", err, want)
			}
		})
	}
}

// TestCountsBeyondInt32 generates from a schema whose maxLength is
// 4294967295 (the largest uint32), and whose other counts are beyond what
// a Go int holds on 32-bit platforms. Each was refused ("maxLength is
// 4294967295, want a non-negative integer"), and the whole package with
// it; the tool's own schema now checks them, and the generated code holds
// no constant that a 32-bit int cannot.
func TestCountsBeyondInt32(t *testing.T) {
	schema := `{"type":"object","properties":{"s":{"type":"string","maxLength":4294967295},"t":{"type":"string","minLength":1e20},` +
		`"l":{"type":"array","items":{"type":"integer"},"maxItems":2147483648,"minItems":99999999999999999999},` +
		`"m":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":4294967296}}}`
	files, err := generateLive(runtime.Tool{Name: "t", InputSchema: []byte(schema)})
	if err != nil {
		t.Fatalf("generating: %v", err)
	}
	var validate string
	for _, f := range files {
		if f.Name == "validate.go" {
			validate = string(f.Data)
		}
	}
	if !strings.Contains(validate, "mcpimpl.ValidateEncoded(") || !strings.Contains(validate, "maxLength") {
		t.Errorf("Validate does not check the counts against the schema:\n%s", validate)
	}
	for _, n := range []string{"4294967295", "2147483648", "4294967296", "1e20", "99999999999999999999"} {
		if strings.Contains(validate, n) {
			t.Errorf("validate.go holds the constant %s:\n%s", n, validate)
		}
	}
	if testing.Short() {
		return
	}
	vetFiles(t, "counts-", files)
}
