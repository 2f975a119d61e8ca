package geminidecl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// allOfChain is an input schema whose $defs L0…L(depth-1) each say
// allOf: [{$ref: L(i+1)}, {$ref: L(i+1)}], above an object with one string
// property: following every reference reaches it 2^depth times.
func allOfChain(depth int) string {
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"allOf":[{"$ref":"#/$defs/L%d"},{"$ref":"#/$defs/L%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","properties":{"x":{"type":"string"}}}`, depth))
	return `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"a":{"$ref":"#/$defs/L0"}}}`
}

// TestAllOfFanOutFlattenedOnce checks that each $ref target is flattened
// once per declaration: a chain of levels that each reference the next one
// twice was flattened once per path, 2^depth times.
func TestAllOfFanOutFlattenedOnce(t *testing.T) {
	const depth = 14
	schema := allOfChain(depth)
	root, err := jsontree.ParseUnique([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := &converter{tool: "t", root: root}
	s, pr, err := c.convert(root, nil, 0)
	if err != nil || pr != nil {
		t.Fatalf("convert: %v, %v", pr, err)
	}
	if x := s.Property("a").Property("x"); x == nil || x.Type != "STRING" {
		t.Fatalf("a.x = %+v, want a string", x)
	}
	if limit := 10 * depth; c.flat.Flattens > limit {
		t.Errorf("flatten ran %d times for %d levels, want at most %d", c.flat.Flattens, depth, limit)
	}
	// The whole declaration still passes.
	if _, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: []byte(schema)}}, nil, false); err != nil {
		t.Fatal(err)
	}
}

// TestFlattenDepthLimitWithSharedRefs checks that a $ref target flattened
// once still counts its levels where it is used again deeper down: there
// it is too deep to expand, and the tool is declared in the JSON Schema
// form.
func TestFlattenDepthLimitWithSharedRefs(t *testing.T) {
	// D0 → D1 → … → D60 is a chain of 61 $refs; P reaches D0 through 10
	// levels of allOf, after a first use of D0 at the top.
	var defs []string
	for i := range 60 {
		defs = append(defs, fmt.Sprintf(`"D%d":{"$ref":"#/$defs/D%d"}`, i, i+1))
	}
	defs = append(defs, `"D60":{"type":"string"}`)
	deep := `{"$ref":"#/$defs/D0"}`
	for range 10 {
		deep = `{"allOf":[` + deep + `]}`
	}
	schema := `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"a":{"$ref":"#/$defs/D0"},"b":` + deep + `}}`
	decls, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: []byte(schema)}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if decls[0].Parameters != nil || decls[0].ParametersJSONSchema == nil {
		t.Errorf("declared in the typed form, want the JSON Schema form for /properties/b, past the nesting limit")
	}
	// Used at the top only, the chain is within the limit.
	schema = `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"a":{"$ref":"#/$defs/D0"}}}`
	decls, _, err = Declare([]runtime.Tool{{Name: "t", InputSchema: []byte(schema)}}, nil, false)
	if err != nil || decls[0].Parameters == nil {
		t.Errorf("a chain of 61 $refs at the top: %v, want the typed form", err)
	}
}
