package emit

import (
	"bytes"
	"fmt"
	doccomment "go/doc/comment"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// typesWriter writes types.go in gofmt's form (see stmt), and records
// what the file imports and declares.
type typesWriter struct {
	g        *gen
	s        srcFile
	names    []string
	usesJSON bool
	usesImpl bool
}

// goType is the Go type of a value of t.
func (w *typesWriter) goType(t *ir.Type) string {
	switch t.Kind {
	case ir.Bool:
		return "bool"
	case ir.Int:
		if t.GoType != "" {
			return t.GoType
		}
		return "int64"
	case ir.Number:
		return "float64"
	case ir.String:
		return "string"
	case ir.Nullable:
		if t.Elem.NilAble() {
			return w.goType(t.Elem)
		}
		return "*" + w.goType(t.Elem)
	}
	if t.IsNamed() {
		return t.Name
	}
	switch t.Kind {
	case ir.Slice:
		return "[]" + w.goType(t.Elem)
	case ir.Map:
		return "map[string]" + w.goType(t.Elem)
	}
	w.usesJSON = true
	return "json.RawMessage"
}

// fieldPointer reports whether a field's Go type is a pointer to goType of
// its type: optional values without a nil of their own, and required values
// of recursive types.
func fieldPointer(f *ir.Field) bool {
	t := f.Type
	if f.Required {
		return (t.Kind == ir.Struct || t.Kind == ir.Union) && t.Recursive
	}
	return t.Kind != ir.Nullable && !t.NilAble()
}

func (w *typesWriter) fieldType(f *ir.Field) string {
	if fieldPointer(f) {
		return "*" + w.goType(f.Type)
	}
	return w.goType(f.Type)
}

// omitOption returns the option of a field's json tag that leaves it out of
// the JSON when nil, or "" for a required field. An optional slice or map
// has omitzero rather than omitempty: decoded from [] or {}, it is empty but
// not nil, and is sent as it came, not left out, since JSON Schema and the
// server take an empty array or object for a value.
func omitOption(f *ir.Field) string {
	switch {
	case f.Required:
		return ""
	case f.Type.Underlying().Kind == ir.Slice || f.Type.Underlying().Kind == ir.Map:
		return ",omitzero"
	}
	return ",omitempty"
}

// typesFile writes types.go, and lists what it declares.
func (g *gen) typesFile() ([]byte, []string) {
	w := &typesWriter{g: g}
	w.s.prev = "import"
	for _, t := range g.pkg.Types {
		switch t.Kind {
		case ir.Struct:
			w.structDecl(t)
		case ir.Enum:
			w.enumDecl(t)
		case ir.Const:
			w.constDecl(t)
		case ir.Union:
			w.unionDecl(t)
		case ir.Slice, ir.Map:
			w.typeDecl([]string{fmt.Sprintf("%s is a recursive %s.", t.Name, kindNoun(t)), t.Doc}, t.Name, w.goType(&ir.Type{Kind: t.Kind, Elem: t.Elem}))
		}
	}
	var imports []string
	if w.usesJSON {
		imports = append(imports, jsonPkg)
	}
	if w.usesImpl {
		imports = append(imports, implPkg)
	}
	return append(header(g.opts.Package, imports), w.s.b.Bytes()...), w.names
}

func kindNoun(t *ir.Type) string {
	if t.Kind == ir.Slice {
		return "array"
	}
	return "map"
}

// typeDecl writes "type name typ" after a doc comment of paragraphs.
func (w *typesWriter) typeDecl(doc []string, name, typ string) {
	w.s.decl("type", true)
	writeDocComment(&w.s.b, doc...)
	w.s.b.WriteString("type ")
	w.s.b.WriteString(name)
	w.s.b.WriteByte(' ')
	w.s.b.WriteString(typ)
	w.s.b.WriteByte('\n')
	w.names = append(w.names, name)
}

// method writes a method of the type named typ.
func (w *typesWriter) method(typ, name string, d funcDecl) {
	w.s.fn(d)
	w.names = append(w.names, typ+"."+name)
}

// writeDocComment writes paragraphs as the doc comment of a top-level
// declaration, reformatted as gofmt reformats doc comments (go/doc/comment):
// text from a server can hold what reads as a heading, a list or a code
// block.
func writeDocComment(b *bytes.Buffer, paragraphs ...string) {
	var all []string
	for _, p := range paragraphs {
		lines := commentLines(p)
		if len(lines) == 0 {
			continue
		}
		if len(all) > 0 {
			all = append(all, "")
		}
		all = append(all, lines...)
	}
	if len(all) == 0 {
		return
	}
	var text strings.Builder
	for _, l := range noHeadings(all) {
		text.WriteString(l)
		text.WriteByte('\n')
	}
	var p doccomment.Parser
	var pr doccomment.Printer
	out := pr.Comment(p.Parse(text.String()))
	for len(out) > 0 {
		line := out
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			line, out = out[:i], out[i+1:]
		} else {
			out = nil
		}
		switch {
		case len(line) == 0:
			b.WriteString("//\n")
		case line[0] == '\t':
			b.WriteString("//")
		default:
			b.WriteString("// ")
		}
		if len(line) > 0 {
			b.Write(line)
			b.WriteByte('\n')
		}
	}
}

