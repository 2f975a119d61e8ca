// Package provschema rewrites MCP input schemas into the JSON Schema subsets
// that the Anthropic and OpenAI tool APIs accept, and maps arguments written
// for a rewritten schema back to what the server's schema expects.
package provschema

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
)

// Root parses a tool's input schema and returns it as a plain object schema
// with no union or reference at its top level, as both providers require:
// a top-level $ref and allOf are merged into it as allOf does (see
// schema.Flattener), and a top-level anyOf or oneOf
// is removed and returned as a note for the tool description (the handler
// still validates against the server's own schema). An empty schema gives
// {"type":"object","properties":{}}.
func Root(tool string, raw []byte) (*jsontree.Node, string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte(`{}`)
	}
	doc, err := jsontree.ParseUnique(raw)
	if err != nil {
		return nil, "", fmt.Errorf("tool %s: reading input schema: %w", tool, err)
	}
	if doc.Kind == jsontree.Bool && doc.Bool {
		doc = &jsontree.Node{Kind: jsontree.Object}
	}
	if doc.Kind != jsontree.Object {
		return nil, "", fmt.Errorf("tool %s: input schema at (root): schema is a JSON %s, not an object", tool, doc.Kind)
	}
	doc = schema.StaticRefs(doc)
	f := &schema.Flattener{Root: doc, Merge: rootMerge}
	root, _, err := f.Flatten(doc, "")
	var fe *schema.FlattenError
	switch {
	case errors.As(err, &fe):
		return nil, "", fmt.Errorf("tool %s: input schema at %s: %s", tool, pointerText(fe.Pointer), fe.Msg)
	case err != nil:
		return nil, "", fmt.Errorf("tool %s: input schema: %w", tool, err)
	}
	root = root.Clone()
	if t := root.Get("type"); t != nil {
		if s, ok := t.StringValue(); !ok || s != "object" {
			return nil, "", fmt.Errorf("tool %s: input schema at (root): type is %s, not object", tool, t.String())
		}
	}
	var notes []string
	for _, key := range []string{"anyOf", "oneOf"} {
		if u := root.Get(key); u != nil {
			root.Delete(key)
			notes = append(notes, "The arguments must also match one of these schemas: "+u.String()+".")
		}
	}
	root.Delete("not")
	out := &jsontree.Node{Kind: jsontree.Object}
	out.Set("type", &jsontree.Node{Kind: jsontree.String, Str: "object"})
	props := root.Get("properties")
	if props == nil || props.Kind != jsontree.Object {
		props = &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{}}
	}
	out.Set("properties", props)
	for _, m := range root.Members {
		if m.Key != "type" && m.Key != "properties" {
			out.Set(m.Key, m.Value)
		}
	}
	return out, strings.Join(notes, " "), nil
}

// rootMerge adds the keywords of src, found at ptr, to dst, as allOf does
// (see schema.MergeKeyword); of two values JSON Schema cannot merge, the
// first (the keywords beside a $ref, then earlier allOf parts) is kept.
// Only the root's own $defs are kept: its $refs point there.
func rootMerge(dst, src *jsontree.Node, ptr string) error {
	for _, m := range src.Members {
		k, sv := m.Key, m.Value
		dv := dst.Get(k)
		switch {
		case ptr != "" && (k == "$defs" || k == "definitions" || k == "$id" || k == "$schema"):
		case dv == nil:
			dst.Set(k, sv)
		default:
			merged, ok, err := schema.MergeKeyword(k, dv, sv)
			if err != nil {
				return &schema.FlattenError{Pointer: ptr + "/" + jsontree.EscapeToken(k), Msg: "the schemas cannot be merged: " + err.Error()}
			}
			if ok {
				dst.Set(k, merged)
			}
		}
	}
	return nil
}

func pointerText(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}

