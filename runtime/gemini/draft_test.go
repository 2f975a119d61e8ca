package gemini

import (
	"encoding/json"
	"slices"
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

// TestRefSiblingPropertiesOrder declares a 2020-12 property whose $ref has
// properties beside it. The two apply as allOf: [siblings, target], so the
// declaration lists the siblings' properties first, in the order of the
// generated Go struct, and keeps the description beside the $ref.
func TestRefSiblingPropertiesOrder(t *testing.T) {
	schema := json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"properties":{"p":{"$ref":"#/$defs/base","description":"Use.","properties":{"extra":{"type":"number"}},"required":["extra"]}},` +
		`"$defs":{"base":{"type":"object","description":"Def.","properties":{"id":{"type":"string"}},"required":["id"]}}}`)
	decls, _, err := Declarations([]runtime.Tool{{Name: "t", Description: "d", InputSchema: schema}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := decls[0].Parameters.Properties["p"]
	if p == nil || !slices.Equal(p.PropertyOrdering, []string{"extra", "id"}) || !slices.Equal(p.Required, []string{"extra", "id"}) || p.Description != "Use." {
		t.Errorf("p = %+v, want properties and required [extra id], described as %q", p, "Use.")
	}
}
