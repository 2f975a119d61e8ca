package geminidecl

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestEmbeddedResourceRefs checks that a $ref inside a schema with a $id
// of its own resolves against that schema in the typed declaration, as the
// server's validator resolves it: against the root, a.y would be an
// integer.
func TestEmbeddedResourceRefs(t *testing.T) {
	for _, in := range []string{
		`{"type":"object","properties":{"a":{"$id":"https://example.com/a","$defs":{"x":{"type":"string"}},"properties":{"y":{"$ref":"#/$defs/x"}}}},"$defs":{"x":{"type":"integer"}}}`,
		`{"$defs":{"x":{"$anchor":"x","type":"integer"}},"type":"object","properties":{"a":{"$id":"https://example.com/a","$defs":{"x":{"$anchor":"x","type":"string"}},"properties":{"y":{"$ref":"#x"}}}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"id":"http://example.com/a","definitions":{"x":{"type":"string"}},"properties":{"y":{"$ref":"#/definitions/x"}}}},"definitions":{"x":{"type":"integer"}}}`,
	} {
		s := runtime.NewSchema("t", []byte(in))
		if s.Validate([]byte(`{"a":{"y":"s"}}`)) != nil || s.Validate([]byte(`{"a":{"y":1}}`)) == nil {
			t.Fatalf("%s: the validator takes a.y for something else than a string", in)
		}
		decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		p := decls[0].Parameters
		if p == nil {
			t.Errorf("%s: declared in the JSON Schema form, want the typed form", in)
			continue
		}
		if y := p.Property("a").Property("y"); y == nil || y.Type != "STRING" {
			b, _ := json.Marshal(p)
			t.Errorf("%s: declared as %s, want a.y a STRING", in, b)
		}
	}
}
