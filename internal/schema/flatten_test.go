package schema

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// TestFlatten merges a schema's own keywords, its $ref's target and its
// allOf parts, in that order, keeping only the annotations beside a $ref
// up to draft-07.
func TestFlatten(t *testing.T) {
	for _, tc := range []struct{ doc, want, refs string }{
		{`{"type":"string"}`, `{"type":"string"}`, ""},
		{`{"$defs":{"a":{"type":"object","properties":{"x":{}}}},"$ref":"#/$defs/a","properties":{"y":{}},"description":"d"}`,
			`{"properties":{"y":{},"x":{}},"description":"d","type":"object"}`, "#/$defs/a"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","$defs":{"a":{"type":"integer"}},"$ref":"#/$defs/a","minimum":1,"title":"t","allOf":[{"maximum":2}]}`,
			`{"title":"t","type":"integer"}`, "#/$defs/a"},
		{`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"required":["p"]}},"allOf":[{"$ref":"#/$defs/a"},{"required":["q"]}]}`,
			`{"required":["p","q"]}`, "#/$defs/a #/$defs/b"},
		{`{"allOf":[true,false]}`, `{"not":{}}`, ""},
	} {
		doc := parse(t, tc.doc)
		f := &Flattener{Root: doc, Merge: func(dst, src *jsontree.Node, _ string) error {
			for _, m := range src.Members {
				if m.Key == "$defs" || m.Key == "$schema" {
					continue
				}
				merged, ok, err := MergeKeyword(m.Key, orNode(dst.Get(m.Key), m.Value), m.Value)
				if err != nil || !ok {
					return fmt.Errorf("%s: %v", m.Key, err)
				}
				dst.Set(m.Key, merged)
			}
			return nil
		}}
		got, refs, err := f.Flatten(doc, "")
		if err != nil {
			t.Errorf("%s: %v", tc.doc, err)
			continue
		}
		if got.String() != tc.want || strings.Join(refs, " ") != tc.refs {
			t.Errorf("%s:\n got %s %v\nwant %s %s", tc.doc, got, refs, tc.want, tc.refs)
		}
	}
}

func orNode(a, b *jsontree.Node) *jsontree.Node {
	if a == nil {
		return b
	}
	return a
}

// TestFlattenErrors names the JSON pointer of what cannot be flattened,
// and, leniently, keeps such a $ref as written.
// TestBareCycle tells the $refs that lead back to a schema they passed
// through bare $refs only from those that reach a schema, or stop.
func TestBareCycle(t *testing.T) {
	long := `{"$defs":{`
	for i := range 70 {
		long += fmt.Sprintf(`"d%d":{"$ref":"#/$defs/d%d"},`, i, (i+1)%70)
	}
	long = strings.TrimSuffix(long, ",") + `}}`
	for _, tc := range []struct {
		doc, at string
		want    bool
	}{
		{`{"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`, "/$defs/x", true},
		{`{"$defs":{"w":{"$ref":"#/$defs/x"},"x":{"$ref":"#/$defs/x","description":"d"}}}`, "/$defs/w", true},
		{`{"$defs":{"x":{"$anchor":"a","$ref":"#a"}}}`, "/$defs/x", true},
		{`{"$defs":{"x/y":{"$ref":"#/$defs/p~0q"},"p~q":{"$ref":"#/$defs/r%25s"},"r%s":{"$ref":"#/$defs/x~1y"}}}`, "/$defs/x~1y", true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"x":{"$ref":"#/definitions/x","type":"string"}}}`, "/definitions/x", true},
		{`{"$ref":"#"}`, "", true},
		// Not a loop of bare $refs: a sibling that applies, allOf, a
		// target with content, a dangling $ref, a loop longer than the
		// Flattener follows.
		{`{"$defs":{"x":{"$ref":"#/$defs/x","type":"string"}}}`, "/$defs/x", false},
		{`{"$defs":{"x":{"allOf":[{"$ref":"#/$defs/x"}]}}}`, "/$defs/x", false},
		{`{"type":"object","properties":{"a":{"$ref":"#"}}}`, "/properties/a", false},
		{`{"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"type":"string"}}}`, "/$defs/x", false},
		{`{"$defs":{"x":{"$ref":"#/$defs/z"}}}`, "/$defs/x", false},
		{long, "/$defs/d0", false},
	} {
		doc := parse(t, tc.doc)
		n, err := doc.Lookup(tc.at)
		if err != nil {
			t.Fatal(err)
		}
		if got := BareCycle(doc, n); got != tc.want {
			t.Errorf("%.80s at %q: BareCycle = %v, want %v", tc.doc, tc.at, got, tc.want)
		}
	}
}

// TestFlattenFalseBareCycles checks that with FalseBareCycles a loop of
// bare $refs, wherever the walk meets it, is the false schema, and that
// any other recursion is still an error.
func TestFlattenFalseBareCycles(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}},"$ref":"#/$defs/x"}`, `{"not":{}}`},
		{`{"$defs":{"x":{"$ref":"#/$defs/x"}},"allOf":[{"type":"string"},{"$ref":"#/$defs/x"}]}`, `{"type":"string","not":{}}`},
		{`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, `/$defs/a/allOf/0/$ref: $ref "#/$defs/a" is reached again inside itself: a recursive schema cannot be merged`},
	} {
		doc := parse(t, tc.doc)
		got, _, err := (&Flattener{Root: doc, FalseBareCycles: true}).Flatten(doc, "")
		if err != nil {
			if err.Error() != tc.want {
				t.Errorf("%s: error %v, want %s", tc.doc, err, tc.want)
			}
			continue
		}
		got.Delete("$defs")
		if got.String() != tc.want {
			t.Errorf("%s: got %s, want %s", tc.doc, got, tc.want)
		}
	}
}

