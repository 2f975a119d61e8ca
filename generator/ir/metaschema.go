package ir

import (
	"errors"
	"hash/maphash"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// metaChecker checks schemas against the meta-schema of their JSON Schema
// draft, as the validator behind the generated ValidateArguments and
// ValidateResult does when it compiles them. A schema the meta-schema
// rejects never compiles, so every call of the generated method would fail;
// it is refused at generation time instead, with the tool and the pointer.
//
// Each schema object is checked on its own, with its subschemas replaced by
// {} and checked in turn; this is what the meta-schemas do themselves (a
// subschema is checked against the same meta-schema as its parent), and it
// lets the checker remember the verdict of each distinct object, which
// tools generated from the same code repeat many times.
type metaChecker struct {
	// seen holds the verdicts by a hash of the value and its draft; the
	// values themselves are compared on a hit.
	seen map[uint64][]metaVerdict
	seed maphash.Seed
}

// metaVerdict is the verdict on one schema value for one draft: "" when
// the meta-schema accepts it, else what validateMeta returned.
type metaVerdict struct {
	draft string
	v     *jsontree.Node
	msg   string
}

func newMetaChecker() *metaChecker {
	return &metaChecker{seen: map[uint64][]metaVerdict{}, seed: maphash.MakeSeed()}
}

// check checks the schema document doc of tool, found at ptr.
func (m *metaChecker) check(tool string, doc *jsontree.Node, ptr string) error {
	if p, msg := snapshot.CheckRefs(doc); msg != "" {
		return &Error{Tool: tool, Pointer: ptr + p, Msg: msg, Uncallable: true}
	}
	return m.node(tool, doc, ptr, draftOf(doc, "https://json-schema.org/draft/2020-12/schema"), 0)
}

// draftOf returns the meta-schema URL a schema document's $schema names, or
// inherited when it names none. snapshot.CheckRefs has refused unknown ones.
// Only the root's $schema counts: the validator checks the whole document
// against the root's meta-schema, embedded resources included.
func draftOf(v *jsontree.Node, inherited string) string {
	if s, ok := v.Get("$schema").StringValue(); ok {
		return s
	}
	return inherited
}

// schemaMaps hold objects whose values are schemas; schemaLists hold arrays
// of schemas; the other keywords below hold one schema. "items" and
// "dependencies" may also hold an array and string arrays, which are kept
// as they are.
var (
	schemaMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true, "dependencies": true}
	schemaOne  = map[string]bool{
		"additionalProperties": true, "additionalItems": true, "items": true, "not": true, "if": true, "then": true, "else": true,
		"contains": true, "propertyNames": true, "unevaluatedItems": true, "unevaluatedProperties": true, "contentSchema": true,
	}
	schemaLists = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true}
)

func isSchema(v *jsontree.Node) bool { return v.Kind == jsontree.Object || v.Kind == jsontree.Bool }

// emptySchema stands for a subschema checked on its own: {} is valid in
// every draft, where true is not in draft-04.
var emptySchema = &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{}}

