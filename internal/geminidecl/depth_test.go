package geminidecl

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestDeepSchemaIsDeclaredInTheJSONSchemaForm checks that a schema nesting
// deeper than the typed form goes is declared in the JSON Schema form, as
// a schema too large to expand is: it failed the declarations of every
// tool of the list, so that one such tool kept a Gemini toolset from being
// made while Claude and OpenAI declared them all.
func TestDeepSchemaIsDeclaredInTheJSONSchemaForm(t *testing.T) {
	for _, levels := range []int{maxDepth + 1, 3 * maxDepth} {
		deep := strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"string"}` + strings.Repeat(`}}`, levels)
		tools := []runtime.Tool{
			{Name: "deep", InputSchema: json.RawMessage(deep)},
			{Name: "flat", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		}
		decls, _, err := Declare(tools, nil, false)
		if err != nil {
			t.Fatalf("%d levels: %v", levels, err)
		}
		if decls[0].Parameters != nil || string(decls[0].ParametersJSONSchema) != deep {
			t.Errorf("%d levels: deep is not declared in the JSON Schema form", levels)
		}
		if decls[1].Parameters == nil || decls[1].Parameters.Property("q") == nil {
			t.Errorf("%d levels: flat is not declared in the typed form", levels)
		}
	}
	// Up to the limit, the typed form holds the schema.
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, maxDepth) + `{"type":"string"}` + strings.Repeat(`}}`, maxDepth)
	decls, _, err := Declare([]runtime.Tool{{Name: "deep", InputSchema: json.RawMessage(deep)}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if decls[0].Parameters == nil {
		t.Errorf("%d levels: declared in the JSON Schema form, want the typed form", maxDepth)
	}
}

// TestLongRefChainIsDeclaredInTheJSONSchemaForm checks that a property
// reached through a chain of $refs longer than the typed form expands is
// declared in the JSON Schema form, as a schema nesting too deep is: the
// declarations failed for it, though the schema is valid and its
// arguments validate.
func TestLongRefChainIsDeclaredInTheJSONSchemaForm(t *testing.T) {
	chain := func(n int) string {
		var defs []string
		for i := 0; i < n; i++ {
			defs = append(defs, `"d`+strconv.Itoa(i)+`":{"$ref":"#/$defs/d`+strconv.Itoa(i+1)+`"}`)
		}
		defs = append(defs, `"d`+strconv.Itoa(n)+`":{"type":"string"}`)
		return `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"x":{"$ref":"#/$defs/d0"}}}`
	}
	for _, n := range []int{maxFlatten + 1, 100, 300} {
		in := chain(n)
		decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, nil, false)
		if err != nil {
			t.Fatalf("a chain of %d $refs: %v", n, err)
		}
		if decls[0].Parameters != nil || string(decls[0].ParametersJSONSchema) != in {
			t.Errorf("a chain of %d $refs is not declared in the JSON Schema form", n)
		}
	}
	decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(chain(10))}}, nil, false)
	if err != nil || decls[0].Parameters == nil || decls[0].Parameters.Property("x") == nil {
		t.Errorf("a chain of 10 $refs: %v, want the typed form", err)
	}
}
