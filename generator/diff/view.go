package diff

import (
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
)

// maxRefDepth bounds how many $ref and allOf steps one schema may take before
// the classifier stops following them; it keeps cyclic references finite.
const maxRefDepth = 32

// view is one schema as the classifier sees it: local $refs followed, allOf
// merged, and null split off into a flag, so that equivalent spellings
// (`type: [T, "null"]`, `anyOf: [T, {type: null}]`) compare equal.
type view struct {
	obj      *jsontree.Node // the merged keywords; never nil
	never    bool           // the schema is `false`
	types    []string       // non-null types in schema order; nil means any type
	nullable bool
	enum     []*jsontree.Node // enum values other than null
	hasEnum  bool
	union    []*jsontree.Node // the anyOf/oneOf branches other than null
	unionKW  string           // "anyOf" or "oneOf" when union is set
	refName  string           // the $defs entry the schema came through, if any
	refs     []string
}

// resolver resolves schemas inside one root document.
type resolver struct {
	root *jsontree.Node
	// flat follows $refs and merges allOf (see schema.Flattener), each
	// target once, so that a target reached through many paths (allOf:
	// [{$ref: X}, {$ref: X}] at every level of a chain) is merged once.
	flat *schema.Flattener
}

func newResolver(root *jsontree.Node) resolver {
	return resolver{root: root, flat: &schema.Flattener{
		Root: root, MaxDepth: maxRefDepth, Lenient: true,
		Merge: func(dst, src *jsontree.Node, _ string) error { merge(dst, src); return nil },
		Leaf: func(n *jsontree.Node, _ string) (*jsontree.Node, error) {
			out := &jsontree.Node{Kind: jsontree.Object}
			if n.Kind == jsontree.Bool && !n.Bool {
				out.Set("not", trueNode)
			}
			return out, nil
		},
	}}
}

// addRefs appends to list the references it does not hold yet.
func addRefs(list []string, refs ...string) []string {
	for _, r := range refs {
		if !contains(list, r) {
			list = append(list, r)
		}
	}
	return list
}

var trueNode = &jsontree.Node{Kind: jsontree.Bool, Bool: true}

// view builds the view of n. A nil n is the empty schema.
func (r resolver) view(n *jsontree.Node) *view {
	v := &view{}
	if n == nil {
		n = trueNode
	}
	if n.Kind == jsontree.Bool {
		v.obj = &jsontree.Node{Kind: jsontree.Object}
		v.never = !n.Bool
		return v
	}
	if n.Kind != jsontree.Object {
		v.obj = &jsontree.Node{Kind: jsontree.Object}
		return v
	}
	v.obj = r.deref(n, v)
	r.finish(v, 0)
	return v
}

// finish reads the type, null, enum and union keywords of v.obj.
func (r resolver) finish(v *view, depth int) {
	o := v.obj
	if t := o.Get("type"); t != nil {
		types, null := schema.SplitNull(schema.Types(t))
		v.types, v.nullable = append([]string{}, types...), v.nullable || null
		if len(v.types) == 0 && v.nullable {
			v.types = []string{"null"}
			v.nullable = false
		}
	}
	if nb := o.Get("nullable"); nb != nil && nb.Kind == jsontree.Bool && nb.Bool {
		v.nullable = true
	}
	if e := o.Get("enum"); e != nil && e.Kind == jsontree.Array {
		v.hasEnum = true
		v.enum = nil
		// A null the type does not allow fails the type, listed or not.
		t := o.Get("type")
		typeNull := t == nil || slices.Contains(schema.Types(t), "null")
		for _, it := range e.Items {
			if it.Kind == jsontree.Null {
				v.nullable = v.nullable || typeNull
				continue
			}
			v.enum = append(v.enum, it)
		}
	}
	if onlyNull(o, v) {
		// const null, or an enum of null alone, is the null type.
		o = without(without(o, "const"), "enum")
		o.Set("type", &jsontree.Node{Kind: jsontree.String, Str: "null"})
		v.obj, v.types, v.nullable, v.hasEnum, v.enum = o, []string{"null"}, false, false, nil
	}
	kw := ""
	switch {
	case o.Get("anyOf") != nil && o.Get("anyOf").Kind == jsontree.Array:
		kw = "anyOf"
	case o.Get("oneOf") != nil && o.Get("oneOf").Kind == jsontree.Array:
		kw = "oneOf"
	}
	if kw == "" {
		return
	}
	var rest []*jsontree.Node
	for _, b := range o.Get(kw).Items {
		if r.isNull(b) {
			v.nullable = true
			continue
		}
		rest = append(rest, b)
	}
	if len(rest) == 1 && depth < maxRefDepth {
		// A single alternative besides null is that alternative, nullable.
		merged := without(o, kw)
		bv := &view{obj: merged}
		branch := rest[0]
		if branch.Kind == jsontree.Object {
			merge(merged, r.deref(branch, bv))
		}
		nullable := v.nullable
		*v = view{obj: merged, refName: firstNonEmpty(v.refName, bv.refName), refs: addRefs(v.refs, bv.refs...)}
		r.finish(v, depth+1)
		v.nullable = v.nullable || nullable
		return
	}
	if len(rest) == 0 {
		v.types = []string{"null"}
		v.nullable = false
		return
	}
	v.union = rest
	v.unionKW = kw
}