// typeDoc returns the paragraphs of the doc comment of t.
func (g *gen) typeDoc(t *ir.Type) []string {
	var paras []string
	if r, ok := g.roots[t]; ok {
		what := "arguments"
		if r.result {
			what = "structured result"
		}
		paras = append(paras, fmt.Sprintf("%s holds the %s of the tool %s.", t.Name, what, quote(r.tool.Name)))
		if !r.result && r.tool.Description != "" {
			paras = append(paras, r.tool.Description)
		}
		if r.result && t.Doc != "" {
			paras = append(paras, t.Doc)
		}
	} else {
		lead := t.Name + " is"
		switch t.Kind {
		case ir.Enum:
			lead += " one of the values of an enum."
			if t.AliasOf != nil {
				lead = fmt.Sprintf("%s is one of the values of an enum of the same values as %s, and the same Go type.", t.Name, t.AliasOf.Name)
			}
		case ir.Const:
			lead += " a constant: it always encodes as " + oneLine(t.Const.String()) + "."
		case ir.Union:
			lead += " one of several shapes; exactly one field is set."
			if t.OneOf {
				lead += " The value must match exactly one branch (oneOf)."
			}
		default:
			lead += " an object."
			if t.AliasOf != nil {
				lead = fmt.Sprintf("%s is an object of the same shape as %s, and the same Go type.", t.Name, t.AliasOf.Name)
			}
		}
		if len(t.SharedBy) > 1 {
			lead += " " + sharedBy(t.SharedBy)
		}
		paras = append(paras, lead)
		if t.Doc != "" {
			paras = append(paras, t.Doc)
		}
	}
	if t.Default != nil {
		paras = append(paras, "Default: "+oneLine(t.Default.String()))
	}
	return paras
}

