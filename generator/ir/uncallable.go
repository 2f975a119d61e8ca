package ir

import (
	"slices"
	"strconv"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
)

// A tool is uncallable when no call of it can ever succeed, whatever its
// caller sends:
//
//   - the meta-schema of its draft rejects its input or output schema (or a
//     $ref in it does not resolve), so the validator behind the generated
//     ValidateArguments and ValidateResult cannot compile it;
//   - its input schema evidently admits no arguments, or its output schema
//     no result (see unsatisfiable).
//
// Such a tool is a fault of the server that its users cannot fix. Build
// leaves it out of the package, and records why in Package.Skipped, unless
// Options.Strict asks to refuse the tool list instead. Everything else stays
// an error that stops the build: a snapshot that is not a tool list, a bad
// tool name, a schema that nests or fans out past the Limits, a construct
// of a valid schema the generator cannot map (mcpgen's limit, not the
// server's fault, which --exclude-tools leaves out on purpose), a bad
// override, and a build stopped by its context.

// maxUnsatisfiableSteps bounds the schema objects unsatisfiable looks at;
// past it, the schema counts as satisfiable.
const maxUnsatisfiableSteps = 100000

// unsatisfiable reports where and why the schema document doc, found at
// ptr, evidently admits no value: at is "" when it does not. It looks for
// what no validator lets through: the false schema, an empty enum, enum or
// const values none of which has the schema's type, "not" of every value,
// a minimum above the maximum (of a number, a string's length or an
// array's items), an allOf part that admits nothing, anyOf or oneOf whose
// branches all admit nothing, a $ref to such a schema, a $ref that leads
// back to itself through bare $refs only (see schema.BareCycle), and an
// object whose required property admits nothing, or is not allowed at all.
// It follows required properties only: an optional property that admits
// nothing can be left out.
func unsatisfiable(doc *jsontree.Node, ptr string) (at, why string) {
	f := &emptyFinder{doc: doc, visiting: map[*jsontree.Node]bool{}}
	return f.empty(doc, ptr)
}

type emptyFinder struct {
	doc      *jsontree.Node
	visiting map[*jsontree.Node]bool
	steps    int
}

