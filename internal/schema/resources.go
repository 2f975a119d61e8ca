package schema

import (
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// A schema inside a document with a $id of its own (draft-04's id) is an
// embedded resource: a $ref in it that is only a fragment ("#/$defs/x",
// "#name") resolves against that schema, not against the document's root,
// which is what Resolve reads. rewriteEmbedded makes such a $ref a JSON
// pointer from the root, so that Resolve, and every consumer, reads it as
// JSON Schema does.

// idKeyword returns the keyword that gives a schema of the document root
// its own base URI: "id" in draft-04 and before, "$id" after.
func idKeyword(root *jsontree.Node) string {
	if s, _ := root.Get("$schema").StringValue(); strings.Contains(s, "draft-04") || strings.Contains(s, "draft-03") {
		return "id"
	}
	return "$id"
}

// resourceWalk finds the embedded resources of a document.
type resourceWalk struct {
	key, rootID string
	draft       Draft
}

func newResourceWalk(root *jsontree.Node) resourceWalk {
	key := idKeyword(root)
	id, _ := root.Get(key).StringValue()
	return resourceWalk{key: key, rootID: id, draft: DraftOf(root)}
}

// resource reports whether n, at depth below the root (0 for the root
// itself), is an embedded resource. A $id that is only a fragment
// (draft-07's plain-name anchor) changes no base, nor does one the root
// has already, nor, up to draft-07, one beside a $ref, which replaces the
// object it is in.
func (w resourceWalk) resource(n *jsontree.Node, depth int) bool {
	if depth == 0 || n.Kind != jsontree.Object {
		return false
	}
	s, ok := n.Get(w.key).StringValue()
	return ok && s != "" && s[0] != '#' && s != w.rootID && !(w.draft == Draft7 && n.Has("$ref"))
}

// walk calls fn for every object in n, at ptr and depth, skipping the
// keywords that hold data, with the pointer and node of the innermost
// embedded resource around or at it (in is nil outside any).
func (w resourceWalk) walk(n *jsontree.Node, ptr string, depth int, inPtr string, in *jsontree.Node, fn func(n *jsontree.Node, ptr, inPtr string, in *jsontree.Node)) {
	switch n.Kind {
	case jsontree.Object:
		if w.resource(n, depth) {
			inPtr, in = ptr, n
		}
		fn(n, ptr, inPtr, in)
		for _, m := range n.Members {
			if !DataKeywords[m.Key] && (m.Value.Kind == jsontree.Object || m.Value.Kind == jsontree.Array) {
				w.walk(m.Value, ptr+"/"+jsontree.EscapeToken(m.Key), depth+1, inPtr, in, fn)
			}
		}
	case jsontree.Array:
		for i, it := range n.Items {
			if it.Kind == jsontree.Object || it.Kind == jsontree.Array {
				w.walk(it, ptr+"/"+strconv.Itoa(i), depth+1, inPtr, in, fn)
			}
		}
	}
}

// hasEmbeddedRefs reports whether a $ref in root is a fragment inside an
// embedded resource, which rewriteEmbedded rewrites. It builds no pointers:
// every consumer calls it, through StaticRefs, on every schema it reads.
func hasEmbeddedRefs(root *jsontree.Node) bool {
	return newResourceWalk(root).hasRefs(root, 0, false)
}

func (w resourceWalk) hasRefs(n *jsontree.Node, depth int, in bool) bool {
	switch n.Kind {
	case jsontree.Object:
		in = in || w.resource(n, depth)
		if ref, ok := n.Get("$ref").StringValue(); ok && in && strings.HasPrefix(ref, "#") {
			return true
		}
		for _, m := range n.Members {
			if !DataKeywords[m.Key] && (m.Value.Kind == jsontree.Object || m.Value.Kind == jsontree.Array) && w.hasRefs(m.Value, depth+1, in) {
				return true
			}
		}
	case jsontree.Array:
		for _, it := range n.Items {
			if w.hasRefs(it, depth+1, in) {
				return true
			}
		}
	}
	return false
}

// rewriteEmbedded rewrites, in place, each $ref of root that is a fragment
// inside an embedded resource into the JSON pointer from root of the
// schema it resolves to within that resource. A plain-name fragment that no
// $anchor of the resource declares becomes the resource's $id followed by
// the fragment: a reference outside the document, as it is. It returns the
// embedded resources, for stripResources.
func rewriteEmbedded(root *jsontree.Node) []*jsontree.Node {
	w := newResourceWalk(root)
	var resources []*jsontree.Node
	w.walk(root, "", 0, "", nil, func(n *jsontree.Node, _, inPtr string, in *jsontree.Node) {
		if in == n {
			resources = append(resources, n)
		}
		v := n.Get("$ref")
		ref, ok := v.StringValue()
		if !ok || in == nil || !strings.HasPrefix(ref, "#") {
			return
		}
		frag := unescapeURI(ref[1:])
		switch {
		case frag == "" || strings.HasPrefix(frag, "/"):
			v.Str = "#" + escapeFragment(inPtr+frag)
		default:
			if p, ok := w.anchor(in, frag, inPtr, true); ok {
				v.Str = "#" + escapeFragment(p)
			} else {
				id, _ := in.Get(w.key).StringValue()
				v.Str = strings.TrimSuffix(id, "#") + ref
			}
		}
	})
	return resources
}

// stripResources removes from the embedded resources of root, once
// rewriteEmbedded has made every reference into them a pointer from root,
// the $ids that made them resources and the plain-name anchors in them
// (which their own names might repeat), so that the document reads the
// same when read again.
func stripResources(root *jsontree.Node, resources []*jsontree.Node) {
	key := idKeyword(root)
	var strip func(n *jsontree.Node)
	strip = func(n *jsontree.Node) {
		switch n.Kind {
		case jsontree.Object:
			n.Delete("$anchor")
			if s, ok := n.Get(key).StringValue(); ok && strings.HasPrefix(s, "#") {
				n.Delete(key)
			}
			for _, m := range n.Members {
				if !DataKeywords[m.Key] {
					strip(m.Value)
				}
			}
		case jsontree.Array:
			for _, it := range n.Items {
				strip(it)
			}
		}
	}
	for _, n := range resources {
		n.Delete(key)
		strip(n)
	}
}

// anchor finds the schema declaring "$anchor" or "$dynamicAnchor" name in
// the resource n at ptr, without entering the resources embedded in it.
func (w resourceWalk) anchor(n *jsontree.Node, name, ptr string, top bool) (string, bool) {
	switch n.Kind {
	case jsontree.Object:
		if !top && w.resource(n, 1) {
			return "", false
		}
		for _, k := range []string{"$anchor", "$dynamicAnchor"} {
			if a, ok := n.Get(k).StringValue(); ok && a == name {
				return ptr, true
			}
		}
		// Up to draft-07 a plain-name anchor is a $id that is a fragment.
		if a, ok := n.Get(w.key).StringValue(); ok && a == "#"+name {
			return ptr, true
		}
		for _, m := range n.Members {
			if DataKeywords[m.Key] {
				continue
			}
			if p, ok := w.anchor(m.Value, name, ptr+"/"+jsontree.EscapeToken(m.Key), false); ok {
				return p, true
			}
		}
	case jsontree.Array:
		for i, it := range n.Items {
			if p, ok := w.anchor(it, name, ptr+"/"+strconv.Itoa(i), false); ok {
				return p, true
			}
		}
	}
	return "", false
}