// sharedBy says which tools share a type, naming five at most.
func sharedBy(tools []string) string {
	var names []string
	for i, t := range tools {
		if i == 5 {
			break
		}
		names = append(names, quote(t))
	}
	if n := len(tools) - len(names); n > 0 {
		return fmt.Sprintf("The tools %s and %d more share it.", strings.Join(names, ", "), n)
	}
	return fmt.Sprintf("The tools %s and %s share it.", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// quote renders a name from a server for use inside a comment.
func quote(s string) string { return fmt.Sprintf("%q", oneLine(s)) }

// A field is a line of a struct type: a doc comment, then the name, the
// type and the tag, aligned as gofmt aligns them with the lines around.
type field struct {
	doc       []string
	name, typ string
	tag       map[string]string
}

// doNotCompare is the blank first field of every generated struct type
// but a constant's: it makes == on the type a compile error, so that the
// compiler writes no equality function for it (see mcpimpl.DoNotCompare).
const doNotCompare = "_ mcpimpl.DoNotCompare"

// structType writes a struct type of fields in gofmt's form, after the
// blank doNotCompare field and an empty line. Runs of fields without a doc
// comment between them are aligned in columns, as text/tabwriter does for
// go/printer: each column as wide as its widest cell, in runes, and one
// space.
func structType(b *bytes.Buffer, fields []field) {
	b.WriteString("struct {\n\t" + doNotCompare + "\n")
	if len(fields) > 0 {
		b.WriteByte('\n')
	}
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && len(fields[j].doc) == 0 {
			j++
		}
		nameW, typW := 0, 0
		for _, f := range fields[i:j] {
			nameW = max(nameW, utf8.RuneCountInString(f.name))
			typW = max(typW, utf8.RuneCountInString(f.typ))
		}
		for _, f := range fields[i:j] {
			writeComment(b, "\t", f.doc)
			b.WriteByte('\t')
			b.WriteString(f.name)
			b.WriteString(strings.Repeat(" ", nameW-utf8.RuneCountInString(f.name)+1))
			b.WriteString(f.typ)
			b.WriteString(strings.Repeat(" ", typW-utf8.RuneCountInString(f.typ)+1))
			b.WriteString(tagLit(f.tag))
			b.WriteByte('\n')
		}
		i = j
	}
	b.WriteString("}")
}

// tagLit renders a struct tag of the keys and values of tag, sorted by
// key, as a raw string literal where it can be one.
func tagLit(tag map[string]string) string {
	keys := make([]string, 0, len(tag))
	for k := range tag {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var s strings.Builder
	for i, k := range keys {
		if i > 0 {
			s.WriteByte(' ')
		}
		s.WriteString(k)
		s.WriteByte(':')
		s.WriteString(strconv.Quote(tag[k]))
	}
	if strconv.CanBackquote(s.String()) {
		return "`" + s.String() + "`"
	}
	return strconv.Quote(s.String())
}

// fieldDoc returns the paragraphs of the comment of a struct field that
// hold text. A field's comment is written as it is: gofmt reformats the
// doc comments of top-level declarations only.
func fieldDoc(paras ...string) []string {
	var out []string
	for _, p := range paras {
		if len(commentLines(p)) > 0 {
			out = append(out, p)
		}
	}
	return out
}

func (w *typesWriter) structDecl(t *ir.Type) {
	if t.AliasOf != nil {
		// An identical struct declared earlier: one Go type, with one set
		// of methods (see ir.Type.AliasOf).
		w.typeDecl(w.g.typeDoc(t), t.Name, "= "+t.AliasOf.Name)
		return
	}
	fields := make([]field, 0, len(t.Fields)+1)
	for _, fl := range t.Fields {
		var paras []string
		if fl.Doc != "" {
			paras = append(paras, fl.Doc)
		}
		if d := fl.Type.Default; d != nil {
			paras = append(paras, "Default: "+oneLine(d.String()))
		}
		switch {
		case fl.Required && fl.Type.Kind == ir.Nullable:
			paras = append(paras, "Required; nil is sent as null.")
		case fl.Required:
			paras = append(paras, "Required.")
		}
		// An optional nullable member says so in its mcpgen:"nullable"
		// tag alone: nil leaves it out, and null is read as nil.
		tags := map[string]string{"json": fl.JSONName + omitOption(fl)}
		if tags["json"] == "-" {
			// encoding/json leaves a field tagged "-" out; "-," names
			// the member "-".
			tags["json"] = "-,"
		}
		if flags := shapeFlags(fl); flags != "" {
			tags[tagKey] = flags
		}
		fields = append(fields, field{doc: fieldDoc(paras...), name: fl.GoName, typ: w.fieldType(fl), tag: tags})
	}
	if t.Extra != nil {
		fields = append(fields, field{doc: []string{"Extra holds the properties that are not fields, which the schema allows (additionalProperties)."},
			name: "Extra", typ: "map[string]" + w.goType(t.Extra), tag: extraTag(t.Extra)})
	}
	var b bytes.Buffer
	structType(&b, fields)
	w.usesImpl = true
	w.typeDecl(w.g.typeDoc(t), t.Name, b.String())

	// Decoding checks, which mcpimpl.DecodeObject reads from the tags. An
	// open object without Extra nested in another value needs no method of
	// its own: the decoder of the value holding it checks it by its tags.
	r, root := w.g.roots[t]
	if !root && !t.Closed && t.Extra == nil {
		return
	}
	w.usesImpl = true
	decode := "mcpimpl.DecodeObject(data, a, " + strconv.FormatBool(t.Closed) + ")"
	doc := "UnmarshalJSON decodes a JSON object, rejecting missing required properties, unexpected nulls and, if the object is closed, unknown properties."
	if t.Extra != nil {
		doc = "UnmarshalJSON decodes a JSON object, rejecting missing required properties and unexpected nulls; the properties that are not fields go to Extra."
	}
	// The errors of a tool's own type name the tool, as Validate's do.
	if root {
		decode = forToolFunc(r.result) + "(" + decode + ", " + strconv.Quote(r.tool.Name) + ")"
		doc += " Its errors are *runtime.ValidationError values naming the tool and the JSON pointer of the value that failed."
	}
	w.method(t.Name, "UnmarshalJSON", funcDecl{doc: []string{doc}, sig: "(a *" + t.Name + ") UnmarshalJSON(data []byte) error", body: []stmt{simple("return " + decode)}})

	if t.Extra != nil {
		w.usesJSON = true
		w.method(t.Name, "MarshalJSON", funcDecl{doc: []string{"MarshalJSON encodes the fields followed by Extra."}, sig: "(a " + t.Name + ") MarshalJSON() ([]byte, error)", body: []stmt{
			simple("type plain " + t.Name),
			simple("data, err := json.Marshal(plain(a))"),
			block("if err != nil", simple("return nil, err")),
			simple("return mcpimpl.EncodeExtra(data, a.Extra)"),
		}})
	}
}

// extraTag is the tag of the Extra field of a struct whose other members
// are of type t: the nonnullelems flag of a map of them.
func extraTag(t *ir.Type) map[string]string {
	tag := map[string]string{"json": "-"}
	if f := nonNullElems(&ir.Type{Kind: ir.Map, Elem: t}); f != "" {
		tag[tagKey] = f
	}
	return tag
}

// tagKey is the struct tag key of mcpimpl.TagKey.
const tagKey = "mcpgen"

// shapeFlags are the flags of the mcpgen tag of a struct field, which
// mcpimpl.DecodeObject reads: nullable members may be null, and the
// elements of nonnullelems members must not be, at the levels it names.
func shapeFlags(fl *ir.Field) string {
	var flags []string
	if fl.Type.Kind == ir.Nullable || fl.Type.Kind == ir.Raw {
		flags = append(flags, "nullable")
	}
	if f := nonNullElems(fl.Type); f != "" {
		flags = append(flags, f)
	}
	return strings.Join(flags, ",")
}

// nonNullElems returns the nonnullelems flag of a member of type t, or
// "" when every element in it may be null (see nonNullLevels).
func nonNullElems(t *ir.Type) string {
	levels, ok := nonNullLevels(t)
	switch {
	case !ok:
		return ""
	case levels == "":
		return "nonnullelems"
	}
	return "nonnullelems=" + levels
}

// nonNullLevels returns the levels of the arrays and maps nested in t at
// which an element must not be null, as mcpimpl reads them: "" when no
// element may be null at any level, a 1 for each level where none may and
// a 0 for each where one may, up to the last 1, and ok false when every
// element may be null. The levels are those of the Go type: each slice or
// map, down to an element that is neither. A recursive array or map comes
// back to itself, and past that its levels repeat: "" names them all only
// when none may be null; otherwise the levels stop there, and the nulls
// past them are left to the schema.
func nonNullLevels(t *ir.Type) (levels string, ok bool) {
	var b []byte
	var seen []*ir.Type
	u := t.Underlying()
	for u.Kind == ir.Slice || u.Kind == ir.Map {
		if slices.ContainsFunc(seen, func(s *ir.Type) bool { return s == u || (u.IsNamed() && s.Name == u.Name) }) {
			break
		}
		seen = append(seen, u)
		e := u.Elem
		if e.Kind == ir.Raw || e.Kind == ir.Nullable {
			b = append(b, '0')
		} else {
			b = append(b, '1')
		}
		u = e.Underlying()
	}
	if len(b) > 0 && !bytes.Contains(b, []byte{'0'}) {
		return "", true
	}
	b = bytes.TrimRight(b, "0")
	return string(b), len(b) > 0
}

func enumBase(t *ir.Type) string {
	switch t.Base {
	case ir.Int:
		return "int64"
	case ir.Number:
		return "float64"
	case ir.Bool:
		return "bool"
	}
	return "string"
}

// literal renders a scalar JSON value as a Go constant of kind base, as
// gofmt prints it: a number's exponent has a lower-case e.
func literal(v *jsontree.Node, base ir.Kind) string {
	switch v.Kind {
	case jsontree.String:
		return strconv.Quote(v.Str)
	case jsontree.Bool:
		return strconv.FormatBool(v.Bool)
	case jsontree.Number:
		return strings.Replace(v.Str, "E", "e", 1)
	}
	return "nil"
}

// enumReason is the error reason for a value outside an enum.
func enumReason(t *ir.Type) string {
	if len(t.Values) > 12 {
		return fmt.Sprintf("must be one of the %d values of %s", len(t.Values), t.Name)
	}
	var parts []string
	for _, v := range t.Values {
		parts = append(parts, v.Value.String())
	}
	return "must be one of " + strings.Join(parts, ", ")
}

func (w *typesWriter) enumDecl(t *ir.Type) {
	if t.AliasOf != nil {
		w.typeDecl(w.g.typeDoc(t), t.Name, "= "+t.AliasOf.Name)
	} else {
		w.typeDecl(w.g.typeDoc(t), t.Name, enumBase(t))
	}
	w.s.decl("const", true)
	w.s.b.WriteString("// The values of " + t.Name + ".\nconst (\n")
	width := 0
	for _, v := range t.Values {
		width = max(width, utf8.RuneCountInString(v.GoName))
	}
	names := make([]string, 0, len(t.Values))
	for _, v := range t.Values {
		w.s.b.WriteByte('\t')
		w.s.b.WriteString(v.GoName)
		if len(t.Values) > 1 {
			// Aligned as in a struct (see structType).
			w.s.b.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(v.GoName)))
		}
		w.s.b.WriteString(" " + t.Name + " = " + literal(v.Value, t.Base) + "\n")
		names = append(names, v.GoName)
		w.names = append(w.names, v.GoName)
	}
	w.s.b.WriteString(")\n")
	if t.AliasOf != nil {
		return // the methods are those of the type it aliases
	}
	// The switch is the fastest test of an enum's values; it is kept out
	// of line, so that the compiler builds it once rather than again in
	// Validate and in every caller.
	w.s.decl("func", true)
	w.s.b.WriteString("// Valid reports whether e is one of the values of the enum.\n//\n//go:noinline\n")
	w.s.b.WriteString("func (e " + t.Name + ") Valid() bool {\n")
	writeStmts(&w.s.b, 1, []stmt{
		simple("switch e {"),
		simple("case " + strings.Join(names, ", ") + ":"),
		simple("\treturn true"),
		simple("}"),
		simple("return false"),
	})
	w.s.b.WriteString("}\n")
	w.names = append(w.names, t.Name+".Valid")
	w.usesImpl = true
	w.method(t.Name, "Validate", funcDecl{doc: []string{"Validate returns a *runtime.ValidationError when e is not one of the values of the enum."}, sig: "(e " + t.Name + ") Validate() error", body: []stmt{
		block("if !e.Valid()", simple("return mcpimpl.Invalid(\"\", "+strconv.Quote(enumReason(t))+")")),
		simple("return nil"),
	}})
}

