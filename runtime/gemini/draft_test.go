package gemini

import (
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestDraft07RefSiblings declares a draft-07 property whose $ref has a type
// beside it that contradicts the target. Up to draft-07 a $ref replaces the
// object it is in, as the validators and the Go types read it, so the
// declaration takes the target's type and keeps only the description
// beside the $ref; in 2020-12 the two types have no value in common.
func TestDraft07RefSiblings(t *testing.T) {
	schema := func(draft string) json.RawMessage {
		return json.RawMessage(`{"$schema":"` + draft + `","type":"object","properties":{"x":{"$ref":"#/definitions/s","type":"integer","description":"Use."}},` +
			`"definitions":{"s":{"type":"string","description":"Def."}}}`)
	}
	decls, _, err := Declarations([]runtime.Tool{{Name: "d7", Description: "d", InputSchema: schema("http://json-schema.org/draft-07/schema#")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := decls[0].Parameters.Properties["x"]
	if x == nil || x.Type != genai.TypeString || x.Description != "Use." {
		t.Errorf("x = %+v, want a STRING described as %q", x, "Use.")
	}
	if _, _, err := Declarations([]runtime.Tool{{Name: "d20", Description: "d", InputSchema: schema("https://json-schema.org/draft/2020-12/schema")}}, nil); err == nil {
		t.Error("2020-12: the contradicting types declared without error")
	}
}
