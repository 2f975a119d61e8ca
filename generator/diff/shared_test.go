package diff

import (
	"github.com/mcpgen/mcpgen/internal/jsontree"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// fanSchema is an input schema whose $defs L0…L(depth-1) each have two
// properties pointing at the next level, above a leaf of type leaf: the leaf
// is reached through 2^depth paths.
func fanSchema(depth int, leaf string) string {
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","properties":{"p":{"$ref":"#/$defs/L%d"},"q":{"$ref":"#/$defs/L%d"}}}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":%q}`, depth, leaf))
	return `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"a":{"$ref":"#/$defs/L0"}}}`
}

// allOfSchema is an input schema whose $defs L0…L(depth-1) each say
// allOf: [{$ref: L(i+1)}, {$ref: L(i+1)}], above an object with the property
// x of type leaf.
func allOfSchema(depth int, leaf string) string {
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"allOf":[{"$ref":"#/$defs/L%d"},{"$ref":"#/$defs/L%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","properties":{"x":{"type":%q}}}`, depth, leaf))
	return `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"a":{"$ref":"#/$defs/L0"}}}`
}

// TestSharedDefsReportedOnce checks that a change inside a $defs entry that
// several places use is reported once, at the entry, with the places that
// use it: a leaf reached through 2^14 paths gave 16,384 changes.
func TestSharedDefsReportedOnce(t *testing.T) {
	const depth = 14
	changes, err := Tools([]runtime.Tool{inTool(fanSchema(depth, "string"))}, []runtime.Tool{inTool(fanSchema(depth, "integer"))})
	if err != nil {
		t.Fatal(err)
	}
	exp := []want{{TypeChanged, "/$defs/L14/type", Err, true}}
	if got := wants(changes); !sameWants(got, exp) {
		t.Fatalf("%d changes:%s\nwant:%s", len(changes), fmtWants(got[:min(len(got), 5)]), fmtWants(exp))
	}
	c := changes[0]
	if uses := strings.Join(c.UsedAt, " "); uses != "inputSchema/$defs/L13/properties/p inputSchema/$defs/L13/properties/q" || c.MoreUses != 0 {
		t.Errorf("used at %q and %d more", uses, c.MoreUses)
	}
	if c.Summary != "type of `$defs.L14` changed" {
		t.Errorf("summary = %q", c.Summary)
	}
	var text strings.Builder
	if err := (&Report{Changes: changes}).Write(&text, FormatText); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "used at inputSchema/$defs/L13/properties/p, inputSchema/$defs/L13/properties/q\n") {
		t.Errorf("the text report does not list the uses:\n%s", text.String())
	}
}

// TestSharedDefUsesBounded checks that a change lists at most maxUseSites
// places that use its definition, and counts the others.
func TestSharedDefUsesBounded(t *testing.T) {
	mk := func(typ string) runtime.Tool {
		var props []string
		for i := range 8 {
			props = append(props, fmt.Sprintf(`"p%d":{"$ref":"#/$defs/V"}`, i))
		}
		return inTool(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"$defs":{"V":{"type":"` + typ + `"}}}`)
	}
	changes, err := Tools([]runtime.Tool{mk("string")}, []runtime.Tool{mk("integer")})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Pointer != "/$defs/V/type" {
		t.Fatalf("changes:%s\nwant one at /$defs/V/type", fmtWants(wants(changes)))
	}
	c := changes[0]
	if len(c.UsedAt) != maxUseSites || c.UsedAt[0] != "inputSchema/properties/p0" || c.MoreUses != 8-maxUseSites {
		t.Errorf("used at %v and %d more, want 5 places from inputSchema/properties/p0 and 3 more", c.UsedAt, c.MoreUses)
	}
	for _, f := range []Format{FormatText, FormatMarkdown} {
		var b strings.Builder
		if err := (&Report{Changes: changes}).Write(&b, f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "p4") || strings.Contains(b.String(), "p5") || !strings.Contains(b.String(), "and 3 more places") {
			t.Errorf("%s report does not list 5 uses and 3 more:\n%s", f, b.String())
		}
	}
}

// TestAllOfFanOutDereferencedOnce checks that the diff merges each $ref
// target of an allOf once: a chain of levels that each reference the next
// one twice was merged once per path.
func TestAllOfFanOutDereferencedOnce(t *testing.T) {
	const depth = 14
	oldRoot, err := jsontree.ParseUnique([]byte(allOfSchema(depth, "string")))
	if err != nil {
		t.Fatal(err)
	}
	newRoot, err := jsontree.ParseUnique([]byte(allOfSchema(depth, "integer")))
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker("t", SectionInput, false, oldRoot, newRoot)
	w.compare("", "", oldRoot, newRoot, position{})
	exp := []want{{TypeChanged, "/properties/a/properties/x/type", Err, true}}
	if got := wants(w.finish()); !sameWants(got, exp) {
		t.Errorf("changes:%s\nwant:%s", fmtWants(got), fmtWants(exp))
	}
	if steps, limit := w.old.flat.Flattens+w.new.flat.Flattens, 20*depth; steps > limit {
		t.Errorf("the views took %d steps for %d levels, want at most %d", steps, depth, limit)
	}
}