func (m *metaChecker) node(tool string, v *jsontree.Node, ptr, draft string, depth int) error {
	if depth > MaxMetaDepth {
		return nil
	}
	if v.Kind != jsontree.Object {
		// true and false: schemas from draft-06 on, not in draft-04.
		return m.verdict(tool, v, ptr, draft)
	}
	type child struct {
		v   *jsontree.Node
		ptr string
	}
	var children []child
	shallow := &jsontree.Node{Kind: jsontree.Object, Members: make([]jsontree.Member, len(v.Members))}
	for i, mem := range v.Members {
		shallow.Members[i] = mem
		val := mem.Value
		// The pointer of a member is built only for one that holds
		// subschemas.
		p := func() string { return ptr + "/" + jsontree.EscapeToken(mem.Key) }
		switch {
		case schemaMaps[mem.Key] && val.Kind == jsontree.Object:
			c := &jsontree.Node{Kind: jsontree.Object, Members: make([]jsontree.Member, len(val.Members))}
			pm := p()
			for j, sub := range val.Members {
				c.Members[j] = sub
				if isSchema(sub.Value) {
					c.Members[j].Value = emptySchema
					children = append(children, child{sub.Value, pm + "/" + jsontree.EscapeToken(sub.Key)})
				}
			}
			shallow.Members[i].Value = c
		case schemaOne[mem.Key] && isSchema(val):
			shallow.Members[i].Value = emptySchema
			children = append(children, child{val, p()})
		case schemaLists[mem.Key] && val.Kind == jsontree.Array:
			c := &jsontree.Node{Kind: jsontree.Array, Items: make([]*jsontree.Node, len(val.Items))}
			pl := p()
			for j, sub := range val.Items {
				c.Items[j] = sub
				if isSchema(sub) {
					c.Items[j] = emptySchema
					children = append(children, child{sub, pl + "/" + strconv.Itoa(j)})
				}
			}
			shallow.Members[i].Value = c
		}
	}
	if err := m.verdict(tool, shallow, ptr, draft); err != nil {
		return err
	}
	for _, c := range children {
		if err := m.node(tool, c.v, c.ptr, draft, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// verdict validates the schema value v, found at ptr, against the
// meta-schema of draft, once per distinct value and draft. Values are
// told apart by a hash and then compared as written (sameJSON), which costs
// a fraction of encoding each value as text to key a map with it.
func (m *metaChecker) verdict(tool string, v *jsontree.Node, ptr, draft string) error {
	var h maphash.Hash
	h.SetSeed(m.seed)
	h.WriteString(draft)
	hashJSON(&h, v)
	key := h.Sum64()
	msg, done := "", false
	for _, e := range m.seen[key] {
		if e.draft == draft && sameJSON(e.v, v) {
			msg, done = e.msg, true
			break
		}
	}
	if !done {
		msg = validateMeta(draft, v)
		m.seen[key] = append(m.seen[key], metaVerdict{draft: draft, v: v, msg: msg})
	}
	if msg == "" {
		return nil
	}
	at, reason, _ := strings.Cut(msg, "\x00")
	return &Error{Tool: tool, Pointer: ptr + at, Msg: "the JSON Schema meta-schema rejects it, so every call would fail: " + reason, Uncallable: true}
}

// hashJSON writes v's kinds, keys and values to h.
func hashJSON(h *maphash.Hash, v *jsontree.Node) {
	h.WriteByte(byte(v.Kind))
	switch v.Kind {
	case jsontree.Bool:
		if v.Bool {
			h.WriteByte(1)
		}
	case jsontree.Number, jsontree.String:
		h.WriteString(v.Str)
		h.WriteByte(0)
	case jsontree.Array:
		for _, it := range v.Items {
			hashJSON(h, it)
		}
		h.WriteByte(0)
	case jsontree.Object:
		for _, mem := range v.Members {
			h.WriteString(mem.Key)
			h.WriteByte(0)
			hashJSON(h, mem.Value)
		}
		h.WriteByte(0)
	}
}

// sameJSON reports whether a and b are the same value as written: the same
// kinds, keys in the same order, and the same literal text of numbers, so
// that 1 and 1.0 differ, as they may for the meta-schema of draft-04.
func sameJSON(a, b *jsontree.Node) bool {
	if a == b {
		return true
	}
	if a.Kind != b.Kind || a.Bool != b.Bool || a.Str != b.Str || len(a.Items) != len(b.Items) || len(a.Members) != len(b.Members) {
		return false
	}
	for i := range a.Items {
		if !sameJSON(a.Items[i], b.Items[i]) {
			return false
		}
	}
	for i := range a.Members {
		if a.Members[i].Key != b.Members[i].Key || !sameJSON(a.Members[i].Value, b.Members[i].Value) {
			return false
		}
	}
	return true
}

// MaxMetaDepth bounds the nesting the meta-schema check follows; the
// converter's own depth limit is far lower.
const MaxMetaDepth = 1000

var (
	metaSchemas sync.Map // draft URL → *jsonschema.Schema
	english     = message.NewPrinter(language.English)
)

// validateMeta validates one schema object against the meta-schema at url.
// It returns "" when it is valid, else the pointer of the offending
// keyword and the reason, separated by a NUL.
func validateMeta(url string, v *jsontree.Node) string {
	meta, ok := metaSchemas.Load(url)
	if !ok {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		// format: regex means ECMA-262, as the validators read patterns.
		c.UseRegexpEngine(func(p string) (jsonschema.Regexp, error) { return runtime.CompilePattern(p) })
		s, err := c.Compile(url)
		if err != nil {
			return "\x00" + err.Error()
		}
		meta, _ = metaSchemas.LoadOrStore(url, s)
	}
	err := meta.(*jsonschema.Schema).Validate(v.Interface())
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		if err != nil {
			return "\x00" + err.Error()
		}
		return ""
	}
	leaf := leafCause(ve)
	var at strings.Builder
	for _, seg := range leaf.InstanceLocation {
		at.WriteString("/" + jsontree.EscapeToken(seg))
	}
	return at.String() + "\x00" + strings.Join(strings.Fields(leaf.ErrorKind.LocalizedString(english)), " ")
}

// leafCause follows the causes of a validation error to the one with the
// deepest instance location, which names the offending keyword.
func leafCause(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	best := e
	for len(best.Causes) > 0 {
		next := best.Causes[0]
		for _, c := range best.Causes[1:] {
			if len(c.InstanceLocation) > len(next.InstanceLocation) {
				next = c
			}
		}
		best = next
	}
	return best
}
