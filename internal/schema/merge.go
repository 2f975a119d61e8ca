package schema

import (
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// Bounds are the keywords whose number limits a value from below
// (LowerBounds) or from above (UpperBounds); of two, the stricter holds.
var (
	LowerBounds = map[string]bool{"minimum": true, "exclusiveMinimum": true, "minLength": true, "minItems": true, "minProperties": true, "minContains": true}
	UpperBounds = map[string]bool{"maximum": true, "exclusiveMaximum": true, "maxLength": true, "maxItems": true, "maxProperties": true, "maxContains": true}
)

// MergeKeyword returns the value of the keyword k in one schema that holds
// exactly when both a and b do, the values two parts of an allOf (or a $ref
// and its siblings) give k:
//
//   - type: the types both allow (see IntersectTypes); none is an error;
//   - properties: each property once, a property both describe differently
//     as an allOf of its two schemas;
//   - required: both lists, each name once;
//   - enum: the values both allow, in a's order (possibly none);
//   - the bounds (LowerBounds, UpperBounds): the stricter number;
//   - items, additionalProperties, additionalItems: false wins, a true or
//     empty schema yields to the other, two others become an allOf.
//
// Equal values merge to a. ok is false when JSON Schema gives no one value
// for the two: the consumer decides (keep one, note both, or fail). a and b
// are never changed; the result may share their values.
func MergeKeyword(k string, a, b *jsontree.Node) (out *jsontree.Node, ok bool, err error) {
	switch {
	case k == "type":
		both := IntersectTypes(Types(a), Types(b))
		if len(both) == 0 {
			return nil, true, fmt.Errorf("type %s and type %s have no value in common", a, b)
		}
		return TypeNode(both), true, nil
	case k == "properties":
		if a.Kind != jsontree.Object || b.Kind != jsontree.Object {
			return nil, true, fmt.Errorf("properties is not an object")
		}
		props := &jsontree.Node{Kind: jsontree.Object, Members: slices.Clone(a.Members)}
		for _, m := range b.Members {
			switch prev := props.Get(m.Key); {
			case prev == nil:
				props.Members = append(props.Members, m)
			case prev != m.Value && !jsontree.Equal(prev, m.Value):
				props.Set(m.Key, AllOf(prev, m.Value))
			}
		}
		return props, true, nil
	case k == "required":
		if a.Kind != jsontree.Array || b.Kind != jsontree.Array {
			return a, true, nil
		}
		req := &jsontree.Node{Kind: jsontree.Array, Items: slices.Clone(a.Items)}
		for _, it := range b.Items {
			if !slices.ContainsFunc(req.Items, func(x *jsontree.Node) bool { return jsontree.Equal(x, it) }) {
				req.Items = append(req.Items, it)
			}
		}
		return req, true, nil
	case k == "enum":
		if a.Kind != jsontree.Array || b.Kind != jsontree.Array {
			return nil, true, fmt.Errorf("enum is not an array")
		}
		both := &jsontree.Node{Kind: jsontree.Array, Items: []*jsontree.Node{}}
		for _, x := range a.Items {
			if slices.ContainsFunc(b.Items, func(y *jsontree.Node) bool { return jsontree.Equal(x, y) }) {
				both.Items = append(both.Items, x)
			}
		}
		return both, true, nil
	case LowerBounds[k] || UpperBounds[k]:
		if a.Kind != jsontree.Number || b.Kind != jsontree.Number {
			break
		}
		c, _ := jsontree.CompareNumbers(b.Str, a.Str)
		if LowerBounds[k] && c > 0 || UpperBounds[k] && c < 0 {
			return b, true, nil
		}
		return a, true, nil
	case k == "items" || k == "additionalProperties" || k == "additionalItems":
		switch {
		case a.Kind == jsontree.Bool && !a.Bool:
			return a, true, nil
		case b.Kind == jsontree.Bool && !b.Bool:
			return b, true, nil
		case empty(b) || jsontree.Equal(a, b):
			return a, true, nil
		case empty(a):
			return b, true, nil
		case a.Kind == jsontree.Object && b.Kind == jsontree.Object:
			return AllOf(a, b), true, nil
		}
	}
	if jsontree.Equal(a, b) {
		return a, true, nil
	}
	return nil, false, nil
}

// AllOf returns the schema {"allOf": [a, b]}.
func AllOf(a, b *jsontree.Node) *jsontree.Node {
	return &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{
		{Key: "allOf", Value: &jsontree.Node{Kind: jsontree.Array, Items: []*jsontree.Node{a, b}}},
	}}
}

// empty reports the schemas that allow every value: true and {}.
func empty(n *jsontree.Node) bool {
	return n.Kind == jsontree.Bool && n.Bool || n.Kind == jsontree.Object && len(n.Members) == 0
}