// Required returns the names in a schema's required list.
func Required(n *jsontree.Node) []string {
	var out []string
	if r := n.Get("required"); r != nil {
		for _, v := range r.Items {
			if s, ok := v.StringValue(); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// Strict rewrites a Root schema for OpenAI's strict mode: every object gets
// additionalProperties false and lists all its properties as required, an
// optional property becomes nullable (a "null" type, or an anyOf branch),
// oneOf becomes anyOf, and keywords strict mode does not accept move into
// the description. It returns a non-empty reason instead when strict mode
// cannot express the schema (a free-form object, a value of any type, an
// allOf, a reference into anything but $defs), in which case the caller
// declares the tool without strict mode.
func Strict(root *jsontree.Node) (*jsontree.Node, string) {
	s := &strict{}
	out := s.schema(root.Clone(), "", true)
	if s.reason == "" && s.props > maxStrictProperties {
		s.reason = fmt.Sprintf("(root): %d object properties exceed strict mode's limit of %d", s.props, maxStrictProperties)
	}
	return out, s.reason
}

// Strict mode's size limits.
const (
	maxStrictProperties = 5000
	maxStrictNesting    = 10
)

type strict struct {
	reason string
	props  int // object properties seen
	depth  int // objects around the current schema
}

func (s *strict) fail(ptr, format string, args ...any) {
	if s.reason == "" {
		p := ptr
		if p == "" {
			p = "(root)"
		}
		s.reason = p + ": " + fmt.Sprintf(format, args...)
	}
}

// Keywords strict mode accepts.
var strictKeys = []string{
	"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
	"description", "title", "$ref", "$defs", "definitions", "pattern", "format",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
}

// Formats strict mode accepts.
var strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

func (s *strict) schema(n *jsontree.Node, ptr string, root bool) *jsontree.Node {
	if n.Kind == jsontree.Bool {
		s.fail(ptr, "a boolean schema has no strict form")
		return n
	}
	if n.Kind != jsontree.Object {
		s.fail(ptr, "schema is a JSON %s", n.Kind)
		return n
	}
	if o := n.Get("oneOf"); o != nil {
		if n.Has("anyOf") {
			s.fail(ptr, "anyOf beside oneOf has no strict form")
		}
		n.Set("anyOf", o)
		n.Delete("oneOf")
	}
	if n.Has("allOf") {
		s.fail(ptr, "allOf has no strict form")
	}
	if r, ok := n.Get("$ref").StringValue(); ok {
		if !isDefsRef(r) {
			s.fail(ptr, "$ref %q does not point at a $defs entry", r)
		}
	}
	var notes []string
	out := &jsontree.Node{Kind: jsontree.Object}
	for _, m := range n.Members {
		if slices.Contains(strictKeys, m.Key) {
			out.Set(m.Key, m.Value)
			continue
		}
		switch m.Key {
		case "minLength":
			notes = append(notes, "At least "+characters(m.Value)+".")
		case "maxLength":
			notes = append(notes, "At most "+characters(m.Value)+".")
		case "default":
			notes = append(notes, "Default: "+m.Value.String()+".")
		case "uniqueItems":
			if m.Value.Kind == jsontree.Bool && m.Value.Bool {
				notes = append(notes, "Items must be unique.")
			}
		}
	}
	// Draft-04 boolean exclusive bounds become draft-06 numbers.
	for _, b := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		if ex := out.Get(b[0]); ex != nil && ex.Kind == jsontree.Bool {
			out.Delete(b[0])
			if bound := out.Get(b[1]); ex.Bool && bound != nil {
				out.Delete(b[1])
				out.Set(b[0], bound)
			}
		}
	}
	if f, ok := out.Get("format").StringValue(); ok && !slices.Contains(strictFormats, f) {
		out.Delete("format")
		notes = append(notes, "Format: "+f+".")
	}
	if len(notes) > 0 {
		d, _ := out.Get("description").StringValue()
		if d = strings.TrimSpace(d); d != "" && !strings.ContainsAny(d[len(d)-1:], ".!?:;)`\"'") {
			d += "."
		}
		out.Set("description", &jsontree.Node{Kind: jsontree.String, Str: strings.TrimSpace(d + " " + strings.Join(notes, " "))})
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs := out.Get(key); defs != nil && defs.Kind == jsontree.Object {
			nd := &jsontree.Node{Kind: jsontree.Object}
			for _, m := range defs.Members {
				nd.Set(m.Key, s.schema(m.Value, ptr+"/"+key+"/"+jsontree.EscapeToken(m.Key), false))
			}
			out.Set(key, nd)
		}
	}
	if a := out.Get("anyOf"); a != nil && a.Kind == jsontree.Array {
		na := &jsontree.Node{Kind: jsontree.Array}
		for i, b := range a.Items {
			na.Items = append(na.Items, s.schema(b, fmt.Sprintf("%s/anyOf/%d", ptr, i), false))
		}
		out.Set("anyOf", na)
	}
	types := schema.Types(out.Get("type"))
	if len(types) == 0 && !out.Has("anyOf") && !out.Has("$ref") && !out.Has("enum") && !out.Has("const") {
		switch {
		case out.Has("properties"):
			types = []string{"object"}
			out.Set("type", &jsontree.Node{Kind: jsontree.String, Str: "object"})
		case out.Has("items"):
			types = []string{"array"}
			out.Set("type", &jsontree.Node{Kind: jsontree.String, Str: "array"})
		default:
			s.fail(ptr, "a schema without a type has no strict form")
		}
	}
	if slices.Contains(types, "array") {
		items := out.Get("items")
		if items == nil || items.Kind != jsontree.Object {
			s.fail(ptr, "an array without an items schema has no strict form")
		} else {
			out.Set("items", s.schema(items, ptr+"/items", false))
		}
	}
	if slices.Contains(types, "object") {
		s.depth++
		defer func() { s.depth-- }()
		if s.depth > maxStrictNesting {
			s.fail(ptr, "objects nest deeper than strict mode's limit of %d levels", maxStrictNesting)
		}
		props := out.Get("properties")
		if props == nil || props.Kind != jsontree.Object || len(props.Members) == 0 {
			if !root {
				s.fail(ptr, "an object without declared properties has no strict form")
			}
			props = &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{}}
		}
		// Extra keys the server may allow cannot be sent in strict mode;
		// the declared properties still can.
		required := Required(out)
		np := &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{}}
		req := &jsontree.Node{Kind: jsontree.Array, Items: []*jsontree.Node{}}
		s.props += len(props.Members)
		for _, m := range props.Members {
			ps := s.schema(m.Value, ptr+"/properties/"+jsontree.EscapeToken(m.Key), false)
			if !slices.Contains(required, m.Key) {
				ps = nullable(ps)
			}
			np.Set(m.Key, ps)
			req.Items = append(req.Items, &jsontree.Node{Kind: jsontree.String, Str: m.Key})
		}
		out.Set("properties", np)
		out.Set("required", req)
		out.Set("additionalProperties", &jsontree.Node{Kind: jsontree.Bool, Bool: false})
	}
	return out
}

