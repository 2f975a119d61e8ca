package geminidecl

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
)

// Limits of the typed conversion.
const (
	// maxRecursion is how many times one $ref may be expanded inside itself
	// before the recursive property is left out.
	maxRecursion = 2
	// maxDepth bounds the nesting of the converted schema; a deeper one is
	// declared in the JSON Schema form instead.
	maxDepth = 64
	// maxSchemas bounds the number of schema nodes of one declaration; a
	// larger one is declared in the JSON Schema form instead.
	maxSchemas = 5000
	// maxFlatten bounds chains of $ref and allOf resolved at one place.
	maxFlatten = 64
	// maxExtraText bounds how much more text (descriptions, enum values,
	// formats, property names) the typed form of a schema may hold than
	// the schema's own size: expanding a $ref at every use repeats its
	// text, so that a small schema could make a declaration of hundreds
	// of megabytes. A larger one is declared in the JSON Schema form
	// instead.
	maxExtraText = 1 << 20
)

// converter turns one tool's input schema into a *Schema.
type converter struct {
	tool string
	root *jsontree.Node
	// stack holds the $refs being expanded around the current node.
	stack []string
	// fallback, once set, says why the typed form cannot describe the tool
	// faithfully; the declaration then uses the JSON Schema form.
	fallback string
	count    int
	// text is the text of the schemas converted so far (see textSize),
	// maxText the most that falls back to the JSON Schema form.
	text, maxText int
	// flat resolves $ref and allOf, each $ref target once per converter.
	flat *schema.Flattener
}

// addRef appends r to refs unless it is there already: refs say which
// references a schema expands, not how often.
func addRef(refs *[]string, r string) {
	if !slices.Contains(*refs, r) {
		*refs = append(*refs, r)
	}
}

// pruned marks a schema that is left out: it recurses too deep, or it
// allows no value at all.
type pruned struct {
	// recursive is set when the schema is left out because it recurses.
	recursive bool
}

func (c *converter) errorf(at *path, format string, args ...any) error {
	return fmt.Errorf("tool %s: input schema at %s: %s", c.tool, pointerText(at.String()), fmt.Sprintf(format, args...))
}

func (c *converter) fallbackf(at *path, format string, args ...any) {
	if c.fallback == "" {
		c.fallback = pointerText(at.String()) + ": " + fmt.Sprintf(format, args...)
	}
}

// path is the JSON pointer of a schema being converted, as a link to its
// parent's, so that the pointer's text is made only for a message rather
// than for every schema walked. A nil *path is the root.
type path struct {
	up *path
	// tok is the token this link adds, a keyword; with kind pointerPath, it
	// is a whole JSON pointer instead and up is nil.
	tok  string
	kind pathKind
	// key is the property name added after tok (kind keyPath); idx the
	// index (kind indexPath).
	key string
	idx int
}

type pathKind uint8

const (
	tokenPath   pathKind = iota // tok alone
	keyPath                     // tok, then key as a token
	indexPath                   // tok, then idx
	pointerPath                 // tok is a whole pointer
)

// String returns the JSON pointer's text, "" for the root.
func (p *path) String() string {
	var b strings.Builder
	b.Grow(p.size())
	p.write(&b)
	return b.String()
}

// size is the length of the pointer's text, or more when a key needs
// escaping.
func (p *path) size() int {
	n := 0
	for ; p != nil; p = p.up {
		n += len(p.tok) + 1
		switch p.kind {
		case keyPath:
			n += len(p.key) + 1
		case indexPath:
			n += 20
		}
	}
	return n
}

func (p *path) write(b *strings.Builder) {
	if p == nil {
		return
	}
	p.up.write(b)
	if p.kind == pointerPath {
		b.WriteString(p.tok)
		return
	}
	b.WriteByte('/')
	b.WriteString(p.tok)
	switch p.kind {
	case keyPath:
		b.WriteByte('/')
		b.WriteString(jsontree.EscapeToken(p.key))
	case indexPath:
		b.WriteByte('/')
		b.WriteString(strconv.Itoa(p.idx))
	}
}

func pointerText(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}

