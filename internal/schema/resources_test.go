package schema_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestStaticRefsResolveInEmbeddedResources checks that a $ref that is a
// fragment, inside a schema with a $id of its own (draft-04's id), resolves
// against that schema after StaticRefs, as the validator resolves it, and
// not against the document's root.
func TestStaticRefsResolveInEmbeddedResources(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		// at is the pointer of the schema holding the $ref, and want the
		// pointer of its target.
		at, want string
		// good is accepted by the document, bad refused, as the validator
		// reads it.
		good, bad string
	}{
		{"pointer",
			`{"type":"object","properties":{"a":{"$id":"https://example.com/a","$defs":{"x":{"type":"string"}},"properties":{"y":{"$ref":"#/$defs/x"}}}},"$defs":{"x":{"type":"integer"}}}`,
			"/properties/a/properties/y", "/properties/a/$defs/x", `{"a":{"y":"s"}}`, `{"a":{"y":1}}`},
		{"anchor",
			`{"$defs":{"x":{"$anchor":"x","type":"integer"}},"type":"object","properties":{"a":{"$id":"https://example.com/a","$defs":{"x":{"$anchor":"x","type":"string"}},"properties":{"y":{"$ref":"#x"}}}}}`,
			"/properties/a/properties/y", "/properties/a/$defs/x", `{"a":{"y":"s"}}`, `{"a":{"y":1}}`},
		{"innermost",
			`{"type":"object","properties":{"a":{"$id":"https://example.com/a","$defs":{"x":{"type":"string"}},"properties":{"b":{"$id":"https://example.com/b","$defs":{"x":{"type":"boolean"}},"properties":{"y":{"$ref":"#/$defs/x"}}}}}},"$defs":{"x":{"type":"integer"}}}`,
			"/properties/a/properties/b/properties/y", "/properties/a/properties/b/$defs/x", `{"a":{"b":{"y":true}}}`, `{"a":{"b":{"y":"s"}}}`},
		{"relative $id",
			`{"$id":"https://example.com/root.json","type":"object","properties":{"a":{"$id":"a.json","$defs":{"x":{"type":"string"}},"properties":{"y":{"$ref":"#/$defs/x"}}}},"$defs":{"x":{"type":"integer"}}}`,
			"/properties/a/properties/y", "/properties/a/$defs/x", `{"a":{"y":"s"}}`, `{"a":{"y":1}}`},
		{"the resource itself",
			`{"type":"object","properties":{"a":{"$id":"https://example.com/a","type":"object","properties":{"next":{"$ref":"#"}},"required":["k"]}}}`,
			"/properties/a/properties/next", "/properties/a", `{"a":{"k":1,"next":{"k":2}}}`, `{"a":{"k":1,"next":{}}}`},
		{"draft-04 id",
			`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"id":"http://example.com/a","definitions":{"x":{"type":"string"}},"properties":{"y":{"$ref":"#/definitions/x"}}}},"definitions":{"x":{"type":"integer"}}}`,
			"/properties/a/properties/y", "/properties/a/definitions/x", `{"a":{"y":"s"}}`, `{"a":{"y":1}}`},
		{"draft-07 $id beside $ref",
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$id":"http://example.com/a","$ref":"#/definitions/x","definitions":{"x":{"type":"string"}}}},"definitions":{"x":{"type":"integer"}}}`,
			"/properties/a", "/definitions/x", `{"a":1}`, `{"a":"s"}`},
		{"outside any resource",
			`{"type":"object","properties":{"a":{"$id":"https://example.com/a","$defs":{"x":{"type":"string"}}},"y":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"integer"}}}`,
			"/properties/y", "/$defs/x", `{"y":1}`, `{"y":"s"}`},
	} {
		s := runtime.NewSchema("t", []byte(tc.doc))
		if s.Validate([]byte(tc.good)) != nil || s.Validate([]byte(tc.bad)) == nil {
			t.Errorf("%s: the validator reads the document otherwise: %s %v, %s %v", tc.name, tc.good, s.Validate([]byte(tc.good)), tc.bad, s.Validate([]byte(tc.bad)))
			continue
		}
		doc, err := jsontree.Parse([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		before := doc.String()
		out := schema.StaticRefs(doc)
		if doc.String() != before {
			t.Errorf("%s: StaticRefs changed its argument", tc.name)
		}
		if again := schema.StaticRefs(out); again.String() != out.String() {
			t.Errorf("%s: StaticRefs read its own result otherwise:\n%s\n%s", tc.name, out, again)
		}
		n, err := out.Lookup(tc.at)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ref, _ := n.Get("$ref").StringValue()
		_, ptr, err := schema.Resolve(out, ref)
		if err != nil || ptr != tc.want {
			t.Errorf("%s: the $ref at %s resolves to %q (%v), want %q", tc.name, tc.at, ptr, err, tc.want)
		}
		if got := runtime.NewSchema("t", []byte(out.String())); got.Validate([]byte(tc.good)) != nil || got.Validate([]byte(tc.bad)) == nil {
			t.Errorf("%s: StaticRefs gave %s, which the validator reads otherwise", tc.name, out)
		}
	}
}