// onlyNull reports whether the schema o, read into v up to its enum,
// restricts the value to null by const or enum while its type allows null.
func onlyNull(o *jsontree.Node, v *view) bool {
	t := o.Get("type")
	typeNull := t == nil || slices.Contains(schema.Types(t), "null")
	if c := o.Get("const"); c != nil {
		return c.Kind == jsontree.Null && typeNull
	}
	return v.hasEnum && len(v.enum) == 0 && v.nullable && typeNull
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// isNull reports whether a union branch only allows null (see
// schema.OnlyNull).
func (r resolver) isNull(b *jsontree.Node) bool {
	b = schema.FollowBare(r.root, b, nil)
	return b != nil && b.Kind == jsontree.Object && schema.OnlyNull(b)
}

// deref returns the keywords of n with its local $ref followed and its allOf
// merged in (see schema.Flattener); an external or dangling reference is
// compared as written. Up to draft-07 only the annotations beside a $ref
// apply (see schema.Draft.RefSiblings). It adds the references followed to
// v, and names v after the definition n refers to.
func (r resolver) deref(n *jsontree.Node, v *view) *jsontree.Node {
	if n == nil || n.Kind != jsontree.Object {
		out, _ := r.flat.Leaf(orTrue(n), "")
		return out
	}
	out, refs, err := r.flat.Flatten(n, "")
	if err != nil {
		return &jsontree.Node{Kind: jsontree.Object}
	}
	v.refs = addRefs(v.refs, refs...)
	if v.refName == "" {
		v.refName = r.refName(n)
	}
	return out
}

// refName is the name of the definition n refers to: the first $defs or
// definitions entry its chain of $refs reaches.
func (r resolver) refName(n *jsontree.Node) string {
	for i := 0; i < maxRefDepth && n != nil; i++ {
		ref, ok := n.Get("$ref").StringValue()
		if !ok {
			return ""
		}
		t, name, ok := r.lookupRef(ref)
		if !ok || name != "" {
			return name
		}
		n = t
	}
	return ""
}

// lookupRef resolves a local reference such as "#/$defs/Item" (see
// schema.Resolve). name is the definition's name when the reference points
// into $defs or definitions.
func (r resolver) lookupRef(ref string) (target *jsontree.Node, name string, ok bool) {
	target, frag, err := schema.Resolve(r.root, ref)
	if err != nil {
		return nil, "", false
	}
	for _, prefix := range []string{"/$defs/", "/definitions/"} {
		if rest, found := strings.CutPrefix(frag, prefix); found && !strings.Contains(rest, "/") {
			name = strings.ReplaceAll(strings.ReplaceAll(rest, "~1", "/"), "~0", "~")
		}
	}
	return target, name, true
}

// without returns a shallow copy of the object o without key.
func without(o *jsontree.Node, key string) *jsontree.Node {
	out := &jsontree.Node{Kind: jsontree.Object}
	for _, m := range o.Members {
		if m.Key != key {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// merge adds src's keywords to dst, as allOf does: both apply (see
// schema.MergeKeyword). Types that have no value in common leave an empty
// type list, which the classifier reports; for a keyword the core cannot
// merge, dst's value wins.
func merge(dst, src *jsontree.Node) {
	for _, m := range src.Members {
		k, sv := m.Key, m.Value
		dv := dst.Get(k)
		if dv == nil {
			dst.Set(k, sv)
			continue
		}
		merged, ok, err := schema.MergeKeyword(k, dv, sv)
		switch {
		case err != nil && k == "type":
			dst.Set(k, &jsontree.Node{Kind: jsontree.Array, Items: []*jsontree.Node{}})
		case err == nil && ok:
			dst.Set(k, merged)
		}
	}
}

// typeCovers reports whether the type set ts admits values of type t; a nil
// set admits everything, and "number" admits integers.
func typeCovers(ts []string, t string) bool {
	if ts == nil {
		return true
	}
	return contains(ts, t) || (t == "integer" && contains(ts, "number"))
}

// subsetTypes reports whether every type in a is admitted by b.
func subsetTypes(a, b []string) bool {
	if a == nil {
		return b == nil
	}
	for _, t := range a {
		if !typeCovers(b, t) {
			return false
		}
	}
	return true
}

// goKind is the shape of the Go type the generator emits for v, ignoring
// names: a change of shape changes generated code.
func (v *view) goKind() string {
	switch {
	case v.never:
		return "none"
	case len(v.union) > 1:
		return "union"
	case v.obj.Get("const") != nil && v.obj.Get("const").Kind != jsontree.Null:
		return "const"
	}
	types := v.types
	if types == nil {
		if v.obj.Has("properties") {
			return "struct"
		}
		return "raw"
	}
	switch len(types) {
	case 0:
		return "raw"
	case 1:
	default:
		return "union"
	}
	switch types[0] {
	case "string":
		return "string"
	case "integer":
		return "int64"
	case "number":
		return "float64"
	case "boolean":
		return "bool"
	case "array":
		return "slice"
	case "object":
		if p := v.obj.Get("properties"); p != nil && p.Kind == jsontree.Object && len(p.Members) > 0 {
			return "struct"
		}
		return "map"
	}
	return "raw"
}

// pointer reports whether a field of this schema is a pointer in generated
// Go code: optional or nullable scalars, structs and unions are; slices, maps
// and raw JSON never are, since nil already says "absent".
func (v *view) pointer(required bool) bool {
	switch v.goKind() {
	case "slice", "map", "raw", "none":
		return false
	}
	return !required || v.nullable
}

// typeText renders v's types for a report, such as "string" or
// "string|number"; "any" when unconstrained.
func (v *view) typeText() string {
	switch {
	case v.types == nil:
		return "any"
	case len(v.types) == 0:
		return "no valid type"
	}
	return strings.Join(v.types, "|")
}
