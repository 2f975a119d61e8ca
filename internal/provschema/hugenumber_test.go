package provschema

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestNumberBeyondFloat64 checks that a number a float64 cannot hold is
// refused with the tool's name and the number's pointer: the declaration
// passed it on to an API that reads numbers as float64.
func TestNumberBeyondFloat64(t *testing.T) {
	in := `{"type":"object","properties":{"a":{"type":"integer","maximum":1e400}}}`
	want := "tool t: input schema at /properties/a/maximum: the number 1e400 is beyond the range of a float64, which the provider reads JSON numbers as"
	for _, rules := range []toolname.Rules{toolname.Anthropic, toolname.OpenAI} {
		_, _, err := Declare("P", []runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, rules)
		if err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}

// TestRefNotAURIReference checks that a $ref that is not a URI reference
// is refused with the tool's name and its pointer, as runtime.Schema
// refuses to compile it: the declaration passed it on, and every call of
// the tool then failed validation.
func TestRefNotAURIReference(t *testing.T) {
	in := `{"type":"object","$defs":{"a%zz":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a%zz"}}}`
	want := `tool t: input schema at /properties/x/$ref: $ref "#/$defs/a%zz" is not a valid URI reference: invalid URL escape "%zz"`
	for _, rules := range []toolname.Rules{toolname.Anthropic, toolname.OpenAI} {
		_, _, err := Declare("P", []runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, rules)
		if err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}