func isDefsRef(r string) bool {
	for _, p := range []string{"#/$defs/", "#/definitions/"} {
		if rest, ok := strings.CutPrefix(r, p); ok && rest != "" && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

// nullable makes a strict schema accept null too.
func nullable(n *jsontree.Node) *jsontree.Node {
	if acceptsNullShallow(n) {
		return n
	}
	if t := n.Get("type"); t != nil && !n.Has("$ref") && !n.Has("anyOf") && !n.Has("const") {
		types := schema.Types(t)
		arr := &jsontree.Node{Kind: jsontree.Array}
		for _, x := range types {
			arr.Items = append(arr.Items, &jsontree.Node{Kind: jsontree.String, Str: x})
		}
		arr.Items = append(arr.Items, &jsontree.Node{Kind: jsontree.String, Str: "null"})
		out := n.Clone()
		out.Set("type", arr)
		if e := out.Get("enum"); e != nil && e.Kind == jsontree.Array {
			e.Items = append(e.Items, &jsontree.Node{Kind: jsontree.Null})
		}
		return out
	}
	if a := n.Get("anyOf"); a != nil && a.Kind == jsontree.Array && len(n.Members) <= 2 && (len(n.Members) == 1 || n.Has("description")) {
		out := n.Clone()
		out.Get("anyOf").Items = append(out.Get("anyOf").Items, nullType())
		return out
	}
	wrap := &jsontree.Node{Kind: jsontree.Object}
	if d := n.Get("description"); d != nil {
		wrap.Set("description", d)
		n = n.Without("description")
	}
	wrap.Set("anyOf", &jsontree.Node{Kind: jsontree.Array, Items: []*jsontree.Node{n, nullType()}})
	return wrap
}

func nullType() *jsontree.Node {
	return &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{{Key: "type", Value: &jsontree.Node{Kind: jsontree.String, Str: "null"}}}}
}

// acceptsNullShallow reports whether a schema visibly accepts null, without
// following references.
func acceptsNullShallow(n *jsontree.Node) bool {
	if slices.Contains(schema.Types(n.Get("type")), "null") && !n.Has("enum") {
		return true
	}
	if a := n.Get("anyOf"); a != nil {
		for _, b := range a.Items {
			if acceptsNullShallow(b) {
				return true
			}
		}
	}
	return false
}

// characters writes a length limit with the noun that agrees with it: "1
// character", "2 characters".
func characters(n *jsontree.Node) string {
	if n.String() == "1" {
		return "1 character"
	}
	return n.String() + " characters"
}