// flatten resolves $ref and allOf at the top of n, merging what they point
// at into one schema object without either keyword (see
// schema.Flattener). It appends the refs it expanded to refs.
func (c *converter) flatten(n *jsontree.Node, at *path, refs *[]string) (*jsontree.Node, error) {
	if c.flat == nil {
		c.flat = &schema.Flattener{Root: c.root, MaxDepth: maxFlatten, Merge: func(dst, src *jsontree.Node, ptr string) error {
			out, err := c.merge(dst, src, &path{tok: ptr, kind: pointerPath}, false)
			if err == nil {
				dst.Members = out.Members
			}
			return err
		}}
	}
	if c.flat.Plain(n) {
		return n, nil
	}
	out, expanded, err := c.flat.Flatten(n, at.String())
	if err != nil {
		return nil, c.flattenError(err)
	}
	for _, r := range expanded {
		addRef(refs, r)
	}
	return out, nil
}

// flattenError words an error of the Flattener for the tool.
func (c *converter) flattenError(err error) error {
	var fe *schema.FlattenError
	var se *schema.StepsError
	switch {
	case errors.As(err, &fe) && fe.TooDeep:
		at := &path{tok: fe.Pointer, kind: pointerPath}
		return &tooDeepError{error: c.errorf(at, "%s", fe.Msg), at: at, msg: fe.Msg}
	case errors.As(err, &fe):
		return c.errorf(&path{tok: fe.Pointer, kind: pointerPath}, "%s", fe.Msg)
	case errors.As(err, &se):
		return c.errorf(&path{tok: se.Pointer, kind: pointerPath}, "the schema takes more than %d $ref and allOf steps: it reaches its definitions through too many paths", se.Max)
	}
	return err
}

// tooDeepError is the error of a schema whose $ref and allOf nest deeper
// than the typed form expands: valid, and declared as it is.
type tooDeepError struct {
	error
	at  *path
	msg string
}

// tooDeep reports whether err says that a schema below the root is too
// deep to expand, and if so has the tool declared in the JSON Schema form.
func (c *converter) tooDeep(err error) bool {
	var td *tooDeepError
	if !errors.As(err, &td) {
		return false
	}
	c.fallbackf(td.at, "%s", td.msg)
	return true
}

// merge returns the schema that holds both a and b (their intersection), for
// allOf and for the siblings of a $ref. With local set, b holds the $ref's
// siblings and its annotations win; otherwise a's annotations win.
func (c *converter) merge(a, b *jsontree.Node, at *path, local bool) (*jsontree.Node, error) {
	out := shallow(a)
	for _, m := range b.Members {
		k, bv := m.Key, m.Value
		av := out.Get(k)
		if av == nil {
			switch k {
			case "$defs", "definitions", "$schema", "$id":
				continue
			}
			out.Set(k, bv)
			continue
		}
		if schema.Annotation(k) {
			if local {
				out.Set(k, bv)
			}
			continue
		}
		switch k {
		case "$defs", "definitions", "$schema", "$id", "$anchor", "additionalProperties", "propertyNames", "unevaluatedProperties":
			// Not represented in the typed form.
		case "anyOf", "oneOf":
			// Both unions must hold. convert reads anyOf beside oneOf as
			// that intersection, so the second union takes the free key.
			if jsontree.Equal(av, bv) {
				break
			}
			other := "oneOf"
			if k == "oneOf" {
				other = "anyOf"
			}
			if out.Has(other) {
				return nil, c.errorf(at, "allOf branches hold more than two unions, which cannot be merged")
			}
			out.Set(other, bv)
		case "not":
			// Neither holds: not either. A schema every value passes
			// makes the false schema, which allows no value.
			switch {
			case jsontree.Equal(av, bv), passesAll(av):
			case passesAll(bv):
				out.Set(k, bv)
			default:
				out.Set(k, &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{{Key: "anyOf", Value: &jsontree.Node{Kind: jsontree.Array, Items: []*jsontree.Node{av, bv}}}}})
			}
		case "pattern":
			if !jsontree.Equal(av, bv) {
				if s, ok := bv.StringValue(); ok {
					out.Set("x-mcpgen-also-pattern", &jsontree.Node{Kind: jsontree.String, Str: s})
				}
			}
		default:
			merged, ok, err := schema.MergeKeyword(k, av, bv)
			switch {
			case err != nil:
				return nil, c.errorf(at, "allOf branches are incompatible: %v", err)
			case !ok:
				return nil, c.errorf(at, "allOf branches are incompatible: %s is %s in one and %s in another", k, av.String(), bv.String())
			case k == "enum" && len(merged.Items) == 0:
				return nil, c.errorf(at, "allOf branches are incompatible: their enums share no value")
			}
			out.Set(k, merged)
		}
	}
	return out, nil
}

