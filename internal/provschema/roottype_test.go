package provschema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestRootTypeListWithObject checks that an input schema whose type is a
// list holding "object" is declared as an object, as the Gemini
// declarations take it: Claude's and OpenAI's declarations of the whole
// tool list failed on it. A type list without "object" still fails.
func TestRootTypeListWithObject(t *testing.T) {
	for _, typ := range []string{`["object"]`, `["object","null"]`, `["null","object"]`} {
		in := `{"type":` + typ + `,"properties":{"x":{"type":"string"}},"required":["x"]}`
		tools := []runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}, {Name: "u"}}
		for _, rules := range []toolname.Rules{toolname.Anthropic, toolname.OpenAI} {
			decls, _, err := Declare("P", tools, rules)
			if err != nil {
				t.Errorf("%s: %v", in, err)
				continue
			}
			root := decls[0].Root
			if typ, _ := root.Get("type").StringValue(); typ != "object" || root.Get("properties").Get("x") == nil {
				t.Errorf("%s: declared as %s, want an object with property x", in, root.String())
			}
			if _, reason := StrictDecl(decls[0]); reason != "" {
				t.Errorf("%s: no strict form: %s", in, reason)
			}
		}
	}
	_, _, err := Declare("P", []runtime.Tool{{Name: "t", InputSchema: json.RawMessage(`{"type":["string","null"]}`)}}, toolname.OpenAI)
	if err == nil || !strings.Contains(err.Error(), `type is ["string","null"], not object`) {
		t.Errorf("a root of type [\"string\",\"null\"]: %v, want an error", err)
	}
}

// TestRootFalseSchema checks that an input schema of false, which allows no
// arguments, is declared as an object without properties, as the Gemini
// declarations declare it without parameters: Claude's and OpenAI's
// declarations of the whole tool list failed on it.
func TestRootFalseSchema(t *testing.T) {
	tools := []runtime.Tool{{Name: "t", InputSchema: json.RawMessage(`false`)}, {Name: "u", InputSchema: json.RawMessage(` false `)}}
	for _, rules := range []toolname.Rules{toolname.Anthropic, toolname.OpenAI} {
		decls, _, err := Declare("P", tools, rules)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range decls {
			if got := d.Root.String(); got != `{"type":"object","properties":{}}` {
				t.Errorf("%s: declared as %s, want an object without properties", d.Name, got)
			}
		}
	}
}
