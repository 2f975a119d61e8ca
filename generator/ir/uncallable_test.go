package ir

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// TestUnsatisfiable checks which input schemas count as admitting no value:
// only what no validator lets through, reached through required
// properties, never a schema some value satisfies.
func TestUnsatisfiable(t *testing.T) {
	for _, tc := range []struct{ schema, at string }{
		{`false`, "/inputSchema"},
		{`{"type":"object","properties":{"a":{"enum":[]}},"required":["a"]}`, "/inputSchema/properties/a/enum"},
		{`{"type":"object","properties":{"a":{"type":"string","enum":[1,null]}},"required":["a"]}`, "/inputSchema/properties/a/enum"},
		{`{"type":"object","properties":{"a":{"type":"integer","const":1.5}},"required":["a"]}`, "/inputSchema/properties/a/const"},
		{`{"type":"object","properties":{"a":{"not":{}}},"required":["a"]}`, "/inputSchema/properties/a/not"},
		{`{"type":"object","properties":{"a":false},"required":["a"]}`, "/inputSchema/properties/a"},
		{`{"type":"object","properties":{"a":{"type":"string","minLength":5,"maxLength":2}},"required":["a"]}`, "/inputSchema/properties/a/minLength"},
		{`{"type":"object","properties":{"a":{"type":"integer","minimum":10,"maximum":1e0}},"required":["a"]}`, "/inputSchema/properties/a/minimum"},
		{`{"type":"object","properties":{"a":{"anyOf":[{"enum":[]},false]}},"required":["a"]}`, "/inputSchema/properties/a/anyOf"},
		{`{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"enum":[]}]}},"required":["a"]}`, "/inputSchema/properties/a/allOf/1/enum"},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/e"}},"required":["a"],"$defs":{"e":{"enum":[]}}}`, "/inputSchema/$defs/e/enum"},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"b":{"enum":[]}},"required":["b"]}},"required":["o"]}`, "/inputSchema/properties/o/properties/b/enum"},
		{`{"type":"object","properties":{},"required":["x"],"additionalProperties":false}`, "/inputSchema/required/0"},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"required":["a"],"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`, "/inputSchema/properties/a/$ref"},
		{`{"type":"object","properties":{"a":{"type":"string","$ref":"#/$defs/x"}},"required":["a"],"$defs":{"x":{"$anchor":"x","$ref":"#x"}}}`, "/inputSchema/$defs/x/$ref"},
		{`{"$ref":"#"}`, "/inputSchema/$ref"},
		{`{"type":"object","allOf":[{"$ref":"#/$defs/x"}],"$defs":{"x":{"$ref":"#/$defs/x"}}}`, "/inputSchema/allOf/0/$ref"},
		// Satisfiable: an optional property can be left out; a schema
		// that allows other types than object ignores required; an enum
		// with a value of the type; a reference to the root.
		{`{"type":"object","properties":{"a":{"enum":[]}}}`, ""},
		{`{"type":["object","string"],"properties":{"a":{"enum":[]}},"required":["a"]}`, ""},
		{`{"properties":{"a":false},"required":["a"]}`, ""},
		{`{"type":"object","properties":{"a":{"type":"integer","enum":["x",2]}},"required":["a"]}`, ""},
		{`{"type":"object","properties":{"a":{"type":"integer","const":2.0}},"required":["a"]}`, ""},
		{`{"type":"object","properties":{"a":{"anyOf":[{"enum":[]},{"type":"string"}]}},"required":["a"]}`, ""},
		{`{"type":"object","properties":{"a":{"type":["string","number"],"minLength":5,"maxLength":2}},"required":["a"]}`, ""},
		{`{"type":"object","properties":{"a":{"$ref":"#"}}}`, ""},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/x"}}}`, ""},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"required":["a"],"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"type":"string"}}}`, ""},
		{`{"type":"object","properties":{},"required":["x"],"patternProperties":{"^x$":{}},"additionalProperties":false}`, ""},
	} {
		doc, err := jsontree.Parse([]byte(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		at, why := unsatisfiable(doc, "/inputSchema")
		if at != tc.at || (at != "") != (why != "") {
			t.Errorf("unsatisfiable(%s) = %q, %q, want %q", tc.schema, at, why, tc.at)
		}
	}
}
