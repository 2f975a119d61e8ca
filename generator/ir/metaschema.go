package ir

import (
	"errors"
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
	seen map[string]string
}

func newMetaChecker() *metaChecker { return &metaChecker{seen: map[string]string{}} }

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
		val, p := mem.Value, ptr+"/"+jsontree.EscapeToken(mem.Key)
		switch {
		case schemaMaps[mem.Key] && val.Kind == jsontree.Object:
			c := &jsontree.Node{Kind: jsontree.Object, Members: make([]jsontree.Member, len(val.Members))}
			for j, sub := range val.Members {
				c.Members[j] = sub
				if isSchema(sub.Value) {
					c.Members[j].Value = emptySchema
					children = append(children, child{sub.Value, p + "/" + jsontree.EscapeToken(sub.Key)})
				}
			}
			shallow.Members[i].Value = c
		case schemaOne[mem.Key] && isSchema(val):
			shallow.Members[i].Value = emptySchema
			children = append(children, child{val, p})
		case schemaLists[mem.Key] && val.Kind == jsontree.Array:
			c := &jsontree.Node{Kind: jsontree.Array, Items: make([]*jsontree.Node, len(val.Items))}
			for j, sub := range val.Items {
				c.Items[j] = sub
				if isSchema(sub) {
					c.Items[j] = emptySchema
					children = append(children, child{sub, p + "/" + strconv.Itoa(j)})
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
// meta-schema of draft, once per distinct value and draft.
func (m *metaChecker) verdict(tool string, v *jsontree.Node, ptr, draft string) error {
	key := draft + "\x00" + v.String()
	msg, done := m.seen[key]
	if !done {
		msg = validateMeta(draft, v)
		m.seen[key] = msg
	}
	if msg == "" {
		return nil
	}
	at, reason, _ := strings.Cut(msg, "\x00")
	return &Error{Tool: tool, Pointer: ptr + at, Msg: "the JSON Schema meta-schema rejects it, so every call would fail: " + reason, Uncallable: true}
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