func (f *emptyFinder) empty(v *jsontree.Node, ptr string) (string, string) {
	if v.Kind == jsontree.Bool && !v.Bool {
		return ptr, "the schema is false, which no value satisfies"
	}
	if v.Kind != jsontree.Object || f.visiting[v] || f.steps >= maxUnsatisfiableSteps {
		return "", ""
	}
	f.steps++
	f.visiting[v] = true
	defer delete(f.visiting, v)
	types := allowedTypes(v)
	if e := v.Get("enum"); e != nil && e.Kind == jsontree.Array {
		if len(e.Items) == 0 {
			return ptr + "/enum", "enum lists no value"
		}
		if types != nil && !slices.ContainsFunc(e.Items, func(x *jsontree.Node) bool { return hasType(x, types) }) {
			return ptr + "/enum", "no value of enum has the schema's type"
		}
	}
	if c := v.Get("const"); c != nil && types != nil && !hasType(c, types) {
		return ptr + "/const", "const is not of the schema's type"
	}
	if n := v.Get("not"); n != nil && (n.Kind == jsontree.Bool && n.Bool || n.Kind == jsontree.Object && len(n.Members) == 0) {
		return ptr + "/not", "not forbids every value"
	}
	only := func(kinds ...string) bool {
		if types == nil {
			return false
		}
		for t := range types {
			if !slices.Contains(kinds, t) {
				return false
			}
		}
		return true
	}
	for _, b := range []struct {
		min, max string
		kinds    []string
	}{{"minLength", "maxLength", []string{"string"}}, {"minItems", "maxItems", []string{"array"}}, {"minimum", "maximum", []string{"number", "integer"}}} {
		lo, hi := v.Get(b.min), v.Get(b.max)
		if lo == nil || hi == nil || lo.Kind != jsontree.Number || hi.Kind != jsontree.Number || !only(b.kinds...) {
			continue
		}
		if c, ok := jsontree.CompareNumbers(lo.Str, hi.Str); ok && c > 0 {
			return ptr + "/" + b.min, b.min + " " + lo.Str + " is above " + b.max + " " + hi.Str
		}
	}
	if parts := v.Get("allOf"); parts != nil && parts.Kind == jsontree.Array {
		for i, p := range parts.Items {
			if at, why := f.empty(p, ptr+"/allOf/"+strconv.Itoa(i)); at != "" {
				return at, why
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches := v.Get(key)
		if branches == nil || branches.Kind != jsontree.Array || len(branches.Items) == 0 {
			continue
		}
		all := true
		for i, b := range branches.Items {
			if at, _ := f.empty(b, ptr+"/"+key+"/"+strconv.Itoa(i)); at == "" {
				all = false
				break
			}
		}
		if all {
			return ptr + "/" + key, "no branch of " + key + " admits a value"
		}
	}
	if ref, ok := v.Get("$ref").StringValue(); ok {
		if schema.BareCycle(f.doc, v) {
			return ptr + "/$ref", "$ref " + strconv.Quote(ref) + " leads back to itself through bare $refs and never to a schema: validators refuse every value there"
		}
		if target, tptr, err := schema.Resolve(f.doc, ref); err == nil {
			if at, why := f.empty(target, tptrOf(ptr, tptr)); at != "" {
				return at, why
			}
		}
	}
	if !only("object") {
		return "", ""
	}
	req := v.Get("required")
	if req == nil || req.Kind != jsontree.Array {
		return "", ""
	}
	props := v.Get("properties")
	closed := v.Get("additionalProperties")
	for i, r := range req.Items {
		if r.Kind != jsontree.String {
			continue
		}
		if p := props.Get(r.Str); p != nil {
			if at, why := f.empty(p, ptr+"/properties/"+jsontree.EscapeToken(r.Str)); at != "" {
				return at, why + ", and the property " + strconv.Quote(r.Str) + " is required"
			}
			continue
		}
		if closed != nil && closed.Kind == jsontree.Bool && !closed.Bool && !v.Has("patternProperties") {
			return ptr + "/required/" + strconv.Itoa(i), "required names " + strconv.Quote(r.Str) + ", which properties does not describe and additionalProperties: false forbids"
		}
	}
	return "", ""
}

// tptrOf returns the pointer, within the tool, of target, a pointer within
// the schema document that ptr is in ("/inputSchema" or "/outputSchema").
func tptrOf(ptr, target string) string {
	for _, root := range []string{"/inputSchema", "/outputSchema"} {
		if len(ptr) >= len(root) && ptr[:len(root)] == root {
			return root + target
		}
	}
	return ptr
}

// allowedTypes returns the types the schema's type keyword allows, or nil when
// it has none (or a malformed one, which the meta-schema reports).
func allowedTypes(v *jsontree.Node) map[string]bool {
	t := v.Get("type")
	switch {
	case t == nil:
		return nil
	case t.Kind == jsontree.String:
		return map[string]bool{t.Str: true}
	case t.Kind == jsontree.Array && len(t.Items) > 0:
		out := map[string]bool{}
		for _, it := range t.Items {
			if it.Kind != jsontree.String {
				return nil
			}
			out[it.Str] = true
		}
		return out
	}
	return nil
}

// hasType reports whether the value x has one of types.
func hasType(x *jsontree.Node, types map[string]bool) bool {
	switch x.Kind {
	case jsontree.Null:
		return types["null"]
	case jsontree.Bool:
		return types["boolean"]
	case jsontree.String:
		return types["string"]
	case jsontree.Array:
		return types["array"]
	case jsontree.Object:
		return types["object"]
	case jsontree.Number:
		if types["number"] {
			return true
		}
		_, frac, ok := jsontree.Trunc(x.Str, 400)
		return types["integer"] && (!ok || !frac)
	}
	return false
}
