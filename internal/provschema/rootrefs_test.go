package provschema

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestRootRefsIntoRemovedKeywordsResolve checks that a $ref into a part of
// the top level that Root removes (a top-level anyOf, oneOf or allOf, or
// what a top-level $ref pointed at) still resolves in the declared schema:
// the reference was left pointing at nothing, a schema the providers'
// validators refuse.
func TestRootRefsIntoRemovedKeywordsResolve(t *testing.T) {
	cases := []string{
		`{"type":"object","anyOf":[{"properties":{"a":{"type":"string"}}}],"properties":{"b":{"$ref":"#/anyOf/0/properties/a"}}}`,
		`{"type":"object","oneOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"c":{"type":"integer"}}}],"properties":{"b":{"$ref":"#/oneOf/1/properties/c"}}}`,
		`{"type":"object","allOf":[{"properties":{"a":{"type":"string","maxLength":3}}}],"properties":{"b":{"$ref":"#/allOf/0/properties/a"}}}`,
		`{"type":"object","anyOf":[{"$anchor":"item","type":"object","properties":{"x":{"type":"string"}}}],"properties":{"list":{"type":"array","items":{"$ref":"#item"}}}}`,
		`{"type":"object","anyOf":[{"properties":{"a":{"type":"object","properties":{"next":{"$ref":"#/anyOf/0/properties/a"}}}}}],"properties":{"b":{"$ref":"#/anyOf/0/properties/a"}}}`,
	}
	for _, in := range cases {
		root, _, err := Root("t", []byte(in))
		if err != nil {
			t.Errorf("Root(%s): %v", in, err)
			continue
		}
		declared := root.String()
		if err := runtime.NewSchema("t", []byte(declared)).Compile(); err != nil {
			t.Errorf("Root(%s) = %s\nwhich does not compile: %v", in, declared, err)
			continue
		}
		// The declared property means what the server's does (a oneOf
		// at the top level, which Root leaves out, refuses what both
		// of its branches take).
		if strings.Contains(in, "oneOf") {
			continue
		}
		for _, args := range []string{`{"b":"xy"}`, `{"b":"long"}`, `{"b":1}`} {
			want := runtime.NewSchema("t", []byte(in)).Validate([]byte(args)) == nil
			got := runtime.NewSchema("t", []byte(declared)).Validate([]byte(args)) == nil
			if got != want {
				t.Errorf("Root(%s) = %s\naccepts %s: %v, the server's schema: %v", in, declared, args, got, want)
			}
		}
	}
}

// TestStripAddedNullsTypeBesideEnum checks that the null a strict model
// sends for an optional property is removed when the property's enum, const
// or anyOf lists null but its type does not: the server refuses the null
// (every keyword must hold), and the keyword first found decided alone.
func TestStripAddedNullsTypeBesideEnum(t *testing.T) {
	schema := `{"type":"object","properties":{
		"e":{"type":"string","enum":["a","b",null]},
		"u":{"type":"string","anyOf":[{"maxLength":3},{"type":"null"}]},
		"n":{"type":["string","null"],"enum":["a",null]}
	}}`
	doc, err := jsontree.ParseUnique([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{`{"e":null}`, `{}`},
		{`{"u":null}`, `{}`},
		{`{"n":null}`, `{"n":null}`},
	}
	checkStripped(t, doc, schema, cases)
}

// TestPureRefCyclesDeclaredAsGeminiDoes checks the Claude and OpenAI side
// of a $ref that leads back to itself through bare $refs only, where the
// validator refuses every value: below the root the tool is declared, as
// the Gemini declarations now declare it, with the server's schema, which
// the shared validator checks the model's arguments against; at the root,
// where no arguments are valid, it is an error naming the tool and the
// pointer, as the Gemini declarations give.
func TestPureRefCyclesDeclaredAsGeminiDoes(t *testing.T) {
	below := `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"b":{"type":"string"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`
	root, _, err := Root("t", []byte(below))
	if err != nil || root.String() != below {
		t.Errorf("Root(%s) = %v, %v; want the schema as it is", below, root, err)
	}
	for in, want := range map[string]string{
		`{"$ref":"#"}`: `tool t: input schema at /$ref: $ref "#" is reached again inside itself: a recursive schema cannot be merged`,
		`{"type":"object","allOf":[{"$ref":"#/$defs/x"}],"$defs":{"x":{"$ref":"#/$defs/x"}}}`: `tool t: input schema at /$defs/x/$ref: $ref "#/$defs/x" is reached again inside itself: a recursive schema cannot be merged`,
	} {
		if _, _, err := Root("t", []byte(in)); err == nil || err.Error() != want {
			t.Errorf("Root(%s): error %v, want %s", in, err, want)
		}
	}
}
