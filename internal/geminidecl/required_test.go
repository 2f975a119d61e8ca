package geminidecl

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestArgumentsTheTypedFormCannotHold checks that a tool whose arguments
// the typed form cannot name (keys a patternProperties schema describes, a
// required name that properties does not describe) is declared in the JSON
// Schema form: such a root was declared as taking no parameters at all, in
// both forms, and a required name missing from properties was dropped, so
// the model could send nothing the server requires and every call failed.
func TestArgumentsTheTypedFormCannotHold(t *testing.T) {
	for _, in := range []string{
		`{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`,
		`{"type":"object","required":["q"]}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","q"]}`,
		`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string"}},"required":["q"]}}}`,
	} {
		for _, jsonSchema := range []bool{false, true} {
			decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, nil, jsonSchema)
			if err != nil {
				t.Fatal(err)
			}
			d := decls[0]
			if d.Parameters != nil || string(d.ParametersJSONSchema) != in {
				b, _ := json.Marshal(d.Parameters)
				t.Errorf("%s (JSON Schema form %v): parameters %s, JSON Schema %s; want the schema in the JSON Schema form", in, jsonSchema, b, d.ParametersJSONSchema)
			}
		}
	}
}
