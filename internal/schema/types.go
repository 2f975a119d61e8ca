package schema

import (
	"slices"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// Types returns the types a "type" keyword names: one for a string, the
// strings of a list, none when n is nil. Items that are not strings are
// left out.
func Types(n *jsontree.Node) []string {
	if n == nil {
		return nil
	}
	if s, ok := n.StringValue(); ok {
		return []string{s}
	}
	var out []string
	for _, it := range n.Items {
		if s, ok := it.StringValue(); ok {
			out = append(out, s)
		}
	}
	return out
}

// SplitNull returns the types of a type list other than "null", each once
// and in order, and whether "null" is among them.
func SplitNull(types []string) (rest []string, null bool) {
	for _, t := range types {
		switch {
		case t == "null":
			null = true
		case !slices.Contains(rest, t):
			rest = append(rest, t)
		}
	}
	return rest, null
}

// IntersectTypes returns the types both lists allow, in the order of a,
// each once. "integer" is within "number", so the two meet in "integer".
// An empty result means no value has both types.
func IntersectTypes(a, b []string) []string {
	var out []string
	for _, t := range a {
		switch {
		case slices.Contains(b, t):
		case t == "number" && slices.Contains(b, "integer"), t == "integer" && slices.Contains(b, "number"):
			t = "integer"
		default:
			continue
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// TypeNode returns the "type" keyword that names types: a string for one,
// a list for several.
func TypeNode(types []string) *jsontree.Node {
	if len(types) == 1 {
		return &jsontree.Node{Kind: jsontree.String, Str: types[0]}
	}
	n := &jsontree.Node{Kind: jsontree.Array}
	for _, t := range types {
		n.Items = append(n.Items, &jsontree.Node{Kind: jsontree.String, Str: t})
	}
	return n
}

// OnlyNull reports whether the schema n, with its references followed,
// allows null and nothing else: its type names only "null", or, without a
// type, its const is null or its enum holds nothing but nulls. This is how
// a union branch such as {"type": "null"} makes the union nullable.
func OnlyNull(n *jsontree.Node) bool {
	if n == nil || n.Kind != jsontree.Object {
		return false
	}
	if t := Types(n.Get("type")); len(t) > 0 {
		return !slices.ContainsFunc(t, func(s string) bool { return s != "null" })
	}
	if k := n.Get("const"); k != nil {
		return k.Kind == jsontree.Null
	}
	if e := n.Get("enum"); e != nil && e.Kind == jsontree.Array && len(e.Items) > 0 {
		return !slices.ContainsFunc(e.Items, func(x *jsontree.Node) bool { return x.Kind != jsontree.Null })
	}
	return false
}
