package diff

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestDraft07RefSiblingsIgnored removes a type written beside a $ref: up
// to draft-07 validators ignore it, as the generated code does, so nothing
// changed; in 2020-12 it applied, so the property's type widened.
func TestDraft07RefSiblingsIgnored(t *testing.T) {
	schema := func(draft, sibling string) runtime.Tool {
		return inTool(`{"$schema":"` + draft + `","type":"object","properties":{"x":{"$ref":"#/definitions/n"` + sibling + `,"description":"Use."}},` +
			`"definitions":{"n":{"type":["integer","string"]}}}`)
	}
	const d7, d2020 = "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"
	cs, err := Tools([]runtime.Tool{schema(d7, `,"type":"integer"`)}, []runtime.Tool{schema(d7, "")})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 0 {
		t.Errorf("draft-07: got%s, want no change", fmtWants(wants(cs)))
	}
	cs, err = Tools([]runtime.Tool{schema(d2020, `,"type":"integer"`)}, []runtime.Tool{schema(d2020, "")})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Error("2020-12: removing the type beside the $ref changed nothing")
	}
}