// TestReportListsAtMostMaxListed checks that a report lists MaxListed
// changes, says how many more there are, and counts them all.
func TestReportListsAtMostMaxListed(t *testing.T) {
	r := &Report{}
	for i := range MaxListed + 5 {
		r.Changes = append(r.Changes, Change{Tool: "t", Schema: SectionInput, Pointer: fmt.Sprintf("/properties/p%d", i),
			Severity: Info, Rule: PropertyAdded, Summary: "added", Why: "why"})
	}
	var text, md, js strings.Builder
	for f, b := range map[Format]*strings.Builder{FormatText: &text, FormatMarkdown: &md, FormatJSON: &js} {
		if err := r.Write(b, f); err != nil {
			t.Fatal(err)
		}
	}
	last := fmt.Sprintf("/properties/p%d:", MaxListed-1)
	if !strings.Contains(text.String(), "1005 changes: 0 ERR, 0 WARN, 1005 INFO") || !strings.Contains(text.String(), last) ||
		strings.Contains(text.String(), fmt.Sprintf("/properties/p%d:", MaxListed)) ||
		!strings.HasSuffix(text.String(), "… and 5 more changes (a report lists the first 1000)\n") {
		t.Errorf("text report does not list 1000 of 1005 changes:\n…%s", text.String()[max(0, text.Len()-300):])
	}
	if !strings.HasSuffix(md.String(), "… and 5 more changes (a report lists the first 1000)\n") {
		t.Errorf("markdown report ends with:\n%s", md.String()[max(0, md.Len()-300):])
	}
	var j jsonReport
	if err := json.Unmarshal([]byte(js.String()), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Changes) != MaxListed || j.Omitted != 5 || j.Summary.Info != MaxListed+5 {
		t.Errorf("JSON report: %d changes, %d omitted, %d INFO; want 1000, 5, 1005", len(j.Changes), j.Omitted, j.Summary.Info)
	}
}

// TestToolsContextStops checks that a done context stops the comparison
// with an error naming the tool and the schema.
func TestToolsContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ToolsContext(ctx, []runtime.Tool{inTool(allOfSchema(4, "string"))}, []runtime.Tool{inTool(allOfSchema(4, "integer"))})
	var se *StoppedError
	if !errors.As(err, &se) || !errors.Is(err, context.Canceled) || err.Error() != "tool t: comparing inputSchema at (root) stopped: context canceled" {
		t.Errorf("ToolsContext with a cancelled context: %v", err)
	}
}

// fanWithSiblings is fanSchema with the keywords beside (a JSON object
// body) written next to every $ref to the next level.
func fanWithSiblings(depth int, leaf, beside string) string {
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","properties":{"p":{"$ref":"#/$defs/L%d",%s},"q":{"$ref":"#/$defs/L%d",%s}}}`, i, i+1, beside, i+1, beside))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":%q}`, depth, leaf))
	return `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"a":{"$ref":"#/$defs/L0"}}}`
}

// TestSharedDefsWithChangedDescriptions checks that a description beside a
// shared $ref, changed at every use, is reported at each use while the
// definition is still compared once.
func TestSharedDefsWithChangedDescriptions(t *testing.T) {
	const depth = 14
	changes, err := Tools([]runtime.Tool{inTool(fanWithSiblings(depth, "string", `"description":"old"`))},
		[]runtime.Tool{inTool(fanWithSiblings(depth, "integer", `"description":"new"`))})
	if err != nil {
		t.Fatal(err)
	}
	// Two descriptions per level and the leaf's type.
	if len(changes) != 2*depth+1 {
		t.Fatalf("%d changes, want %d", len(changes), 2*depth+1)
	}
	n := 0
	for _, c := range changes {
		switch {
		case c.Rule == DescriptionChanged && strings.HasSuffix(c.Pointer, "/description"):
			n++
		case c.Rule == TypeChanged && c.Pointer == "/$defs/L14/type":
		default:
			t.Errorf("unexpected change %s at %s", c.Rule, c.Pointer)
		}
	}
	if n != 2*depth {
		t.Errorf("%d description changes, want %d", n, 2*depth)
	}
}

// TestCompareWorkLimit checks that a schema that reaches its definitions
// through too many paths without sharing them (a constraint beside every
// $ref that changes at every level) stops at the walk's limit with an error
// naming the tool and the pointer, instead of comparing 2^depth schemas.
func TestCompareWorkLimit(t *testing.T) {
	const depth = 12
	oldRoot, err := jsontree.ParseUnique([]byte(fanWithSiblings(depth, "string", `"minLength":1`)))
	if err != nil {
		t.Fatal(err)
	}
	newRoot, err := jsontree.ParseUnique([]byte(fanWithSiblings(depth, "string", `"minLength":2`)))
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker("t", SectionInput, false, oldRoot, newRoot)
	if w.maxCompared != defaultMaxCompared {
		t.Errorf("limit %d, want defaultMaxCompared", w.maxCompared)
	}
	w.maxCompared = 1000
	w.compare("", "", oldRoot, newRoot, position{})
	if w.err == nil || !strings.HasPrefix(w.err.Error(), "tool t: comparing inputSchema at /properties/a/") ||
		!strings.HasSuffix(w.err.Error(), "more than 1000 schemas to compare; the schema reaches its definitions through too many paths") {
		t.Errorf("compare: %v", w.err)
	}
	if w.compared != 1001 {
		t.Errorf("compared %d schemas, want to stop at 1001", w.compared)
	}
}
