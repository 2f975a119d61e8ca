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
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
)

// Root parses a tool's input schema and returns it as a plain object schema
// with no union or reference at its top level, as both providers require:
// a top-level $ref and allOf are merged into it as allOf does (see
// schema.Flattener), and a top-level anyOf or oneOf
// is removed and returned as a note for the tool description (the handler
// still validates against the server's own schema). A $ref into what was
// removed points at a copy of its target in $defs instead. A type list
// that holds "object", such as ["object","null"], becomes "object". An
// empty schema, true or false gives {"type":"object","properties":{}}.
func Root(tool string, raw []byte) (*jsontree.Node, string, error) {
	root, note, _, err := rootAndUnion(tool, raw)
	return root, note, err
}

// rootAndUnion is Root, which also returns the branches of the top-level
// anyOf and oneOf it removed.
func rootAndUnion(tool string, raw []byte) (*jsontree.Node, string, []*jsontree.Node, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte(`{}`)
	}
	doc, err := jsontree.ParseUnique(raw)
	if err != nil {
		return nil, "", nil, fmt.Errorf("tool %s: reading input schema: %w", tool, err)
	}
	if ptr, lit, ok := jsontree.BeyondFloat64(doc); ok {
		return nil, "", nil, fmt.Errorf("tool %s: input schema at %s: the number %s is beyond the range of a float64, which the provider reads JSON numbers as", tool, pointerText(ptr), lit)
	}
	if ptr, err := schema.InvalidRef(doc); err != nil {
		return nil, "", nil, fmt.Errorf("tool %s: input schema at %s: %v", tool, pointerText(ptr), err)
	}
	if doc.Kind == jsontree.Bool {
		// false allows no arguments: declared without any, as the
		// Gemini declarations declare it.
		doc = &jsontree.Node{Kind: jsontree.Object}
	}
	if doc.Kind != jsontree.Object {
		return nil, "", nil, fmt.Errorf("tool %s: input schema at (root): schema is a JSON %s, not an object", tool, doc.Kind)
	}
	doc = schema.StaticRefs(doc)
	f := &schema.Flattener{Root: doc, Merge: rootMerge}
	root, _, err := f.Flatten(doc, "")
	var fe *schema.FlattenError
	switch {
	case errors.As(err, &fe):
		return nil, "", nil, fmt.Errorf("tool %s: input schema at %s: %s", tool, pointerText(fe.Pointer), fe.Msg)
	case err != nil:
		return nil, "", nil, fmt.Errorf("tool %s: input schema: %w", tool, err)
	}
	root = root.Clone()
	// A type list that holds "object" is declared as "object", as the
	// Gemini declarations take it: the arguments are an object.
	if t := root.Get("type"); t != nil && !slices.Contains(schema.Types(t), "object") {
		return nil, "", nil, fmt.Errorf("tool %s: input schema at (root): type is %s, not object", tool, t.String())
	}
	var notes []string
	var branches []*jsontree.Node
	for _, key := range []string{"anyOf", "oneOf"} {
		if u := root.Get(key); u != nil {
			root.Delete(key)
			notes = append(notes, "The arguments must also match one of these schemas: "+u.String()+".")
			branches = append(branches, u.Items...)
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
	keepRefTargets(doc, out)
	return out, strings.Join(notes, " "), branches, nil
}

// keepRefTargets makes each $ref in out, a Root schema made from the
// server's schema doc, that resolves in doc but no longer in out (it
// pointed into a top-level anyOf, oneOf or allOf, or at an $anchor there,
// which Root removed) point at a copy of its target in out's $defs, so that
// the declared schema holds no reference to nothing. References in a copy
// are kept the same way; a target referred to twice is copied once.
func keepRefTargets(doc, out *jsontree.Node) {
	moved := map[string]string{} // pointer in doc → name in out's $defs
	var visit func(n *jsontree.Node)
	visit = func(n *jsontree.Node) {
		switch n.Kind {
		case jsontree.Array:
			for _, it := range n.Items {
				visit(it)
			}
			return
		case jsontree.Object:
		default:
			return
		}
		for _, m := range n.Members {
			if !schema.DataKeywords[m.Key] {
				visit(m.Value)
			}
		}
		r, ok := n.Get("$ref").StringValue()
		if !ok {
			return
		}
		if _, _, err := schema.Resolve(out, r); err == nil {
			return
		}
		target, ptr, err := schema.Resolve(doc, r)
		if err != nil {
			return
		}
		name, ok := moved[ptr]
		if !ok {
			defs := out.Get("$defs")
			if defs == nil || defs.Kind != jsontree.Object {
				defs = &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{}}
				out.Set("$defs", defs)
			}
			name = defName(defs, ptr)
			moved[ptr] = name
			c := target.Clone()
			defs.Set(name, c)
			visit(c)
		}
		n.Set("$ref", &jsontree.Node{Kind: jsontree.String, Str: "#/$defs/" + jsontree.EscapeToken(name)})
	}
	visit(out)
}

