package schema

import (
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// Draft is the JSON Schema draft a document is read as.
type Draft int

const (
	// Draft2020 is JSON Schema 2020-12, and 2019-09, which reads $ref the
	// same way. Documents without $schema are read as 2020-12.
	Draft2020 Draft = iota
	// Draft7 is draft-07 and the drafts before it (06, 04).
	Draft7
)

// DraftOf returns the draft the document root names with $schema.
func DraftOf(root *jsontree.Node) Draft {
	s, _ := root.Get("$schema").StringValue()
	return DraftNamed(s)
}

// DraftNamed returns the draft the $schema URI s names.
func DraftNamed(s string) Draft {
	for _, d := range []string{"draft-07", "draft-06", "draft-04", "draft-03"} {
		if strings.Contains(s, d) {
			return Draft7
		}
	}
	return Draft2020
}

// RefSibling reports whether the keyword k, written beside a $ref, applies
// in draft d (see RefSiblings).
func (d Draft) RefSibling(k string) bool {
	return k != "$ref" && (d == Draft2020 || annotations[k])
}

// Annotation reports whether the keyword k describes a value rather than
// constrains it (title, description, default, examples and the like).
func Annotation(k string) bool { return annotations[k] }

// annotations describe a value rather than constrain it.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "example": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// RefSiblings returns the keywords beside the $ref of the schema object n
// that apply in draft d. From 2019-09 on they all do, as if in an allOf
// with the target. Up to draft-07 a $ref replaces the object it is in, so
// validators ignore the rest; the annotations are kept, because they still
// describe this use of the definition to a reader or a model.
func (d Draft) RefSiblings(n *jsontree.Node) *jsontree.Node {
	rest := &jsontree.Node{Kind: jsontree.Object}
	for _, m := range n.Members {
		if d.RefSibling(m.Key) {
			rest.Members = append(rest.Members, m)
		}
	}
	return rest
}
