package geminidecl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestRefNotAURIReference checks that a $ref that is not a URI reference
// (a malformed %-escape) is refused with the tool's name and the $ref's
// pointer, in both forms, as runtime.Schema refuses to compile it: the
// typed form read "%zz" as it was and declared a tool every call of which
// failed validation.
func TestRefNotAURIReference(t *testing.T) {
	for _, in := range []string{
		`{"type":"object","$defs":{"a%zz":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a%zz"}}}`,
		`{"type":"object","$defs":{"a%":{"type":"string"}},"properties":{"x":{"type":"array","items":{"$ref":"#/$defs/a%"}}}}`,
	} {
		for _, jsonSchema := range []bool{false, true} {
			_, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, nil, jsonSchema)
			if err == nil || !strings.HasPrefix(err.Error(), "tool t: input schema at /properties/x/") || !strings.Contains(err.Error(), "not a valid URI reference") {
				t.Errorf("%s (JSON Schema form %v): %v, want an error naming the tool and the $ref", in, jsonSchema, err)
			}
		}
	}
	// A %-escape that is well formed still resolves.
	in := `{"type":"object","$defs":{"a b":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a%20b"}}}`
	decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, nil, false)
	if err != nil || decls[0].Parameters == nil || decls[0].Parameters.Property("x") == nil || decls[0].Parameters.Property("x").Type != TypeString {
		t.Errorf("a well-formed escape: %v", err)
	}
}