func TestFlattenErrors(t *testing.T) {
	chain := `{"$defs":{`
	for i := range 70 {
		chain += fmt.Sprintf(`"d%d":{"$ref":"#/$defs/d%d"},`, i, i+1)
	}
	chain += `"d70":{}},"$ref":"#/$defs/d0"}`
	for _, tc := range []struct{ doc, err, lenient string }{
		{`{"$ref":"#/$defs/x"}`, `/$ref: $ref "#/$defs/x" does not resolve: no member "$defs"`, `{"$ref":"#/$defs/x"}`},
		{`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`,
			`/$defs/a/allOf/0/$ref: $ref "#/$defs/a" is reached again inside itself: a recursive schema cannot be merged`, `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`},
		{`{"allOf":{}}`, `/allOf: allOf must be an array`, `{}`},
		{`{"$ref":5}`, `/$ref: $ref is a JSON number, want a string`, `{}`},
		{`{"allOf":[3]}`, `/allOf/0: schema is a JSON number, want an object or a boolean`, ""},
		{chain, `/$defs/d64: $ref and allOf nest more than 64 levels`, ""},
	} {
		doc := parse(t, tc.doc)
		_, _, err := (&Flattener{Root: doc}).Flatten(doc, "")
		var fe *FlattenError
		if !errors.As(err, &fe) || err.Error() != tc.err {
			t.Errorf("%s: got error %v, want %s", tc.doc, err, tc.err)
		}
		if tc.lenient == "" {
			continue
		}
		got, _, err := (&Flattener{Root: doc, Lenient: true}).Flatten(doc, "")
		if err != nil || got.String() != tc.lenient {
			t.Errorf("%s leniently: got %s, %v; want %s", tc.doc, got, err, tc.lenient)
		}
	}
}

// TestFlattenFanOutOnce flattens each $ref target once, however many paths
// reach it, and stops at the step budget with the pointer where it ran out.
func TestFlattenFanOutOnce(t *testing.T) {
	const depth = 20
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"allOf":[{"$ref":"#/$defs/L%d"},{"$ref":"#/$defs/L%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":"string"}`, depth))
	doc := parse(t, `{"$defs":{`+strings.Join(defs, ",")+`},"$ref":"#/$defs/L0"}`)
	f := &Flattener{Root: doc}
	got, _, err := f.Flatten(doc, "")
	if err != nil || got.String() != `{"$defs":{`+strings.Join(defs, ",")+`},"type":"string"}` {
		t.Fatalf("got %s, %v", got, err)
	}
	if f.Flattens > 4*depth {
		t.Errorf("%d schemas walked for %d levels", f.Flattens, depth)
	}
	f = &Flattener{Root: doc, Budget: &Budget{Max: 10}}
	if _, _, err := f.Flatten(doc, ""); err == nil || err.Error() != "/$defs/L4/allOf/0: the schema takes more than 10 steps: it reaches its definitions through too many paths" {
		t.Errorf("with a budget of 10: %v", err)
	}
}

// TestPlainCountsFlattensStep takes, for an object without $ref and allOf,
// the step Flatten would take, and leaves to Flatten every schema it would
// change and every step that would fail or call Check.
func TestPlainCountsFlattensStep(t *testing.T) {
	doc := parse(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/$defs/x"},"c":{"allOf":[{}]},"d":true}}`)
	props := doc.Get("properties")
	f := &Flattener{Root: doc, Budget: &Budget{Max: 3}}
	for key, want := range map[string]bool{"a": true, "b": false, "c": false, "d": false} {
		if got := f.Plain(props.Get(key)); got != want {
			t.Errorf("Plain(%s) = %v, want %v", key, got, want)
		}
	}
	if f.Budget.Steps != 1 || f.Flattens != 1 {
		t.Fatalf("after one plain schema: %d steps, %d flattens, want 1 and 1", f.Budget.Steps, f.Flattens)
	}
	if !f.Plain(doc) || !f.Plain(props.Get("a")) {
		t.Fatal("Plain refused a plain schema within the budget")
	}
	// The budget is spent: Plain leaves the step to Flatten, which reports
	// it with the pointer it is given.
	if f.Plain(props.Get("a")) {
		t.Fatal("Plain took a step beyond the budget")
	}
	_, _, err := f.Flatten(props.Get("a"), "/properties/a")
	var se *StepsError
	if !errors.As(err, &se) || se.Pointer != "/properties/a" {
		t.Fatalf("Flatten beyond the budget: %v, want a StepsError at /properties/a", err)
	}
	checked := &Flattener{Root: doc, Budget: &Budget{Check: func(string) error { return nil }}}
	if checked.Plain(props.Get("a")) {
		t.Fatal("Plain took a step its budget's Check should see")
	}
}
