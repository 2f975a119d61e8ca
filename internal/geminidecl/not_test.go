package geminidecl

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestNotOfASchemaIsNotTheFalseSchema checks that a property whose schema
// is only "not" of a schema that some value passes is declared, in the
// JSON Schema form, since the typed form has no "not" and a string may be
// what it excludes: it was read as the false schema, which allows no value,
// and left out, so that a tool with no other property was declared as
// taking no parameters, even when the property was required. The false
// schema itself, however it is written, is still left out of the typed
// form.
func TestNotOfASchemaIsNotTheFalseSchema(t *testing.T) {
	for _, c := range []struct {
		schema string
		a      bool // whether property a is declared, in the JSON Schema form
	}{
		{`{"type":"object","properties":{"a":{"not":{"type":"string"}}}}`, true},
		{`{"type":"object","properties":{"a":{"not":{"const":"x"}}},"required":["a"]}`, true},
		{`{"type":"object","properties":{"a":{"not":{"not":{}}}}}`, true},
		{`{"type":"object","properties":{"a":{"anyOf":[{"not":{"type":"null"}},{"type":"object","properties":{"b":{"type":"string"}}}]}}}`, true},
		{`{"type":"object","properties":{"a":false,"b":{"type":"string"}}}`, false},
		{`{"type":"object","properties":{"a":{"not":{}},"b":{"type":"string"}}}`, false},
		{`{"type":"object","properties":{"a":{"not":true},"b":{"type":"string"}}}`, false},
		{`{"type":"object","properties":{"a":{"not":{"description":"anything"}},"b":{"type":"string"}}}`, false},
		{`{"type":"object","properties":{"a":{"type":"string","not":{}},"b":{"type":"string"}}}`, false},
	} {
		decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(c.schema)}}, nil, false)
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		d := decls[0]
		if c.a {
			if d.Parameters != nil || string(d.ParametersJSONSchema) != c.schema {
				b, _ := json.Marshal(d.Parameters)
				t.Errorf("%s: parameters %s, JSON Schema %s; want the schema in the JSON Schema form", c.schema, b, d.ParametersJSONSchema)
			}
			continue
		}
		if d.Parameters == nil || d.Parameters.Property("a") != nil || d.Parameters.Property("b") == nil {
			b, _ := json.Marshal(d.Parameters)
			t.Errorf("%s: parameters %s, JSON Schema %s; want b alone in the typed form", c.schema, b, d.ParametersJSONSchema)
		}
	}
}

// TestAllOfOfTwoNots checks that allOf branches that each exclude other
// values merge into one schema that excludes both: they were taken for
// incompatible, which failed the declarations of every tool of the list,
// and a union's branch whose "not" differed from one beside the union was
// left out as allowing no value.
func TestAllOfOfTwoNots(t *testing.T) {
	for _, c := range []struct {
		schema string
		a      bool // whether property a is declared in the typed form
	}{
		{`{"type":"object","properties":{"a":{"allOf":[{"not":{"type":"string"}},{"not":{"type":"integer"}}]}}}`, false},
		{`{"type":"object","properties":{"a":{"allOf":[{"type":"string","not":{"const":"x"}},{"not":{"const":"y"}}]}}}`, true},
		{`{"type":"object","properties":{"a":{"allOf":[{"type":"string","not":{"const":"x"}},{"not":{}}]},"b":{"type":"string"}}}`, false},
	} {
		decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(c.schema)}}, nil, false)
		if err != nil {
			t.Errorf("%s: %v", c.schema, err)
			continue
		}
		d := decls[0]
		switch {
		case c.a && (d.Parameters == nil || d.Parameters.Property("a") == nil || d.Parameters.Property("a").Type != TypeString):
			b, _ := json.Marshal(d.Parameters)
			t.Errorf("%s: parameters %s, JSON Schema %s; want a a STRING in the typed form", c.schema, b, d.ParametersJSONSchema)
		case !c.a && d.Parameters != nil && d.Parameters.Property("a") != nil:
			b, _ := json.Marshal(d.Parameters)
			t.Errorf("%s: parameters %s; want a left out of the typed form", c.schema, b)
		}
	}
	union := `{"type":"object","properties":{"a":{"not":{"const":"a"},"anyOf":[{"type":"string","not":{"const":"b"}},{"type":"integer"}]}}}`
	decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(union)}}, nil, false)
	if err != nil {
		t.Fatalf("%s: %v", union, err)
	}
	if p := decls[0].Parameters; p == nil || p.Property("a") == nil || len(p.Property("a").AnyOf) != 2 {
		b, _ := json.Marshal(p)
		t.Errorf("%s: parameters %s; want a a union of a STRING and an INTEGER", union, b)
	}
}
