package provider

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// toolsNamed returns a toolset declaring each MCP name of names under its
// key.
func toolsNamed(names map[string]string) *Tools {
	var tools []runtime.Tool
	for _, mcpName := range names {
		tools = append(tools, runtime.Tool{Name: mcpName})
	}
	return NewTools(nil, tools, names)
}

// TestMeaningsAcrossToolsets follows one declared name through three
// toolsets: a shift is refused once, survives a toolset that declares the
// name the same way until a call meets it, and is forgotten when a toolset
// does not declare the name.
func TestMeaningsAcrossToolsets(t *testing.T) {
	first := NewMeanings(nil, toolsNamed(map[string]string{"a_b": "a/b", "c": "c"}))
	if _, ok := first.Refusal("a_b"); ok {
		t.Fatal("the first toolset refused a call")
	}
	second := NewMeanings(first, toolsNamed(map[string]string{"a_b": "a_b", "a_b_1": "a/b", "c": "c"}))
	third := NewMeanings(second, toolsNamed(map[string]string{"a_b": "a_b", "a_b_1": "a/b", "c": "c"}))
	why, ok := third.Refusal("a_b")
	if !ok || !strings.Contains(why, "a_b names another tool than before") || !strings.HasSuffix(why, "the tool it named is now a_b_1") {
		t.Fatalf("the shift of a_b, unmet in the second toolset, gave %q, %v in the third", why, ok)
	}
	if _, ok := third.Refusal("a_b"); ok {
		t.Error("a_b was refused twice")
	}
	for _, name := range []string{"a_b_1", "c"} {
		if _, ok := third.Refusal(name); ok {
			t.Errorf("%s, which did not shift, was refused", name)
		}
	}
	if _, ok := second.Refusal("a_b"); !ok {
		t.Error("the second toolset's own shift was lost to the third")
	}

	gone := NewMeanings(NewMeanings(first, toolsNamed(map[string]string{"a_b": "a_b"})), toolsNamed(map[string]string{"c": "c"}))
	back := NewMeanings(gone, toolsNamed(map[string]string{"a_b": "a_b"}))
	if _, ok := back.Refusal("a_b"); ok {
		t.Error("a name the toolset before did not declare was refused")
	}
	var none *Meanings
	if _, ok := none.Refusal("a_b"); ok || none.Tools() != nil {
		t.Error("a nil Meanings refused a call")
	}
}
