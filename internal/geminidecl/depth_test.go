package geminidecl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestDeepSchemaIsDeclaredInTheJSONSchemaForm checks that a schema nesting
// deeper than the typed form goes is declared in the JSON Schema form, as
// a schema too large to expand is: it failed the declarations of every
// tool of the list, so that one such tool kept a Gemini toolset from being
// made while Claude and OpenAI declared them all.
func TestDeepSchemaIsDeclaredInTheJSONSchemaForm(t *testing.T) {
	for _, levels := range []int{maxDepth + 1, 3 * maxDepth} {
		deep := strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"string"}` + strings.Repeat(`}}`, levels)
		tools := []runtime.Tool{
			{Name: "deep", InputSchema: json.RawMessage(deep)},
			{Name: "flat", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		}
		decls, _, err := Declare(tools, nil, false)
		if err != nil {
			t.Fatalf("%d levels: %v", levels, err)
		}
		if decls[0].Parameters != nil || string(decls[0].ParametersJSONSchema) != deep {
			t.Errorf("%d levels: deep is not declared in the JSON Schema form", levels)
		}
		if decls[1].Parameters == nil || decls[1].Parameters.Property("q") == nil {
			t.Errorf("%d levels: flat is not declared in the typed form", levels)
		}
	}
	// Up to the limit, the typed form holds the schema.
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, maxDepth) + `{"type":"string"}` + strings.Repeat(`}}`, maxDepth)
	decls, _, err := Declare([]runtime.Tool{{Name: "deep", InputSchema: json.RawMessage(deep)}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if decls[0].Parameters == nil {
		t.Errorf("%d levels: declared in the JSON Schema form, want the typed form", maxDepth)
	}
}