// defName returns a name for the copy of the schema at ptr that no member
// of defs has: the pointer's tokens joined by '_', letters, digits, '_' and
// '-' kept and other characters replaced by '_'.
func defName(defs *jsontree.Node, ptr string) string {
	var b strings.Builder
	for _, c := range strings.TrimPrefix(ptr, "/") {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	base := b.String()
	if base == "" {
		base = "root"
	}
	name := base
	for i := 2; defs.Has(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
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

// StrictDecl is Strict for a declaration: it also fails when a branch of
// the top-level union that Root removed declares or requires keys of its
// own, which strict mode's closed top-level object would not let the model
// send.
func StrictDecl(d Decl) (*jsontree.Node, string) {
	props := d.Root.Get("properties")
	for i, b := range d.Union {
		if b.Kind != jsontree.Object {
			continue
		}
		if b.Has("$ref") || b.Has("allOf") || hasKeySchema(b) {
			return nil, fmt.Sprintf("(root): branch %d of the top-level union has no strict form", i)
		}
		if bp := b.Get("properties"); bp != nil {
			for _, m := range bp.Members {
				if props == nil || !props.Has(m.Key) {
					return nil, fmt.Sprintf("(root): branch %d of the top-level union declares property %q, which the top-level object does not", i, m.Key)
				}
			}
		}
		for _, r := range Required(b) {
			if props == nil || !props.Has(r) {
				return nil, fmt.Sprintf("(root): branch %d of the top-level union requires property %q, which the top-level object does not declare", i, r)
			}
		}
	}
	return Strict(d.Root)
}

// Strict rewrites a Root schema for OpenAI's strict mode: every object gets
// additionalProperties false and lists all its properties as required, an
// optional property becomes nullable (a "null" type, or an anyOf branch),
// oneOf becomes anyOf, and keywords strict mode does not accept move into
// the description. It returns a non-empty reason instead when strict mode
// cannot express the schema (a free-form object, a value of any type, an
// allOf, a tuple, a reference to anything but an entry of $defs, a required
// property that properties does not declare), in which case the caller
// declares the tool without strict mode.
func Strict(root *jsontree.Node) (*jsontree.Node, string) {
	s := &strict{root: root}
	out := s.schema(root.Clone(), "", true)
	if s.reason == "" && s.props > maxStrictProperties {
		s.reason = fmt.Sprintf("(root): %d object properties exceed strict mode's limit of %d", s.props, maxStrictProperties)
	}
	if s.reason == "" {
		n := s.enums(out, "")
		switch {
		case s.reason != "":
		case n > maxStrictEnumValues:
			s.reason = fmt.Sprintf("(root): %d enum values exceed strict mode's limit of %d", n, maxStrictEnumValues)
		case s.chars > maxStrictChars:
			s.reason = fmt.Sprintf("(root): property names, definition names, enum values and const values take %d characters, more than strict mode's limit of %d", s.chars, maxStrictChars)
		}
	}
	return out, s.reason
}

// Strict mode's size limits.
const (
	maxStrictProperties = 5000
	maxStrictNesting    = 10
	// maxStrictEnumValues bounds the enum values of one schema, counted
	// over all its enums.
	maxStrictEnumValues = 1000
	// maxStrictEnumChars bounds the total length of the string values of
	// one enum of more than maxStrictLargeEnum values.
	maxStrictEnumChars = 15000
	maxStrictLargeEnum = 250
	// maxStrictChars bounds the total length of a schema's property
	// names, definition names, enum values and const values.
	maxStrictChars = 120000
)

// enums returns the number of enum values in a strict schema n, found at
// ptr, adds the length of its property names, definition names and string
// enum and const values to s.chars, and fails when one enum's string values
// are longer than strict mode allows.
func (s *strict) enums(n *jsontree.Node, ptr string) int {
	if n == nil || n.Kind != jsontree.Object {
		return 0
	}
	count := 0
	if e := n.Get("enum"); e != nil && e.Kind == jsontree.Array {
		count += len(e.Items)
		chars := 0
		for _, v := range e.Items {
			if str, ok := v.StringValue(); ok {
				chars += utf8.RuneCountInString(str)
			}
		}
		s.chars += chars
		if len(e.Items) > maxStrictLargeEnum && chars > maxStrictEnumChars {
			s.fail(ptr, "the %d values of the enum take %d characters, more than strict mode's limit of %d for an enum of more than %d values",
				len(e.Items), chars, maxStrictEnumChars, maxStrictLargeEnum)
		}
	}
	if str, ok := n.Get("const").StringValue(); ok {
		s.chars += utf8.RuneCountInString(str)
	}
	for _, key := range []string{"properties", "$defs", "definitions"} {
		if m := n.Get(key); m != nil && m.Kind == jsontree.Object {
			for _, p := range m.Members {
				s.chars += utf8.RuneCountInString(p.Key)
				count += s.enums(p.Value, ptr+"/"+key+"/"+jsontree.EscapeToken(p.Key))
			}
		}
	}
	if a := n.Get("anyOf"); a != nil && a.Kind == jsontree.Array {
		for i, b := range a.Items {
			count += s.enums(b, fmt.Sprintf("%s/anyOf/%d", ptr, i))
		}
	}
	count += s.enums(n.Get("items"), ptr+"/items")
	return count
}

type strict struct {
	root   *jsontree.Node // the Root schema, in which $refs resolve
	reason string
	props  int // object properties seen
	chars  int // characters of names, enum values and const values (see enums)
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
	if p := n.Get("prefixItems"); p != nil && p.Kind == jsontree.Array && len(p.Items) > 0 {
		// Without prefixItems, items would describe the first items too.
		s.fail(ptr, "a tuple (prefixItems) has no strict form")
	}
	if r, ok := n.Get("$ref").StringValue(); ok {
		if !isDefsRef(r) {
			s.fail(ptr, "$ref %q does not point at a $defs entry", r)
		} else if _, _, err := schema.Resolve(s.root, r); err != nil {
			s.fail(ptr, "$ref %q points at no $defs entry", r)
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
			// At the top level such an object is a tool without
			// arguments, unless it has a schema for its keys: a map,
			// which strict mode would leave the model no key to send.
			if !root || hasKeySchema(n) {
				s.fail(ptr, "an object without declared properties has no strict form")
			}
			props = &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{}}
		}
		// Extra keys the server may allow cannot be sent in strict mode;
		// the declared properties still can.
		required := Required(out)
		for _, r := range required {
			if !props.Has(r) {
				s.fail(ptr, "required property %q is not declared, and strict mode's closed object would not let the model send it", r)
				break
			}
		}
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

// hasKeySchema reports whether an object schema has a schema for keys it
// does not declare: a non-empty additionalProperties schema, or
// patternProperties.
func hasKeySchema(n *jsontree.Node) bool {
	if ap := n.Get("additionalProperties"); ap != nil && ap.Kind == jsontree.Object && len(ap.Members) > 0 {
		return true
	}
	pp := n.Get("patternProperties")
	return pp != nil && pp.Kind == jsontree.Object && len(pp.Members) > 0
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
		// A type list holds each type once: "null" may be there already,
		// beside an enum without null.
		if !slices.Contains(types, "null") {
			arr.Items = append(arr.Items, &jsontree.Node{Kind: jsontree.String, Str: "null"})
		}
		out := n.Clone()
		out.Set("type", arr)
		if e := out.Get("enum"); e != nil && e.Kind == jsontree.Array && !slices.ContainsFunc(e.Items, isNull) {
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

func isNull(n *jsontree.Node) bool { return n.Kind == jsontree.Null }

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
