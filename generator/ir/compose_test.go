package ir

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// allOfChain is a tool list whose $defs L0…L(depth-1) each say
// allOf: [{$ref: L(i+1)}, {$ref: L(i+1)}], above an object with one property
// of type leaf: following every reference reaches the leaf 2^depth times.
func allOfChain(depth int, leaf string) string {
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"allOf":[{"$ref":"#/$defs/L%d"},{"$ref":"#/$defs/L%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","properties":{"x":{"type":%q}}}`, depth, leaf))
	return `[{"name":"t","inputSchema":{"type":"object","$defs":{` + strings.Join(defs, ",") +
		`},"properties":{"a":{"$ref":"#/$defs/L0"}}}}]`
}

// TestAllOfFanOutMergedOnce checks that allOf merges each $ref target once:
// a chain of 10 levels that each reference the next level twice took 1,024
// merges of the last level (and 34 s at 15 levels).
func TestAllOfFanOutMergedOnce(t *testing.T) {
	const depth = 10
	pkg, err := build(t, allOfChain(depth, "string"))
	if err != nil {
		t.Fatal(err)
	}
	a := pkg.Tools[0].Args.Fields[0].Type.Underlying()
	if a.Kind != Struct || len(a.Fields) != 1 || a.Fields[0].JSONName != "x" || a.Fields[0].Type.Underlying().Kind != String {
		t.Fatalf("property a = %+v, want a struct with the string property x", a)
	}
	// Each level is converted and merged a bounded number of times.
	if limit := 10 * depth; pkg.steps > limit {
		t.Errorf("the build took %d steps for %d levels, want at most %d", pkg.steps, depth, limit)
	}
}

// TestBuildStopsWhenContextDone checks that a done Options.Context stops the
// build with an error naming the tool and the schema.
func TestBuildStopsWhenContextDone(t *testing.T) {
	s, err := snapshot.Read("t.json", []byte(allOfChain(3, "string")))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = BuildOptions(s.Tools, Options{Context: ctx})
	var se *StoppedError
	if !errors.As(err, &se) || !errors.Is(err, context.Canceled) || se.Tool != "t" || se.Pointer != "/inputSchema" {
		t.Fatalf("BuildOptions with a cancelled context: %v, want a *StoppedError for tool t at /inputSchema", err)
	}
	if want := `building the Go types stopped at tool "t", /inputSchema: context canceled`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

// TestSchemaStepLimit checks that a schema whose every path makes a type of
// its own (a $ref with a constraint beside it, twice per level) stops at
// Limits.MaxSchemaSteps with an error naming the tool and the pointer,
// instead of making 2^depth types.
func TestSchemaStepLimit(t *testing.T) {
	const depth = 12
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","properties":{"p":{"$ref":"#/$defs/L%d","minLength":1},"q":{"$ref":"#/$defs/L%d","minLength":1}}}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":"string"}`, depth))
	doc := `[{"name":"t","inputSchema":{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"a":{"$ref":"#/$defs/L0"}}}}]`
	s, err := snapshot.Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	_, err = BuildLimited(s.Tools, Limits{MaxSchemaSteps: 1000})
	if err == nil || !strings.HasPrefix(err.Error(), `tool "t": /inputSchema/$defs/L0/properties/`) ||
		!strings.HasSuffix(err.Error(), "the schema takes more than 1000 steps to convert (conversions and allOf merges): it reaches its definitions through too many paths") {
		t.Errorf("BuildLimited: %v", err)
	}
	// The default limit leaves room for the whole corpus: its largest
	// schema takes 899 steps, and this one, at 12 levels, 32,763.
	pkg, err := build(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	if pkg.steps > DefaultMaxSchemaSteps {
		t.Errorf("%d steps, over the default limit", pkg.steps)
	}
}
