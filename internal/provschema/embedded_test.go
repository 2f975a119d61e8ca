package provschema

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestEmbeddedResourceRefs checks that a $ref inside a schema with a $id
// of its own, which resolves against that schema, keeps its meaning in the
// schemas declared to Anthropic and OpenAI (strict mode too, when it takes
// the schema): resolved against the root, the property would take the
// root's type.
func TestEmbeddedResourceRefs(t *testing.T) {
	for _, in := range []string{
		`{"type":"object","properties":{"a":{"$id":"https://example.com/a","$defs":{"x":{"type":"string"}},"properties":{"y":{"$ref":"#/$defs/x"}},"required":["y"],"additionalProperties":false}},"required":["a"],"$defs":{"x":{"type":"integer"}}}`,
		`{"$defs":{"x":{"$anchor":"x","type":"integer"}},"type":"object","properties":{"a":{"$id":"https://example.com/a","$defs":{"x":{"$anchor":"x","type":"string"}},"properties":{"y":{"$ref":"#x"}},"required":["y"],"additionalProperties":false}},"required":["a"]}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"id":"http://example.com/a","definitions":{"x":{"type":"string"}},"properties":{"y":{"$ref":"#/definitions/x"}},"required":["y"],"additionalProperties":false}},"required":["a"],"definitions":{"x":{"type":"integer"}}}`,
	} {
		root, _, err := Root("t", []byte(in))
		if err != nil {
			t.Errorf("Root(%s): %v", in, err)
			continue
		}
		strict, reason := Strict(root)
		declared := map[string]string{"Root": root.String()}
		if reason == "" {
			// Strict mode may also refuse the schema, which is then
			// declared without it.
			declared["Strict"] = strict.String()
		}
		for form, d := range declared {
			if err := runtime.NewSchema("t", []byte(d)).Compile(); err != nil {
				t.Errorf("%s(%s) = %s\nwhich does not compile: %v", form, in, d, err)
				continue
			}
			for _, args := range []string{`{"a":{"y":"s"}}`, `{"a":{"y":1}}`} {
				want := runtime.NewSchema("t", []byte(in)).Validate([]byte(args)) == nil
				got := runtime.NewSchema("t", []byte(d)).Validate([]byte(args)) == nil
				if got != want {
					t.Errorf("%s(%s) = %s\naccepts %s: %v, the server's schema: %v", form, in, d, args, got, want)
				}
			}
		}
	}
}
