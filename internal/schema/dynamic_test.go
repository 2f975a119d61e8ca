package schema

import "testing"

// TestStaticRefs replaces each $dynamicRef by the $ref it resolves to: the
// outermost $dynamicAnchor of the root resource when the static target is
// a dynamic anchor too, the static target otherwise.
func TestStaticRefs(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"$dynamicAnchor":"node","properties":{"kids":{"items":{"$dynamicRef":"#node"}}}}`,
			`{"$dynamicAnchor":"node","properties":{"kids":{"items":{"$ref":"#"}}}}`},
		// The embedded resource's own anchor yields to the root's.
		{`{"$dynamicAnchor":"n","$defs":{"x":{"$id":"https://e.com/x","$dynamicAnchor":"n","items":{"$dynamicRef":"#n"}}}}`,
			`{"$dynamicAnchor":"n","$defs":{"x":{"$id":"https://e.com/x","$dynamicAnchor":"n","items":{"$ref":"#"}}}}`},
		// A plain $anchor is no bookend: the reference stays static.
		{`{"$defs":{"a":{"$anchor":"a","type":"string"}},"items":{"$dynamicRef":"#a"}}`,
			`{"$defs":{"a":{"$anchor":"a","type":"string"}},"items":{"$ref":"#/$defs/a"}}`},
		{`{"$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a","$dynamicRef":"#/$defs/a"}`,
			`{"$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a","allOf":[{"$ref":"#/$defs/a"}]}`},
		{`{"items":{"$dynamicRef":"https://other.example/s#n"}}`, `{"items":{"$dynamicRef":"https://other.example/s#n"}}`},
		{`{"items":{"$dynamicRef":"#missing"}}`, `{"items":{"$dynamicRef":"#missing"}}`},
		{`{"properties":{"x":{"$recursiveRef":"#"}}}`, `{"properties":{"x":{"$ref":"#"}}}`},
		{`{"const":{"$dynamicRef":"#x"}}`, `{"const":{"$dynamicRef":"#x"}}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":{"$dynamicRef":"#x"}}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","items":{"$dynamicRef":"#x"}}`},
	} {
		doc := parse(t, tc.doc)
		before := doc.String()
		if got := StaticRefs(doc).String(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.doc, got, tc.want)
		}
		if doc.String() != before {
			t.Errorf("%s: the document was changed", tc.doc)
		}
	}
}
