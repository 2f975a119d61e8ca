package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// goType is the Go type of a value of t.
func goType(t *ir.Type) *jen.Statement {
	switch t.Kind {
	case ir.Bool:
		return jen.Bool()
	case ir.Int:
		if t.GoType != "" {
			return jen.Id(t.GoType)
		}
		return jen.Int64()
	case ir.Number:
		return jen.Float64()
	case ir.String:
		return jen.String()
	case ir.Nullable:
		if t.Elem.NilAble() {
			return goType(t.Elem)
		}
		return jen.Op("*").Add(goType(t.Elem))
	}
	if t.IsNamed() {
		return jen.Id(t.Name)
	}
	switch t.Kind {
	case ir.Slice:
		return jen.Index().Add(goType(t.Elem))
	case ir.Map:
		return jen.Map(jen.String()).Add(goType(t.Elem))
	}
	return jen.Qual(jsonPkg, "RawMessage")
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

// goTypeText is goType as Go source.
func goTypeText(t *ir.Type) string { return fmt.Sprintf("%#v", goType(t)) }

func fieldType(f *ir.Field) *jen.Statement {
	if fieldPointer(f) {
		return jen.Op("*").Add(goType(f.Type))
	}
	return goType(f.Type)
}

// omitEmpty reports whether a field is left out of the JSON when nil.
func omitEmpty(f *ir.Field) bool { return !f.Required }

func (g *gen) typesFile() *jen.File {
	f := g.newFile()
	for _, t := range g.pkg.Types {
		switch t.Kind {
		case ir.Struct:
			g.structDecl(f, t)
		case ir.Enum:
			g.enumDecl(f, t)
		case ir.Const:
			g.constDecl(f, t)
		case ir.Union:
			g.unionDecl(f, t)
		case ir.Slice, ir.Map:
			f.Add(comment(fmt.Sprintf("%s is a recursive %s.", t.Name, kindNoun(t)), t.Doc)).Type().Id(t.Name).Add(goTypeUnnamed(t))
		}
	}
	return f
}

func kindNoun(t *ir.Type) string {
	if t.Kind == ir.Slice {
		return "array"
	}
	return "map"
}

// goTypeUnnamed is the underlying type of a named slice or map.
func goTypeUnnamed(t *ir.Type) *jen.Statement {
	if t.Kind == ir.Slice {
		return jen.Index().Add(goType(t.Elem))
	}
	return jen.Map(jen.String()).Add(goType(t.Elem))
}

func (g *gen) typeDoc(t *ir.Type) jen.Code {
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
		case ir.Const:
			lead += " a constant: it always encodes as " + oneLine(t.Const.String()) + "."
		case ir.Union:
			lead += " one of several shapes; exactly one field is set."
			if t.OneOf {
				lead += " The value must match exactly one branch (oneOf)."
			}
		default:
			lead += " an object."
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
	return comment(paras...)
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

func (g *gen) structDecl(f *jen.File, t *ir.Type) {
	fields := make([]jen.Code, 0, len(t.Fields)+1)
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
		tags := map[string]string{"json": fl.JSONName}
		if omitEmpty(fl) {
			tags["json"] += ",omitempty"
		}
		if flags := shapeFlags(fl); flags != "" {
			tags[tagKey] = flags
		}
		fields = append(fields, jen.Add(comment(paras...)).Id(fl.GoName).Add(fieldType(fl)).Tag(tags))
	}
	if t.Extra != nil {
		fields = append(fields, jen.Add(comment("Extra holds the properties that are not fields, which the schema allows (additionalProperties).")).
			Id("Extra").Map(jen.String()).Add(goType(t.Extra)).Tag(map[string]string{"json": "-"}))
	}
	f.Add(g.typeDoc(t)).Type().Id(t.Name).Struct(fields...)

	// Decoding checks, which mcpimpl.DecodeObject reads from the tags. An
	// open object without Extra nested in another value needs no method of
	// its own: the decoder of the value holding it checks it by its tags.
	r, root := g.roots[t]
	if !root && !t.Closed && t.Extra == nil {
		return
	}
	decode := jen.Qual(implPkg, "DecodeObject").Call(jen.Id("data"), jen.Id("a"), jen.Lit(t.Closed))
	doc := "UnmarshalJSON decodes a JSON object, rejecting missing required properties, unexpected nulls and, if the object is closed, unknown properties."
	if t.Extra != nil {
		doc = "UnmarshalJSON decodes a JSON object, rejecting missing required properties and unexpected nulls; the properties that are not fields go to Extra."
	}
	// The errors of a tool's own type name the tool, as Validate's do.
	if root {
		decode = jen.Qual(implPkg, "ForTool").Call(decode, jen.Lit(r.tool.Name))
		doc += " Its errors are *runtime.ValidationError values naming the tool and the JSON pointer of the value that failed."
	}
	f.Add(comment(doc)).
		Func().Params(jen.Id("a").Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(jen.Return(decode))

	if t.Extra != nil {
		f.Add(comment("MarshalJSON encodes the fields followed by Extra.")).Func().Params(jen.Id("a").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
			jen.Type().Id("plain").Id(t.Name),
			jen.List(jen.Id("data"), jen.Err()).Op(":=").Qual(jsonPkg, "Marshal").Call(jen.Id("plain").Call(jen.Id("a"))),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Qual(implPkg, "EncodeExtra").Call(jen.Id("data"), jen.Id("a").Dot("Extra"))),
		)
	}
}

// tagKey is the struct tag key of mcpimpl.TagKey.
const tagKey = "mcpgen"

// shapeFlags are the flags of the mcpgen tag of a struct field, which
// mcpimpl.DecodeObject reads: nullable members may be null, and the
// elements of nonnullelems members must not be.
func shapeFlags(fl *ir.Field) string {
	var flags []string
	if fl.Type.Kind == ir.Nullable || fl.Type.Kind == ir.Raw {
		flags = append(flags, "nullable")
	}
	if u := fl.Type.Underlying(); (u.Kind == ir.Slice || u.Kind == ir.Map) && !u.IsNamed() && u.Elem.Kind != ir.Raw && u.Elem.Kind != ir.Nullable {
		flags = append(flags, "nonnullelems")
	}
	return strings.Join(flags, ",")
}

func enumBase(t *ir.Type) *jen.Statement {
	switch t.Base {
	case ir.Int:
		return jen.Int64()
	case ir.Number:
		return jen.Float64()
	case ir.Bool:
		return jen.Bool()
	}
	return jen.String()
}

// literal renders a scalar JSON value as a Go constant of kind base.
func literal(v *jsontree.Node, base ir.Kind) jen.Code {
	switch v.Kind {
	case jsontree.String:
		return jen.Lit(v.Str)
	case jsontree.Bool:
		return jen.Lit(v.Bool)
	case jsontree.Number:
		return jen.Id(v.Str)
	}
	return jen.Nil()
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

func (g *gen) enumDecl(f *jen.File, t *ir.Type) {
	f.Add(g.typeDoc(t)).Type().Id(t.Name).Add(enumBase(t))
	var consts []jen.Code
	var names []jen.Code
	for _, v := range t.Values {
		consts = append(consts, jen.Id(v.GoName).Id(t.Name).Op("=").Add(literal(v.Value, t.Base)))
		names = append(names, jen.Id(v.GoName))
	}
	f.Add(comment(fmt.Sprintf("The values of %s.", t.Name))).Const().Defs(consts...)
	// The switch is the fastest test of an enum's values; it is kept out
	// of line, so that the compiler builds it once rather than again in
	// Validate and in every caller.
	f.Add(comment("Valid reports whether e is one of the values of the enum."), jen.Comment("//"), jen.Line(), jen.Comment("//go:noinline"), jen.Line()).Func().Params(jen.Id("e").Id(t.Name)).Id("Valid").Params().Bool().Block(
		jen.Switch(jen.Id("e")).Block(jen.Case(names...).Block(jen.Return(jen.True()))),
		jen.Return(jen.False()),
	)
	f.Add(comment("Validate returns a *runtime.ValidationError when e is not one of the values of the enum.")).Func().Params(jen.Id("e").Id(t.Name)).Id("Validate").Params().Error().Block(
		jen.If(jen.Op("!").Id("e").Dot("Valid").Call()).Block(jen.Return(jen.Qual(implPkg, "Invalid").Call(jen.Lit(""), jen.Lit(enumReason(t))))),
		jen.Return(jen.Nil()),
	)
}

func (g *gen) constDecl(f *jen.File, t *ir.Type) {
	lit := t.Const.String()
	f.Add(g.typeDoc(t)).Type().Id(t.Name).Struct()
	f.Add(comment("MarshalJSON encodes the constant.")).Func().Params(jen.Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Index().Byte().Call(jen.Lit(lit)), jen.Nil()),
	)
	f.Add(comment("UnmarshalJSON accepts the constant only.")).Func().Params(jen.Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.If(jen.Op("!").Qual(implPkg, "ConstMatches").Call(jen.Id("data"), jen.Lit(lit))).Block(
			jen.Return(jen.Qual(implPkg, "Invalid").Call(jen.Lit(""), jen.Lit("must be "+truncate(lit, 80)))),
		),
		jen.Return(jen.Nil()),
	)
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

func (g *gen) unionDecl(f *jen.File, t *ir.Type) {
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
	var fields []jen.Code
	for _, b := range t.Branches {
		var doc []string
		if b.Type.Doc != "" {
			doc = append(doc, b.Type.Doc)
		}
		var kinds []string
		for _, k := range b.Kinds {
			kinds = append(kinds, kindTag[k])
		}
		fields = append(fields, jen.Add(comment(doc...)).Id(b.GoName).Op("*").Add(goType(b.Type)).Tag(map[string]string{tagKey: strings.Join(kinds, ",")}))
	}
	f.Add(g.typeDoc(t)).Type().Id(t.Name).Struct(fields...)

	f.Add(comment("MarshalJSON encodes the branch that is set, or null when none is.")).Func().Params(jen.Id("u").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Qual(implPkg, "EncodeUnion").Call(jen.Op("&").Id("u"))))

	named := func(err jen.Code) jen.Code { return err }
	if r, ok := g.roots[t]; ok {
		named = func(err jen.Code) jen.Code { return jen.Qual(implPkg, "ForTool").Call(err, jen.Lit(r.tool.Name)) }
	}
	doc := comment("UnmarshalJSON decodes the first branch, in schema order, that accepts the JSON kind of data and decodes and validates without error.")
	if tagged {
		f.Add(doc).Func().Params(jen.Id("u").Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
			jen.Return(named(jen.Qual(implPkg, "DecodeTaggedUnion").Call(jen.Id("data"), jen.Id("u"), jen.Lit(t.OneOf)))))
		return
	}
	var branches []jen.Code
	for i, b := range t.Branches {
		args := []jen.Code{jen.Op("&").Id("out").Dot(b.GoName)}
		switch {
		case b.Type.IsNamed() && g.needsValidate(b.Type):
			args = append(args, jen.Parens(jen.Op("*").Id(b.Type.Name)).Dot("Validate"))
		case checks[i]:
			args = append(args, jen.Id(branchCheck(t, i))) // in validate.go
		default:
			args = append(args, jen.Nil())
		}
		for _, k := range b.Kinds {
			args = append(args, jen.Qual(implPkg, kindConst[k]))
		}
		branches = append(branches, jen.Line().Qual(implPkg, "Decoded").Call(args...))
	}
	branches = append(branches, jen.Line())
	body := []jen.Code{
		jen.Var().Id("out").Id(t.Name),
		jen.If(jen.Err().Op(":=").Qual(implPkg, "DecodeUnion").Call(jen.Id("data"), jen.Lit(t.OneOf), jen.Index().Qual(implPkg, "UnionBranch").Values(branches...)), jen.Err().Op("!=").Nil()).Block(jen.Return(named(jen.Err()))),
		jen.Op("*").Id("u").Op("=").Id("out"),
		jen.Return(jen.Nil()),
	}
	f.Add(doc).Func().Params(jen.Id("u").Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(body...)
}

func containsKind(list []jsontree.Kind, k jsontree.Kind) bool {
	for _, x := range list {
		if x == k {
			return true
		}
	}
	return false
}

func article(k jsontree.Kind) string {
	switch k {
	case jsontree.Null:
		return "null"
	case jsontree.Array, jsontree.Object:
		return "an " + k.String()
	}
	return "a " + k.String()
}

func joinOr(conds []jen.Code) *jen.Statement {
	s := jen.Null()
	for i, c := range conds {
		if i > 0 {
			s.Op("||")
		}
		s.Add(c)
	}
	return s
}