// shallow copies n's own members and items; the values they hold are shared,
// as merge never changes a value it did not make.
func shallow(n *jsontree.Node) *jsontree.Node {
	c := *n
	c.Members = slices.Clone(n.Members)
	c.Items = slices.Clone(n.Items)
	return &c
}

// convert turns one schema into a *Schema. It returns pruned when the
// schema is left out because it recurses too deep.
func (c *converter) convert(n *jsontree.Node, at *path, depth int) (*Schema, *pruned, error) {
	if depth > maxDepth {
		c.fallbackf(at, "the typed form would nest more than %d levels", maxDepth)
		return &Schema{Type: TypeString}, nil, nil
	}
	c.count++
	if c.count > maxSchemas {
		c.fallbackf(at, "the typed form would exceed %d schema nodes", maxSchemas)
		return &Schema{Type: TypeString}, nil, nil
	}
	if c.maxText > 0 && c.text > c.maxText {
		c.fallbackf(at, "the typed form would hold more than %d bytes of text", c.maxText)
		return &Schema{Type: TypeString}, nil, nil
	}
	s, pr, err := c.convertOne(n, at, depth)
	if s != nil {
		c.text += s.textSize()
	}
	return s, pr, err
}

// convertOne is convert, past its limits.
func (c *converter) convertOne(n *jsontree.Node, at *path, depth int) (*Schema, *pruned, error) {
	var refs []string
	flat, err := c.flatten(n, at, &refs)
	if c.tooDeep(err) {
		return &Schema{Type: TypeString}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, r := range refs {
		if countOf(c.stack, r) >= maxRecursion {
			return nil, &pruned{recursive: true}, nil
		}
	}
	c.stack = append(c.stack, refs...)
	defer func() { c.stack = c.stack[:len(c.stack)-len(refs)] }()

	if allowsNothing(flat) {
		// The false schema allows no value, so the property is left out.
		return nil, &pruned{}, nil
	}
	// With both anyOf and oneOf, anyOf's branches are merged with the rest,
	// oneOf included, which then splits each branch again.
	for _, key := range []string{"anyOf", "oneOf"} {
		if flat.Has(key) {
			return c.convertUnion(flat, key, at, depth)
		}
	}
	return c.convertPlain(flat, at, depth)
}

// allowsNothing reports whether a flattened schema is the false schema:
// "not" of a schema that every value passes, whatever the keywords beside
// it. "not" of any other schema excludes some values only, which the typed
// form cannot say; the server's schema still checks them.
func allowsNothing(n *jsontree.Node) bool {
	not := n.Get("not")
	return not != nil && passesAll(not)
}

// passesAll reports whether every value passes the schema n: true, {}, or
// annotations only.
func passesAll(n *jsontree.Node) bool {
	switch n.Kind {
	case jsontree.Bool:
		return n.Bool
	case jsontree.Object:
		for _, m := range n.Members {
			if !schema.Annotation(m.Key) {
				return false
			}
		}
		return true
	}
	return false
}

// textSize is the length of the text of s and of the branches of its
// anyOf, without the schemas of its items and properties, which convert
// counts on their own.
func (s *Schema) textSize() int {
	n := len(s.Description) + len(s.Format)
	for _, e := range s.Enum {
		n += len(e)
	}
	for _, p := range s.Properties {
		n += len(p.Name)
	}
	for _, a := range s.AnyOf {
		n += len(a.Description) + len(a.Format)
		for _, e := range a.Enum {
			n += len(e)
		}
	}
	return n
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// convertUnion converts a schema with anyOf or oneOf. The keywords beside
// the union apply to every branch, so each branch is merged with them;
// branches that only allow null make the result nullable.
func (c *converter) convertUnion(flat *jsontree.Node, key string, at *path, depth int) (*Schema, *pruned, error) {
	// One path for every branch, declared outside the loop, so that it
	// stays on the stack (see convertTyped).
	var bp path
	branches := flat.Get(key)
	if branches.Kind != jsontree.Array {
		bp = path{up: at, tok: key}
		return nil, nil, c.errorf(&bp, "%s is not an array", key)
	}
	outer := flat.Without(key, "description", "title", "default", "examples", "example")
	var out []*Schema
	nullable, recursive := false, false
	for i, b := range branches.Items {
		bp = path{up: at, tok: key, kind: indexPath, idx: i}
		var refs []string
		fb, err := c.flatten(b, &bp, &refs)
		if c.tooDeep(err) {
			return &Schema{Type: TypeString}, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		merged, err := c.merge(outer, fb, &bp, true)
		if err != nil {
			// The branch contradicts the keywords beside the union, so
			// it allows no value.
			continue
		}
		if onlyNull(merged) {
			nullable = true
			continue
		}
		if slices.ContainsFunc(refs, func(r string) bool { return countOf(c.stack, r) >= maxRecursion }) {
			recursive = true
			continue
		}
		// The branch's refs are resolved already, so convert does not see
		// them: keep them on the stack while it runs.
		c.stack = append(c.stack, refs...)
		s, pr, err := c.convert(merged, &bp, depth+1)
		c.stack = c.stack[:len(c.stack)-len(refs)]
		if err != nil {
			return nil, nil, err
		}
		if pr != nil {
			recursive = recursive || pr.recursive
			continue
		}
		if s.Nullable {
			nullable = true
		}
		if len(s.AnyOf) > 0 {
			out = append(out, s.AnyOf...)
		} else {
			out = append(out, s)
		}
	}
	desc := joinNotes(description(flat), c.annotationNotes(flat))
	switch len(out) {
	case 0:
		if nullable {
			return nullSchema(desc), nil, nil
		}
		return nil, &pruned{recursive: recursive}, nil
	case 1:
		s := out[0]
		s.Description = joinNotes(desc, s.Description)
		if nullable {
			s.Nullable = true
		}
		return s, nil, nil
	}
	if nullable {
		for _, s := range out {
			s.Nullable = true
		}
	}
	return &Schema{AnyOf: out, Description: desc}, nil, nil
}

// onlyNull reports whether a flattened schema allows null and nothing else.
func onlyNull(n *jsontree.Node) bool { return schema.OnlyNull(n) }

func nullSchema(desc string) *Schema {
	return &Schema{Type: TypeString, Nullable: true, Description: joinNotes(desc, "Always null.")}
}

// convertPlain converts a flattened schema without a union.
func (c *converter) convertPlain(n *jsontree.Node, at *path, depth int) (*Schema, *pruned, error) {
	types, nullable := c.types(n)
	desc := description(n)
	if len(types) == 0 {
		if nullable {
			return nullSchema(desc), nil, nil
		}
		if n.Has("not") {
			// Some values are excluded, perhaps strings: a string
			// would declare what the server may refuse.
			c.fallbackf(at, "a schema that only excludes values (not) has no typed form")
		}
		s := &Schema{Type: TypeString, Description: joinNotes(desc, c.annotationNotes(n), "Accepts any JSON value; declared as a string.")}
		return s, nil, nil
	}
	if len(types) == 1 {
		s, pr, err := c.convertTyped(n, types[0], at, depth)
		if err != nil || pr != nil {
			return nil, pr, err
		}
		s.Description = joinNotes(desc, s.Description, c.annotationNotes(n))
		if nullable {
			s.Nullable = true
		}
		return s, nil, nil
	}
	var out []*Schema
	var last *pruned
	for _, t := range types {
		s, pr, err := c.convertTyped(n, t, at, depth)
		if err != nil {
			return nil, nil, err
		}
		if pr != nil {
			last = pr
			continue
		}
		if nullable {
			s.Nullable = true
		}
		out = append(out, s)
	}
	switch len(out) {
	case 0:
		return nil, last, nil
	case 1:
		out[0].Description = joinNotes(desc, out[0].Description, c.annotationNotes(n))
		return out[0], nil, nil
	}
	return &Schema{AnyOf: out, Description: joinNotes(desc, c.annotationNotes(n))}, nil, nil
}

// types returns the JSON types a schema allows, without "null", and whether
// it allows null. Without "type", the types are inferred from the other
// keywords.
func (c *converter) types(n *jsontree.Node) ([]string, bool) {
	var types []string
	nullable := false
	if t := n.Get("type"); t != nil {
		types, nullable = schema.SplitNull(schema.Types(t))
	} else {
		types = inferTypes(n)
	}
	if k := n.Get("const"); k != nil && k.Kind == jsontree.Null {
		nullable = true
	}
	if e := n.Get("enum"); e != nil && !n.Has("type") {
		// With a type, a null the type does not allow fails it, listed
		// in the enum or not.
		for _, v := range e.Items {
			if v.Kind == jsontree.Null {
				nullable = true
			}
		}
	}
	if slices.Contains(types, "number") {
		types = slices.DeleteFunc(types, func(s string) bool { return s == "integer" })
	}
	return types, nullable
}

// inferTypes guesses the types of a schema without "type" from the keywords
// it uses.
func inferTypes(n *jsontree.Node) []string {
	var vals []*jsontree.Node
	if k := n.Get("const"); k != nil {
		vals = append(vals, k)
	}
	if e := n.Get("enum"); e != nil {
		vals = append(vals, e.Items...)
	}
	if len(vals) > 0 {
		var out []string
		for _, v := range vals {
			t := v.Kind.String()
			if v.Kind == jsontree.Number {
				if _, ok := v.Int(); ok || strings.HasPrefix(v.Str, "-") && !strings.ContainsAny(v.Str, ".eE") {
					t = "integer"
				}
			}
			if v.Kind != jsontree.Null && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		if slices.Contains(out, "number") {
			out = slices.DeleteFunc(out, func(s string) bool { return s == "integer" })
		}
		return out
	}
	has := func(keys ...string) bool {
		return slices.ContainsFunc(keys, n.Has)
	}
	switch {
	case has("properties", "required", "additionalProperties", "minProperties", "maxProperties", "patternProperties"):
		return []string{"object"}
	case has("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"):
		return []string{"array"}
	case has("minLength", "maxLength", "pattern", "format"):
		return []string{"string"}
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return []string{"number"}
	}
	return nil
}

// convertTyped converts a schema for one of its types.
func (c *converter) convertTyped(n *jsontree.Node, typ string, at *path, depth int) (*Schema, *pruned, error) {
	// sub is the path of the schema within n being converted. One variable
	// outside every loop serves them all: escape analysis sees a path made
	// inside a loop reach, through the recursion, one made outside it, and
	// would move it to the heap, one allocation a property.
	var sub path
	var notes []string
	s := &Schema{}
	vals := enumValues(n)
	switch typ {
	case "string":
		s.Type = TypeString
		if vals != nil {
			// Gemini refuses "" as an enum value, failing the whole
			// request: the description says it instead.
			strs, empty := []string{}, false
			for _, v := range vals {
				switch {
				case v.Kind != jsontree.String:
				case v.Str == "":
					empty = true
				default:
					strs = append(strs, v.Str)
				}
			}
			switch {
			case len(strs) > 0:
				s.Enum = strs
				if empty {
					notes = append(notes, `May also be the empty string "".`)
				}
			case empty:
				notes = append(notes, `Must be the empty string "".`)
			default:
				notes = append(notes, "No string value is allowed here.")
			}
		}
		if f, ok := n.Get("format").StringValue(); ok && f != "" {
			if f == "date-time" {
				s.Format = f
			} else {
				notes = append(notes, fmt.Sprintf("Format: %s.", f))
			}
		}
		s.MinLength = intField(n, "minLength")
		s.MaxLength = intField(n, "maxLength")
		if p, ok := n.Get("pattern").StringValue(); ok {
			notes = append(notes, fmt.Sprintf("Must match the regular expression %s.", quoteCode(p)))
		}
		if p, ok := n.Get("x-mcpgen-also-pattern").StringValue(); ok {
			notes = append(notes, fmt.Sprintf("Must also match the regular expression %s.", quoteCode(p)))
		}
	case "integer", "number":
		s.Type = TypeNumber
		if typ == "integer" {
			s.Type = TypeInteger
		}
		notes = append(notes, c.numberNotes(n, s)...)
		notes = append(notes, valueNotes(vals, func(v *jsontree.Node) bool { return v.Kind == jsontree.Number })...)
	case "boolean":
		s.Type = TypeBoolean
		notes = append(notes, valueNotes(vals, func(v *jsontree.Node) bool { return v.Kind == jsontree.Bool })...)
	case "array":
		s.Type = TypeArray
		s.MinItems = intField(n, "minItems")
		s.MaxItems = intField(n, "maxItems")
		if u := n.Get("uniqueItems"); u != nil && u.Kind == jsontree.Bool && u.Bool {
			notes = append(notes, "Items must be unique.")
		}
		items := n.Get("items")
		if n.Has("prefixItems") || items != nil && items.Kind == jsontree.Array {
			c.fallbackf(at, "tuple arrays (prefixItems) have no typed form")
		}
		if items == nil || items.Kind == jsontree.Array {
			s.Items = &Schema{Type: TypeString, Description: "Accepts any JSON value; declared as a string."}
			break
		}
		sub = path{up: at, tok: "items"}
		it, pr, err := c.convert(items, &sub, depth+1)
		if err != nil {
			return nil, nil, err
		}
		if pr != nil {
			return nil, pr, nil
		}
		s.Items = it
		notes = append(notes, valueNotes(vals, func(v *jsontree.Node) bool { return v.Kind == jsontree.Array })...)
	case "object":
		s.Type = TypeObject
		s.MinProperties = intField(n, "minProperties")
		s.MaxProperties = intField(n, "maxProperties")
		props := n.Get("properties")
		var required []string
		if r := n.Get("required"); r != nil {
			for _, v := range r.Items {
				if str, ok := v.StringValue(); ok {
					required = append(required, str)
				}
			}
		}
		var left, banned []string
		if props != nil && props.Kind == jsontree.Object {
			s.Properties = make([]Property, 0, len(props.Members))
			for _, m := range props.Members {
				sub = path{up: at, tok: "properties", kind: keyPath, key: m.Key}
				if !validParamName(m.Key) {
					c.fallbackf(&sub, "property name %q is not a valid Gemini parameter name", m.Key)
				}
				ps, pr, err := c.convert(m.Value, &sub, depth+1)
				if err != nil {
					return nil, nil, err
				}
				if pr != nil {
					if pr.recursive {
						left = append(left, m.Key)
					} else {
						banned = append(banned, m.Key)
					}
					continue
				}
				s.Properties = append(s.Properties, Property{Name: m.Key, Schema: ps})
			}
		}
		s.Required = s.requiredOf(required)
		for _, r := range required {
			if props == nil || props.Kind != jsontree.Object || !props.Has(r) {
				// The model could not send it, and the server needs it.
				c.fallbackf(at, "required property %q is not declared, so the typed form cannot name it", r)
				break
			}
		}
		if len(banned) > 0 {
			notes = append(notes, fmt.Sprintf("Do not send %s.", strings.Join(quoteAll(banned), " or ")))
		}
		if len(left) > 0 {
			notes = append(notes, fmt.Sprintf("Nested levels of %s repeat this structure and are not described further.", strings.Join(quoteAll(left), ", ")))
		}
		switch {
		case len(s.Properties) > 0:
		case depth > 0 && len(left) > 0:
			return nil, &pruned{recursive: true}, nil
		case depth > 0:
			c.fallbackf(at, "an object without declared properties has no typed form")
		case len(left) > 0:
			// Every level was left out: the tool would take no
			// parameters.
			c.fallbackf(at, "each property nests the object again, and nothing else, which the typed form cannot end")
		}
		notes = append(notes, valueNotes(vals, func(v *jsontree.Node) bool { return v.Kind == jsontree.Object })...)
	default:
		sub = path{up: at, tok: "type"}
		return nil, nil, c.errorf(&sub, "unknown type %q", typ)
	}
	s.Description = joinNotes(notes...)
	return s, nil, nil
}

// enumValues returns the values allowed by enum and const, or nil when the
// schema has neither.
func enumValues(n *jsontree.Node) []*jsontree.Node {
	var vals []*jsontree.Node
	has := false
	if e := n.Get("enum"); e != nil && e.Kind == jsontree.Array {
		has = true
		vals = append(vals, e.Items...)
	}
	if k := n.Get("const"); k != nil {
		if has {
			// Both hold: keep the enum values equal to const.
			vals = slices.DeleteFunc(vals, func(v *jsontree.Node) bool { return !jsontree.Equal(v, k) })
		} else {
			vals = append(vals, k)
		}
		has = true
	}
	if has && vals == nil {
		vals = []*jsontree.Node{}
	}
	return vals
}

// valueNotes describes the allowed non-string values, which the typed form
// cannot hold as an enum (Gemini enums are string-only).
func valueNotes(vals []*jsontree.Node, ofType func(*jsontree.Node) bool) []string {
	if vals == nil {
		return nil
	}
	var out []string
	for _, v := range vals {
		if ofType(v) {
			out = append(out, v.String())
		}
	}
	switch len(out) {
	case 0:
		return []string{"No value of this type is allowed here."}
	case 1:
		return []string{"Must be " + out[0] + "."}
	}
	return []string{"Allowed values: " + strings.Join(out, ", ") + "."}
}

func (c *converter) numberNotes(n *jsontree.Node, s *Schema) []string {
	var notes []string
	exMin, exMax := n.Get("exclusiveMinimum"), n.Get("exclusiveMaximum")
	if v, ok := n.Get("minimum").Float(); ok {
		switch {
		case exMin != nil && exMin.Kind == jsontree.Bool && exMin.Bool:
			notes = append(notes, "Must be greater than "+n.Get("minimum").String()+".")
		case !exactFloat(n.Get("minimum").Str, v):
			notes = append(notes, "Must be at least "+n.Get("minimum").String()+".")
		default:
			s.Minimum = &v
		}
	}
	if v, ok := n.Get("maximum").Float(); ok {
		switch {
		case exMax != nil && exMax.Kind == jsontree.Bool && exMax.Bool:
			notes = append(notes, "Must be less than "+n.Get("maximum").String()+".")
		case !exactFloat(n.Get("maximum").Str, v):
			notes = append(notes, "Must be at most "+n.Get("maximum").String()+".")
		default:
			s.Maximum = &v
		}
	}
	if exMin != nil && exMin.Kind == jsontree.Number {
		notes = append(notes, "Must be greater than "+exMin.String()+".")
	}
	if exMax != nil && exMax.Kind == jsontree.Number {
		notes = append(notes, "Must be less than "+exMax.String()+".")
	}
	if m := n.Get("multipleOf"); m != nil && m.Kind == jsontree.Number {
		notes = append(notes, "Must be a multiple of "+m.String()+".")
	}
	return notes
}

// exactFloat reports whether the float64 f, read from the number literal
// lit, still has the literal's value when the declaration encodes it: not
// so for integers beyond 2^53, which become a neighbour
// (9007199254740993 is sent as 9007199254740992), so their bound goes in
// the description instead.
func exactFloat(lit string, f float64) bool {
	c, ok := jsontree.CompareNumbers(lit, strconv.FormatFloat(f, 'g', -1, 64))
	return ok && c == 0
}

// annotationNotes keeps a schema's default in the description: the typed
// form has a default field, but the Gemini API does not accept it.
func (c *converter) annotationNotes(n *jsontree.Node) string {
	var notes []string
	if d := n.Get("default"); d != nil {
		notes = append(notes, "Default: "+d.String()+".")
	}
	if d := n.Get("deprecated"); d != nil && d.Kind == jsontree.Bool && d.Bool {
		notes = append(notes, "Deprecated.")
	}
	return joinNotes(notes...)
}

func intField(n *jsontree.Node, key string) *int64 {
	if v, ok := n.Get(key).Int(); ok {
		return &v
	}
	return nil
}

// description returns a schema's description, or its title.
func description(n *jsontree.Node) string {
	if d, ok := n.Get("description").StringValue(); ok && strings.TrimSpace(d) != "" {
		return strings.TrimSpace(d)
	}
	if t, ok := n.Get("title").StringValue(); ok {
		return strings.TrimSpace(t)
	}
	return ""
}

// joinNotes joins the non-empty parts with spaces, ending a part with a
// period when it has no closing punctuation and another part follows.
func joinNotes(parts ...string) string {
	// Most calls join one description with nothing: return it as it is,
	// rather than copy it.
	one, n, size := "", 0, 0
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			one, n, size = p, n+1, size+len(p)+2
		}
	}
	if n <= 1 {
		return one
	}
	var b strings.Builder
	b.Grow(size)
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			if !strings.ContainsAny(b.String()[b.Len()-1:], ".!?:;)`\"'") {
				b.WriteByte('.')
			}
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

func quoteCode(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return fmt.Sprintf("%q", s)
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// validParamName reports whether Gemini accepts name as a parameter name in
// the typed form: [A-Za-z_][A-Za-z0-9_]*, at most 64 characters.
func validParamName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if ch == '_' || 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || i > 0 && '0' <= ch && ch <= '9' {
			continue
		}
		return false
	}
	return true
}
