package geminidecl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestPureRefCycleAdmitsNoValue checks that a schema whose $ref leads,
// through bare $refs only, back to a schema it already passed, never to one
// with a keyword that constrains anything, is read as a schema no value
// passes, as the validator reads it (it fails every value there with a
// reference cycle): an optional property of that schema is left out of the
// typed form, which tells the model not to send it, and a union branch of
// it is dropped. Such a cycle failed the declaration of the whole tool list
// ("is reached again inside itself: a recursive schema cannot be
// merged"), though the tool can be called without the property.
func TestPureRefCycleAdmitsNoValue(t *testing.T) {
	for _, c := range []struct {
		name   string
		schema string
		// a is the JSON type of property a in the typed form, "" when a
		// is left out; aValue is a value of a the validator refuses.
		a, aValue string
	}{
		{"two defs", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"b":{"type":"string"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`, "", `1`},
		{"self", `{"type":"object","properties":{"a":{"$ref":"#/properties/a"},"b":{"type":"string"}}}`, "", `{}`},
		{"annotated", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x","description":"A."},"b":{"type":"string"}},"$defs":{"x":{"$ref":"#/$defs/x","title":"X"}}}`, "", `"s"`},
		{"into a cycle", `{"type":"object","properties":{"a":{"$ref":"#/$defs/w"},"b":{"type":"string"}},"$defs":{"w":{"$ref":"#/$defs/x"},"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`, "", `true`},
		{"anchor", `{"type":"object","properties":{"a":{"$ref":"#x"},"b":{"type":"string"}},"$defs":{"x":{"$anchor":"x","$ref":"#x"}}}`, "", `1`},
		{"escaped names", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x~1y"},"b":{"type":"string"}},"$defs":{"x/y":{"$ref":"#/$defs/p~0q"},"p~q":{"$ref":"#/$defs/r%25s"},"r%s":{"$ref":"#/$defs/x~1y"}}}`, "", `1`},
		{"items", `{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/properties/a/items"}},"b":{"type":"string"}}}`, "", `[1]`},
		{"union branch", `{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#/$defs/x"},{"type":"string"}]},"b":{"type":"string"}},"$defs":{"x":{"$ref":"#/$defs/x"}}}`, "STRING", `1`},
		{"allOf part", `{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/$defs/x"},{"type":"string"}]},"b":{"type":"string"}},"$defs":{"x":{"$ref":"#/$defs/x"}}}`, "", `"s"`},
		{"draft-07 sibling ignored", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/x"},"b":{"type":"string"}},"definitions":{"x":{"$ref":"#/definitions/x","type":"string"}}}`, "", `"s"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := runtime.NewSchema("t", []byte(c.schema))
			if err := v.Validate([]byte(`{"b":"s"}`)); err != nil {
				t.Fatalf("the validator refuses a call without a: %v", err)
			}
			if err := v.Validate([]byte(`{"a":` + c.aValue + `}`)); err == nil || !strings.Contains(err.Error(), "cycle") {
				t.Fatalf("the validator gives %v for a = %s, want a reference cycle", err, c.aValue)
			}
			decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(c.schema)}}, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			p := decls[0].Parameters
			if p == nil || p.Property("b") == nil {
				t.Fatalf("parameters %s, JSON Schema %s; want b in the typed form", jsonOf(p), decls[0].ParametersJSONSchema)
			}
			switch a := p.Property("a"); {
			case c.a == "" && a != nil:
				t.Errorf("parameters %s: a is declared, want it left out", jsonOf(p))
			case c.a == "" && !strings.Contains(p.Description, `Do not send "a".`):
				t.Errorf("description %q does not tell the model not to send a", p.Description)
			case c.a != "" && (a == nil || a.Type != c.a || len(a.AnyOf) > 0):
				t.Errorf("parameters %s: want a of type %s", jsonOf(p), c.a)
			}
			// The JSON Schema form is the server's schema as it is.
			decls, _, err = Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(c.schema)}}, nil, true)
			if err != nil || string(decls[0].ParametersJSONSchema) != c.schema {
				t.Errorf("JSON Schema form: %v, %s", err, decls[0].ParametersJSONSchema)
			}
		})
	}
}

// TestPureRefCycleAtTheRoot checks that a root schema that is such a cycle,
// or holds one in an allOf, which leaves no arguments valid, is still an
// error naming the tool and the pointer of the $ref, in both forms, as the
// Claude and OpenAI declarations refuse it.
func TestPureRefCycleAtTheRoot(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"$ref":"#"}`, `tool t: input schema at /$ref: $ref "#" is reached again inside itself: a recursive schema cannot be merged`},
		{`{"$ref":"#/$defs/x","$defs":{"x":{"$ref":"#/$defs/x"}}}`, `tool t: input schema at /$defs/x/$ref: $ref "#/$defs/x" is reached again inside itself: a recursive schema cannot be merged`},
		{`{"type":"object","allOf":[{"$ref":"#/$defs/x"}],"properties":{"a":{"type":"string"}},"$defs":{"x":{"$ref":"#/$defs/x"}}}`, `tool t: input schema at /$defs/x/$ref: $ref "#/$defs/x" is reached again inside itself: a recursive schema cannot be merged`},
	} {
		for _, form := range []bool{false, true} {
			_, _, err := Declare([]runtime.Tool{{Name: "ok", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}, {Name: "t", InputSchema: json.RawMessage(c.schema)}}, nil, form)
			if err == nil || err.Error() != c.want {
				t.Errorf("%s (JSON Schema form %v): error %v, want %s", c.schema, form, err, c.want)
			}
		}
	}
}

func jsonOf(s *Schema) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestOnlyRecursivePropertiesDeclared checks a root object each of whose
// properties nests the object again and nothing else, such as a list of
// "next" links: the typed form, which ends recursion by leaving out the
// property that would nest it once more, left out every level and
// declared the tool as taking no parameters, so that the model could not
// send a value the server accepts; it is declared in the JSON Schema form
// instead.
func TestOnlyRecursivePropertiesDeclared(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"$ref":"#"}}}`,
		`{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}}}`,
	} {
		decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(schema)}}, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if d := decls[0]; d.Parameters != nil || string(d.ParametersJSONSchema) != schema {
			t.Errorf("%s: parameters %s, JSON Schema %s; want the schema in the JSON Schema form", schema, jsonOf(d.Parameters), d.ParametersJSONSchema)
		}
	}
}
