package gemini

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/runtime"
)

// FuzzDeclarations checks that no input schema makes Declarations panic,
// and that whatever it declares passes the Gemini checker.
func FuzzDeclarations(f *testing.F) {
	for _, c := range declCases {
		f.Add(c.schema)
	}
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#"}}}`)
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`)
	f.Add(`{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/properties/a"}]}}}`)
	f.Add(`{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#/properties/a"},{"type":"null"}]}}}`)
	f.Fuzz(func(t *testing.T, schema string) {
		decls, _, err := Declarations([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(schema)}}, nil)
		if err != nil {
			return
		}
		for _, err := range providertest.CheckGemini(decls) {
			t.Errorf("schema %s: %v", schema, err)
		}
	})
}
