package schema

import (
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// StaticRefs returns the schema document root with every $dynamicRef (and
// 2019-09's $recursiveRef) replaced by the $ref it resolves to, and every
// $ref inside an embedded resource (a schema with a $id of its own) that
// is a fragment replaced by the JSON pointer from root it resolves to
// within that resource, so that the rest of the module follows one kind of
// reference, against the root (see Resolve). Those resources lose their
// $id and plain-name anchors, which nothing refers to any more, so that the
// result reads the same when read again. root itself is not changed; it is
// returned as it is when it holds none of those. The $refs written are
// JSON pointers, which every consumer reads.
//
// Only one document is read, so the dynamic scope of any reference in it
// starts at the document's root resource. A $dynamicRef to "#name" whose
// static target declares "$dynamicAnchor": "name" resolves to the
// outermost schema of that scope declaring it: the one in the root
// resource, outside any embedded resource with its own $id, when there is
// one, and the static target otherwise. Any other $dynamicRef is a $ref.
// $recursiveRef "#" is the root. References that do not resolve, remote ones
// included, are left as they are, for the caller to report.
func StaticRefs(root *jsontree.Node) *jsontree.Node {
	dynamic := DraftOf(root) == Draft2020 && hasDynamic(root)
	embedded := hasEmbeddedRefs(root)
	if !dynamic && !embedded {
		return root
	}
	out := root.Clone()
	var resources []*jsontree.Node
	if embedded {
		resources = rewriteEmbedded(out)
	}
	if dynamic {
		rewriteDynamic(out, out)
	}
	stripResources(out, resources)
	return out
}

// hasDynamic reports whether a $dynamicRef or $recursiveRef is in n.
func hasDynamic(n *jsontree.Node) bool {
	switch n.Kind {
	case jsontree.Object:
		for _, m := range n.Members {
			if m.Key == "$dynamicRef" || m.Key == "$recursiveRef" {
				return true
			}
			if !DataKeywords[m.Key] && hasDynamic(m.Value) {
				return true
			}
		}
	case jsontree.Array:
		for _, it := range n.Items {
			if hasDynamic(it) {
				return true
			}
		}
	}
	return false
}

func rewriteDynamic(root, n *jsontree.Node) {
	switch n.Kind {
	case jsontree.Array:
		for _, it := range n.Items {
			rewriteDynamic(root, it)
		}
		return
	case jsontree.Object:
	default:
		return
	}
	for _, m := range n.Members {
		if !DataKeywords[m.Key] {
			rewriteDynamic(root, m.Value)
		}
	}
	for _, k := range []string{"$dynamicRef", "$recursiveRef"} {
		v := n.Get(k)
		s, ok := v.StringValue()
		if !ok {
			continue
		}
		target, ok := dynamicTarget(root, k, s)
		if !ok {
			continue
		}
		ref := &jsontree.Node{Kind: jsontree.String, Str: target}
		if !n.Has("$ref") {
			for i := range n.Members {
				if n.Members[i].Key == k {
					n.Members[i] = jsontree.Member{Key: "$ref", Value: ref}
				}
			}
			continue
		}
		// Both references apply, as an allOf.
		n.Delete(k)
		part := &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{{Key: "$ref", Value: ref}}}
		all := n.Get("allOf")
		if all == nil || all.Kind != jsontree.Array {
			n.Set("allOf", &jsontree.Node{Kind: jsontree.Array, Items: []*jsontree.Node{part}})
		} else {
			all.Items = append(all.Items, part)
		}
	}
}

// dynamicTarget returns the $ref that the reference s, the value of the
// keyword k, resolves to within root, and false when it does not resolve.
func dynamicTarget(root *jsontree.Node, k, s string) (string, bool) {
	target, static, err := Resolve(root, s)
	if err != nil {
		return "", false
	}
	if k == "$recursiveRef" {
		return s, true
	}
	name := unescapeURI(s[strings.LastIndexByte(s, '#')+1:])
	if a, _ := target.Get("$dynamicAnchor").StringValue(); a == name && name != "" {
		if ptr, ok := rootDynamicAnchor(root, name, ""); ok {
			static = ptr
		}
	}
	return "#" + escapeFragment(static), true
}

// rootDynamicAnchor finds the schema declaring "$dynamicAnchor": name in
// the root resource of n, without entering embedded resources.
func rootDynamicAnchor(n *jsontree.Node, name, ptr string) (string, bool) {
	switch n.Kind {
	case jsontree.Object:
		if ptr != "" && n.Has("$id") {
			return "", false
		}
		if a, ok := n.Get("$dynamicAnchor").StringValue(); ok && a == name {
			return ptr, true
		}
		for _, m := range n.Members {
			if DataKeywords[m.Key] {
				continue
			}
			if p, ok := rootDynamicAnchor(m.Value, name, ptr+"/"+jsontree.EscapeToken(m.Key)); ok {
				return p, true
			}
		}
	case jsontree.Array:
		for i, it := range n.Items {
			if p, ok := rootDynamicAnchor(it, name, ptr+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// escapeFragment writes a JSON pointer as a URI fragment: only "%", which
// Resolve decodes, needs escaping.
func escapeFragment(ptr string) string {
	return strings.ReplaceAll(ptr, "%", "%25")
}
