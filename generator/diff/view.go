package diff

import (
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
	obj      *node    // the merged keywords; never nil
	never    bool     // the schema is `false`
	types    []string // non-null types in schema order; nil means any type
	nullable bool
	enum     []*node // enum values other than null
	hasEnum  bool
	union    []*node // the anyOf/oneOf branches other than null
	unionKW  string  // "anyOf" or "oneOf" when union is set
	refName  string  // the $defs entry the schema came through, if any
	refs     []string
}

// resolver resolves schemas inside one root document.
type resolver struct {
	root *node
	// derefs holds the targets of $refs already dereferenced, by reference
	// and depth, so that a target reached through many paths (allOf:
	// [{$ref: X}, {$ref: X}] at every level of a chain) is merged once.
	derefs map[derefKey]*derefResult
	// steps counts the calls of deref.
	steps *int
	// tree is root as a jsontree, made on the first reference that is not
	// a plain JSON pointer, for the schema core to resolve.
	tree *lazyTree
}

type lazyTree struct{ n *jsontree.Node }

type derefKey struct {
	ref   string
	depth int
}

// derefResult is a dereferenced $ref target: its keywords, which are never
// changed once made, and what it added to the view.
type derefResult struct {
	obj     *node
	refs    []string
	refName string
}

func newResolver(root *node) resolver {
	return resolver{root: root, derefs: map[derefKey]*derefResult{}, steps: new(int), tree: &lazyTree{}}
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

var trueNode = &node{kind: kBool, b: true}

// view builds the view of n. A nil n is the empty schema.
func (r resolver) view(n *node) *view {
	v := &view{}
	if n == nil {
		n = trueNode
	}
	if n.kind == kBool {
		v.obj = newObject()
		v.never = !n.b
		return v
	}
	if n.kind != kObject {
		v.obj = newObject()
		return v
	}
	v.obj = r.deref(n, v, 0)
	r.finish(v, 0)
	return v
}

// finish reads the type, null, enum and union keywords of v.obj.
func (r resolver) finish(v *view, depth int) {
	o := v.obj
	if t := o.get("type"); t != nil {
		var names []string
		switch t.kind {
		case kString:
			names = []string{t.str}
		case kArray:
			for _, it := range t.items {
				if it.kind == kString {
					names = append(names, it.str)
				}
			}
		}
		v.types = []string{}
		for _, name := range names {
			if name == "null" {
				v.nullable = true
				continue
			}
			v.types = append(v.types, name)
		}
		if len(v.types) == 0 && v.nullable {
			v.types = []string{"null"}
			v.nullable = false
		}
	}
	if nb := o.get("nullable"); nb != nil && nb.kind == kBool && nb.b {
		v.nullable = true
	}
	if e := o.get("enum"); e != nil && e.kind == kArray {
		v.hasEnum = true
		v.enum = nil
		for _, it := range e.items {
			if it.kind == kNull {
				v.nullable = true
				continue
			}
			v.enum = append(v.enum, it)
		}
	}
	kw := ""
	switch {
	case o.get("anyOf") != nil && o.get("anyOf").kind == kArray:
		kw = "anyOf"
	case o.get("oneOf") != nil && o.get("oneOf").kind == kArray:
		kw = "oneOf"
	}
	if kw == "" {
		return
	}
	var rest []*node
	for _, b := range o.get(kw).items {
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
		if branch.kind == kObject {
			merge(merged, r.deref(branch, bv, depth+1))
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

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// isNull reports whether a union branch only allows null (see
// schema.OnlyNull).
func (r resolver) isNull(b *node) bool {
	for i := 0; i < maxRefDepth && b != nil && len(b.keys) == 1 && b.get("$ref") != nil && b.get("$ref").kind == kString; i++ {
		t, _, ok := r.lookupRef(b.get("$ref").str)
		if !ok {
			break
		}
		b = t
	}
	return b != nil && b.kind == kObject && schema.OnlyNull(b.tree())
}

// deref returns the keywords of n with its local $ref followed and its allOf
// merged in. The keywords written beside a $ref win over the target's, as a
// description beside a $ref describes the use rather than the definition.
// Up to draft-07 only the annotations beside a $ref apply (see
// schema.Draft.RefSiblings).
func (r resolver) deref(n *node, v *view, depth int) *node {
	if r.steps != nil {
		*r.steps++
	}
	out := newObject()
	if n == nil || n.kind != kObject {
		if n != nil && n.kind == kBool && !n.b {
			out.set("not", trueNode)
		}
		return out
	}
	var (
		target *node
		name   string
		ok     bool
	)
	ref := n.get("$ref")
	if ref != nil && ref.kind == kString {
		target, name, ok = r.lookupRef(ref.str)
	}
	draft := schema.DraftNamed(r.root.get("$schema").stringValue())
	for _, k := range n.keys {
		if k == "$ref" || k == "allOf" || ok && !draft.RefSibling(k) {
			continue
		}
		out.set(k, n.vals[k])
	}
	if ref != nil && ref.kind == kString {
		if ok && depth < maxRefDepth {
			v.refs = addRefs(v.refs, ref.str)
			if v.refName == "" {
				v.refName = name
			}
			merge(out, r.derefTarget(ref.str, target, v, depth+1))
		} else {
			// An external or dangling reference is compared as written.
			out.set("$ref", ref)
		}
	}
	if all := n.get("allOf"); all != nil && all.kind == kArray && depth < maxRefDepth {
		for _, b := range all.items {
			sub := &view{}
			merge(out, r.deref(b, sub, depth+1))
			v.refs = addRefs(v.refs, sub.refs...)
		}
	}
	return out
}

// derefTarget is deref for the target of the reference ref, done once per
// reference and depth: merge never changes its source, so the keywords are
// shared by every use.
func (r resolver) derefTarget(ref string, target *node, v *view, depth int) *node {
	key := derefKey{ref, depth}
	d := r.derefs[key]
	if d == nil {
		sub := &view{}
		d = &derefResult{obj: r.deref(target, sub, depth), refs: sub.refs, refName: sub.refName}
		if r.derefs != nil {
			r.derefs[key] = d
		}
	}
	v.refs = addRefs(v.refs, d.refs...)
	if v.refName == "" {
		v.refName = d.refName
	}
	return d.obj
}

// lookupRef resolves a local reference such as "#/$defs/Item". name is the
// definition's name when the reference points into $defs or definitions.
func (r resolver) lookupRef(ref string) (target *node, name string, ok bool) {
	frag, ok := r.refPointer(ref)
	if !ok {
		return nil, "", false
	}
	target, ok = lookupPointer(r.root, frag)
	if !ok {
		return nil, "", false
	}
	for _, prefix := range []string{"/$defs/", "/definitions/"} {
		if rest, found := strings.CutPrefix(frag, prefix); found && !strings.Contains(rest, "/") {
			name = strings.ReplaceAll(strings.ReplaceAll(rest, "~1", "/"), "~0", "~")
		}
	}
	return target, name, true
}

// refPointer returns the JSON pointer of the target of a local reference.
// References that are not plain pointers (anchors, the root's $id) are
// resolved by the schema core.
func (r resolver) refPointer(ref string) (string, bool) {
	if ref == "#" || strings.HasPrefix(ref, "#/") {
		return refPointer(ref), true
	}
	if r.tree == nil {
		return "", false
	}
	if r.tree.n == nil {
		r.tree.n = r.root.tree()
	}
	_, ptr, err := schema.Resolve(r.tree.n, ref)
	return ptr, err == nil
}

// without returns a shallow copy of the object o without key.
func without(o *node, key string) *node {
	out := newObject()
	for _, k := range o.keys {
		if k != key {
			out.set(k, o.vals[k])
		}
	}
	return out
}

// lower and upper bound keywords, merged by taking the stricter value.
var (
	lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
	upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
)

func isLower(k string) bool { return contains(lowerBounds, k) }
func isUpper(k string) bool { return contains(upperBounds, k) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// merge adds src's keywords to dst, as allOf does: both apply. Where both
// have a keyword, properties are merged one by one, required lists are
// joined, types and enums intersect and bounds take the stricter value; for
// any other keyword dst's value wins.
func merge(dst, src *node) {
	for _, k := range src.keys {
		sv := src.vals[k]
		dv := dst.get(k)
		if dv == nil {
			dst.set(k, sv)
			continue
		}
		switch {
		case k == "properties" && dv.kind == kObject && sv.kind == kObject:
			props := newObject()
			for _, name := range dv.keys {
				props.set(name, dv.vals[name])
			}
			for _, name := range sv.keys {
				if prev := props.get(name); prev != nil && !equal(prev, sv.vals[name]) {
					both := newObject()
					both.set("allOf", &node{kind: kArray, items: []*node{prev, sv.vals[name]}})
					props.set(name, both)
				} else if prev == nil {
					props.set(name, sv.vals[name])
				}
			}
			dst.set(k, props)
		case k == "required" && dv.kind == kArray && sv.kind == kArray:
			req := &node{kind: kArray, items: append([]*node(nil), dv.items...)}
			seen := map[string]bool{}
			for _, it := range dv.items {
				seen[canon(it)] = true
			}
			for _, it := range sv.items {
				if !seen[canon(it)] {
					req.items = append(req.items, it)
				}
			}
			dst.set(k, req)
		case k == "type":
			dst.set(k, intersectTypes(dv, sv))
		case k == "enum" && dv.kind == kArray && sv.kind == kArray:
			in := map[string]bool{}
			for _, it := range sv.items {
				in[canon(it)] = true
			}
			e := &node{kind: kArray}
			for _, it := range dv.items {
				if in[canon(it)] {
					e.items = append(e.items, it)
				}
			}
			dst.set(k, e)
		case isLower(k) || isUpper(k):
			a, aok := dv.rat()
			b, bok := sv.rat()
			if aok && bok && ((isLower(k) && b.Cmp(a) > 0) || (isUpper(k) && b.Cmp(a) < 0)) {
				dst.set(k, sv)
			}
		}
	}
}

// typeNames returns the type names of a type keyword value.
func typeNames(t *node) []string {
	switch t.kind {
	case kString:
		return []string{t.str}
	case kArray:
		var out []string
		for _, it := range t.items {
			if it.kind == kString {
				out = append(out, it.str)
			}
		}
		return out
	}
	return nil
}

// intersectTypes intersects two type keywords (see schema.IntersectTypes).
func intersectTypes(a, b *node) *node {
	out := &node{kind: kArray}
	for _, t := range schema.IntersectTypes(typeNames(a), typeNames(b)) {
		out.items = append(out.items, &node{kind: kString, str: t})
	}
	if len(out.items) == 1 {
		return out.items[0]
	}
	return out
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
	case v.obj.get("const") != nil && v.obj.get("const").kind != kNull:
		return "const"
	}
	types := v.types
	if types == nil {
		if v.obj.has("properties") {
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
		if p := v.obj.get("properties"); p != nil && p.kind == kObject && len(p.keys) > 0 {
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