func (w *typesWriter) constDecl(t *ir.Type) {
	lit := strconv.Quote(t.Const.String())
	w.typeDecl(w.g.typeDoc(t), t.Name, "struct{}")
	w.method(t.Name, "MarshalJSON", funcDecl{doc: []string{"MarshalJSON encodes the constant."}, sig: "(" + t.Name + ") MarshalJSON() ([]byte, error)", body: []stmt{
		simple("return []byte(" + lit + "), nil"),
	}})
	w.usesImpl = true
	w.method(t.Name, "UnmarshalJSON", funcDecl{doc: []string{"UnmarshalJSON accepts the constant only."}, sig: "(*" + t.Name + ") UnmarshalJSON(data []byte) error", body: []stmt{
		block("if !mcpimpl.ConstMatches(data, "+lit+")", simple("return mcpimpl.Invalid(\"\", "+strconv.Quote("must be "+truncate(t.Const.String(), 80))+")")),
		simple("return nil"),
	}})
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

var kindConst = map[jsontree.Kind]string{
	jsontree.Null: "KindNull", jsontree.Bool: "KindBool", jsontree.Number: "KindNumber",
	jsontree.String: "KindString", jsontree.Array: "KindArray", jsontree.Object: "KindObject",
}

var kindTag = map[jsontree.Kind]string{
	jsontree.Null: "null", jsontree.Bool: "boolean", jsontree.Number: "number",
	jsontree.String: "string", jsontree.Array: "array", jsontree.Object: "object",
}

func (w *typesWriter) unionDecl(t *ir.Type) {
	g := w.g
	// A branch of an unnamed type with checks of its own is checked by a
	// function in validate.go (see branchChecks); the other branches are
	// checked by their type's Validate, which mcpimpl.DecodeTaggedUnion
	// calls.
	var checks []bool
	tagged := true
	for _, b := range t.Branches {
		c := !b.Type.IsNamed() && len(g.checks(b.Type, "*v", nil, 0)) > 0
		tagged = tagged && !c
		checks = append(checks, c)
	}
	var fields []field
	for _, b := range t.Branches {
		var kinds []string
		for _, k := range b.Kinds {
			kinds = append(kinds, kindTag[k])
		}
		if f := nonNullElems(b.Type); f != "" {
			kinds = append(kinds, f)
		}
		fields = append(fields, field{doc: fieldDoc(b.Type.Doc), name: b.GoName, typ: "*" + w.goType(b.Type), tag: map[string]string{tagKey: strings.Join(kinds, ",")}})
	}
	var b bytes.Buffer
	structType(&b, fields)
	w.usesImpl = true
	w.typeDecl(g.typeDoc(t), t.Name, b.String())

	w.method(t.Name, "MarshalJSON", funcDecl{doc: []string{"MarshalJSON encodes the branch that is set, or null when none is."}, sig: "(u " + t.Name + ") MarshalJSON() ([]byte, error)", body: []stmt{
		simple("return mcpimpl.EncodeUnion(&u)"),
	}})

	named := func(err string) string { return err }
	if r, ok := g.roots[t]; ok {
		named = func(err string) string {
			return forToolFunc(r.result) + "(" + err + ", " + strconv.Quote(r.tool.Name) + ")"
		}
	}
	doc := []string{"UnmarshalJSON decodes the first branch, in schema order, that accepts the JSON kind of data and decodes and validates without error."}
	sig := "(u *" + t.Name + ") UnmarshalJSON(data []byte) error"
	oneOf := strconv.FormatBool(t.OneOf)
	if tagged {
		w.method(t.Name, "UnmarshalJSON", funcDecl{doc: doc, sig: sig, body: []stmt{
			simple("return " + named("mcpimpl.DecodeTaggedUnion(data, u, "+oneOf+")")),
		}})
		return
	}
	var call strings.Builder
	call.WriteString("if err := mcpimpl.DecodeUnion(data, " + oneOf + ", []mcpimpl.UnionBranch{\n")
	for i, b := range t.Branches {
		check := "nil"
		switch {
		case b.Type.IsNamed() && g.needsValidate(b.Type):
			check = "(*" + b.Type.Name + ").Validate"
		case checks[i]:
			check = branchCheck(t, i) // in validate.go
		}
		call.WriteString("\t\tmcpimpl.Decoded(&out." + b.GoName + ", " + check)
		for _, k := range b.Kinds {
			call.WriteString(", mcpimpl." + kindConst[k])
		}
		call.WriteString(")")
		if levels, ok := nonNullLevels(b.Type); ok {
			call.WriteString(".NonNullElems(" + strconv.Quote(levels) + ")")
		}
		call.WriteString(",\n")
	}
	call.WriteString("\t}); err != nil")
	w.method(t.Name, "UnmarshalJSON", funcDecl{doc: doc, sig: sig, body: []stmt{
		simple("var out " + t.Name),
		block(call.String(), simple("return "+named("err"))),
		simple("*u = out"),
		simple("return nil"),
	}})
}
