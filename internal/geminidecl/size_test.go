package geminidecl

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestTypedFormTextIsBounded checks that a schema whose typed form would
// repeat a long text at every use of a definition is declared in the JSON
// Schema form: a schema of 48 KB, a 20 KB description used by a thousand
// properties, was declared in a typed form of 20 MB, which every request
// carries. The typed form holds at most 1 MiB more text than the schema.
func TestTypedFormTextIsBounded(t *testing.T) {
	long := strings.Repeat("x", 20000)
	for _, def := range []string{
		`{"type":"string","description":"` + long + `"}`,
		`{"type":"string","enum":["` + long + `"]}`,
		`{"type":"string","description":"d","default":"` + long + `"}`,
		`{"type":"string","pattern":"` + long + `"}`,
	} {
		props := make([]string, 1000)
		for i := range props {
			props[i] = fmt.Sprintf(`"p%d":{"$ref":"#/$defs/D"}`, i)
		}
		in := `{"type":"object","$defs":{"D":` + def + `},"properties":{` + strings.Join(props, ",") + `}}`
		decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(decls[0].AppendJSON(nil)); decls[0].Parameters != nil || n > len(in)+1<<20 {
			t.Errorf("definition %.40s…: a declaration of %d bytes for a schema of %d, typed form %v; want the JSON Schema form", def, n, len(in), decls[0].Parameters != nil)
		}
	}
	// A long text used once stays in the typed form.
	in := `{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("x", 2<<20) + `"}}}`
	decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if decls[0].Parameters == nil {
		t.Error("a 2 MiB description used once: declared in the JSON Schema form, want the typed form")
	}
}
