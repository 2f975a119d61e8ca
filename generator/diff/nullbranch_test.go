package diff

import (
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestNullBranchSpellings drops the null branch of a union spelled in each
// way the generator and the Gemini converter read as null, a $ref to a
// null definition included: diff reports
// that the property is no longer nullable, as it does for {"type": "null"},
// rather than a removed branch.
func TestNullBranchSpellings(t *testing.T) {
	for _, null := range []string{`{"type":"null"}`, `{"type":["null"]}`, `{"const":null}`, `{"enum":[null]}`, `{"$ref":"#/$defs/none"}`} {
		old := inTool(`{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},` + null + `]}},"$defs":{"none":{"type":"null"}}}`)
		new := inTool(`{"type":"object","properties":{"x":{"type":"string"}}}`)
		cs, err := Tools([]runtime.Tool{old}, []runtime.Tool{new})
		if err != nil {
			t.Fatal(err)
		}
		rules := make([]Rule, len(cs))
		for i, c := range cs {
			rules[i] = c.Rule
		}
		if !slices.Equal(rules, []Rule{NullableRemoved}) {
			t.Errorf("null branch %s: got%s, want only %s", null, fmtWants(wants(cs)), NullableRemoved)
		}
	}
}
