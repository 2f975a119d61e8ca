package diff

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestRefInsideEmbeddedResource changes the type a $ref resolves to inside
// a schema with a $id of its own, which the $ref resolves against: the
// property's type changed. Changing the root's definition of the same name
// changes nothing the property reads.
func TestRefInsideEmbeddedResource(t *testing.T) {
	schema := func(inner, root string) runtime.Tool {
		return inTool(`{"type":"object","properties":{"a":{"$id":"https://example.com/a","$defs":{"x":{"type":"` + inner + `"}},` +
			`"properties":{"y":{"$ref":"#/$defs/x"}}}},"$defs":{"x":{"type":"` + root + `"}}}`)
	}
	atY := func(cs []Change) bool {
		for _, c := range cs {
			if strings.HasPrefix(c.Pointer, "/properties/a/properties/y") {
				return true
			}
		}
		return false
	}
	cs, err := Tools([]runtime.Tool{schema("string", "integer")}, []runtime.Tool{schema("boolean", "integer")})
	if err != nil {
		t.Fatal(err)
	}
	if !atY(cs) {
		t.Errorf("a.y from string to boolean: got%s, want a change at /properties/a/properties/y", fmtWants(wants(cs)))
	}
	cs, err = Tools([]runtime.Tool{schema("string", "integer")}, []runtime.Tool{schema("string", "boolean")})
	if err != nil {
		t.Fatal(err)
	}
	if atY(cs) {
		t.Errorf("the root's $defs/x from integer to boolean: got%s, want no change at /properties/a/properties/y", fmtWants(wants(cs)))
	}
}
