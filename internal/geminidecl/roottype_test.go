package geminidecl

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestJSONSchemaFormRootTypeList checks that the JSON Schema form of an
// input schema whose type is a list holding "object" declares type
// "object", as the typed form does: Gemini takes parameters that describe
// an object, and the list (["object","null"]) was declared as it came,
// both when asked for and when the typed form fell back to it.
func TestJSONSchemaFormRootTypeList(t *testing.T) {
	for _, c := range []struct {
		in, want   string
		jsonSchema bool
	}{
		{`{"type":["object","null"],"properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`, true},
		{`{ "properties": {"a-b": {"type": "string"}}, "type": ["null", "object"] }`, `{"properties":{"a-b":{"type":"string"}},"type":"object"}`, false},
		{`{"type":["object"],"properties":{"é":{"type":"string","description":"\u00e9"}}}`, `{"type":"object","properties":{"é":{"type":"string","description":"é"}}}`, false},
		// A root of type "object" keeps its bytes, compacted.
		{`{"type": "object", "properties": {"a": {"type": "string", "description": "\u00e9"}}}`, `{"type":"object","properties":{"a":{"type":"string","description":"\u00e9"}}}`, true},
	} {
		decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(c.in)}}, nil, c.jsonSchema)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := string(decls[0].ParametersJSONSchema); got != c.want {
			t.Errorf("%s: JSON Schema form %s, want %s", c.in, got, c.want)
		}
	}
}
