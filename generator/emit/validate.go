package emit

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// A path is the JSON pointer of the value being checked, relative to the
// receiver of the Validate method: literal property names and loop
// variables.
type path []jen.Code

func (p path) with(c jen.Code) path {
	return append(append(path(nil), p...), c)
}

// pointer renders the path as a JSON pointer expression.
func (p path) pointer(lits []string) jen.Code {
	if lits != nil {
		s := ""
		for _, l := range lits {
			s += "/" + escapeToken(l)
		}
		return jen.Lit(s)
	}
	return jen.Qual(implPkg, "Pointer").Call(p...)
}

func escapeToken(s string) string {
	out := ""
	for _, r := range s {
		switch r {
		case '~':
			out += "~0"
		case '/':
			out += "~1"
		default:
			out += string(r)
		}
	}
	return out
}

// checker tracks the literal form of a path next to its code.
type checker struct {
	g    *gen
	lits []string // non-nil when every token of the path is a literal
	p    path
	// shape has a letter a token of p: l for a literal, i for an array
	// index, k for a map key; "?" when p came from elsewhere. first is
	// the first token when it is a literal.
	shape string
	first string
}

func (g *gen) checks(t *ir.Type, expr string, p path, depth int) []jen.Code {
	c := checker{g: g, lits: []string{}, p: p}
	if len(p) > 0 {
		c.shape = "?"
	}
	return g.checksAt(t, expr, c, depth)
}

func (c checker) withLit(name string) checker {
	n := checker{g: c.g, p: c.p.with(jen.Lit(name)), shape: c.shape + "l", first: c.first}
	if c.shape == "" {
		n.first = name
	}
	if c.lits != nil {
		n.lits = append(append([]string{}, c.lits...), name)
	}
	return n
}

// withVar adds the map key in the variable v to the path.
func (c checker) withVar(v string) checker {
	return checker{g: c.g, p: c.p.with(jen.Id(v)), shape: c.shape + "k", first: c.first}
}

// withIndex adds the array index in the variable i to the path.
func (c checker) withIndex(i string) checker {
	return checker{g: c.g, p: c.p.with(jen.Id(i)), shape: c.shape + "i", first: c.first}
}

func (c checker) invalid(reason string) jen.Code {
	return jen.Return(jen.Qual(implPkg, "Invalid").Call(c.p.pointer(c.lits), jen.Lit(reason)))
}

// within checks a nested value with call, a Validate call, and prefixes
// the path to the value to the pointer of its error. The two common paths,
// a property and an item of an array property, have helpers of their own,
// which spare each call site the variadic arguments of Within.
func (c checker) within(call jen.Code) jen.Code {
	ret := jen.Return(jen.Err())
	switch {
	case len(c.p) == 0:
	case c.shape == "l":
		ret = jen.Return(jen.Qual(implPkg, "WithinName").Call(jen.Err(), jen.Lit(c.first)))
	case c.shape == "li":
		ret = jen.Return(jen.Qual(implPkg, "WithinItem").Call(jen.Err(), jen.Lit(c.first), c.p[1]))
	default:
		ret = jen.Return(jen.Qual(implPkg, "Within").Call(append([]jen.Code{jen.Err()}, c.p...)...))
	}
	return jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(ret)
}

// needsValidate reports whether values of t can be invalid, so that calls
// to a Validate that always returns nil are left out.
func (g *gen) needsValidate(t *ir.Type) bool {
	if v, ok := g.needs[t]; ok {
		return v
	}
	g.needs[t] = true // assume so while recursing
	v := g.computeNeeds(t)
	g.needs[t] = v
	return v
}

func (g *gen) computeNeeds(t *ir.Type) bool {
	switch t.Kind {
	case ir.Raw, ir.Bool, ir.Const:
		return false
	case ir.Enum, ir.Union:
		return true
	case ir.Int, ir.Number:
		return t.Minimum != nil || t.Maximum != nil || t.MultipleOf != ""
	case ir.String:
		return t.MinLength != nil || t.MaxLength != nil || len(t.Patterns) > 0 || t.Format != ""
	case ir.Nullable:
		return g.needsValidate(t.Elem)
	case ir.Slice:
		return t.MinItems != nil || t.MaxItems != nil || g.needsValidate(t.Elem)
	case ir.Map:
		return t.MinEntries != nil || t.MaxEntries != nil || len(t.KeyPatterns) > 0 || g.needsValidate(t.Elem)
	case ir.Struct:
		if t.Extra != nil && g.needsValidate(t.Extra) {
			return true
		}
		for _, f := range t.Fields {
			if f.Required && (f.Type.Kind == ir.Slice || f.Type.Kind == ir.Map) {
				return true
			}
			if fieldPointer(f) && f.Required {
				return true
			}
			if g.needsValidate(f.Type) {
				return true
			}
		}
	}
	return false
}

// checksAt returns statements that return an error when the value expr of
// type t is invalid.
func (g *gen) checksAt(t *ir.Type, expr string, c checker, depth int) []jen.Code {
	if !g.needsValidate(t) {
		return nil
	}
	if t.IsNamed() {
		return []jen.Code{c.within(jen.Id(operand(expr)).Dot("Validate").Call())}
	}
	var out []jen.Code
	switch t.Kind {
	case ir.Nullable:
		if t.Elem.NilAble() {
			return g.checksAt(t.Elem, expr, c, depth)
		}
		inner := g.checksAt(t.Elem, "*"+expr, c, depth)
		if len(inner) == 0 {
			return nil
		}
		return []jen.Code{jen.If(jen.Id(expr).Op("!=").Nil()).Block(inner...)}
	case ir.Int, ir.Number:
		x := jen.Id(expr)
		out = append(out, bound(x, t, t.Minimum, true, c)...)
		out = append(out, bound(jen.Id(expr), t, t.Maximum, false, c)...)
		if t.MultipleOf != "" {
			out = append(out, jen.If(jen.Id(expr).Op("%").Id(t.MultipleOf).Op("!=").Lit(0)).Block(c.invalid("must be a multiple of "+t.MultipleOf)))
		}
	case ir.String:
		if t.MinLength != nil {
			out = append(out, jen.If(jen.Qual("unicode/utf8", "RuneCountInString").Call(jen.Id(expr)).Op("<").Lit(int(*t.MinLength))).Block(
				c.invalid(fmt.Sprintf("must be at least %d characters long", *t.MinLength))))
		}
		if t.MaxLength != nil {
			out = append(out, jen.If(jen.Qual("unicode/utf8", "RuneCountInString").Call(jen.Id(expr)).Op(">").Lit(int(*t.MaxLength))).Block(
				c.invalid(fmt.Sprintf("must be at most %d characters long", *t.MaxLength))))
		}
		for _, p := range t.Patterns {
			out = append(out, jen.If(jen.Op("!").Qual(implPkg, "Match").Call(jen.Id(g.pattern(p)), jen.Id(expr))).Block(
				c.invalid("must match the pattern "+truncate(p, 120))))
		}
		if t.Format != "" {
			out = append(out, jen.If(jen.Op("!").Qual(implPkg, "CheckFormat").Call(jen.Lit(t.Format), jen.Id(expr))).Block(
				c.invalid(fmt.Sprintf("must be a valid %q", t.Format))))
		}
	case ir.Slice:
		if t.MinItems != nil {
			out = append(out, jen.If(jen.Len(jen.Id(expr)).Op("<").Lit(int(*t.MinItems))).Block(
				c.invalid(fmt.Sprintf("must have at least %d items", *t.MinItems))))
		}
		if t.MaxItems != nil {
			out = append(out, jen.If(jen.Len(jen.Id(expr)).Op(">").Lit(int(*t.MaxItems))).Block(
				c.invalid(fmt.Sprintf("must have at most %d items", *t.MaxItems))))
		}
		i := "i" + strconv.Itoa(depth)
		if inner := g.checksAt(t.Elem, operand(expr)+"["+i+"]", c.withIndex(i), depth+1); len(inner) > 0 {
			out = append(out, jen.For(jen.Id(i).Op(":=").Range().Id(expr)).Block(inner...))
		}
	case ir.Map:
		out = append(out, g.mapChecks(t.Elem, t, expr, c, depth)...)
	case ir.Struct:
		// Unnamed structs do not occur: structs are always named.
	}
	return out
}

// operand makes expr usable before a selector or an index: a dereference
// gets parentheses.
func operand(expr string) string {
	if strings.HasPrefix(expr, "*") {
		return "(" + expr + ")"
	}
	return expr
}

// mapChecks checks a map of elem; lim carries the size and key limits.
func (g *gen) mapChecks(elem, lim *ir.Type, expr string, c checker, depth int) []jen.Code {
	var out []jen.Code
	if lim.MinEntries != nil {
		out = append(out, jen.If(jen.Len(jen.Id(expr)).Op("<").Lit(int(*lim.MinEntries))).Block(
			c.invalid(fmt.Sprintf("must have at least %d properties", *lim.MinEntries))))
	}
	if lim.MaxEntries != nil {
		out = append(out, jen.If(jen.Len(jen.Id(expr)).Op(">").Lit(int(*lim.MaxEntries))).Block(
			c.invalid(fmt.Sprintf("must have at most %d properties", *lim.MaxEntries))))
	}
	k, v := "k"+strconv.Itoa(depth), "v"+strconv.Itoa(depth)
	var inner []jen.Code
	for _, p := range lim.KeyPatterns {
		inner = append(inner, jen.If(jen.Op("!").Qual(implPkg, "Match").Call(jen.Id(g.pattern(p)), jen.Id(k))).Block(
			c.withVar(k).invalid("property name must match the pattern "+truncate(p, 120))))
	}
	elemChecks := g.checksAt(elem, v, c.withVar(k), depth+1)
	inner = append(inner, elemChecks...)
	if len(inner) == 0 {
		return out
	}
	vid := jen.Id(v)
	if len(elemChecks) == 0 {
		vid = jen.Id("_")
	}
	return append(out, jen.For(jen.List(jen.Id(k), vid).Op(":=").Range().Id(expr)).Block(inner...))
}

// bound checks a numeric limit.
func bound(x *jen.Statement, t *ir.Type, b *ir.Bound, lower bool, c checker) []jen.Code {
	if b == nil {
		return nil
	}
	op, word := "<", ">="
	if b.Exclusive {
		op, word = "<=", ">"
	}
	if !lower {
		op, word = ">", "<="
		if b.Exclusive {
			op, word = ">=", "<"
		}
	}
	var cond *jen.Statement
	if t.Kind == ir.Int {
		cond = intBound(x, t.GoType, b, lower)
		if cond == nil {
			return nil
		}
	} else {
		f, _ := strconv.ParseFloat(b.Lit, 64)
		cond = jen.Add(x).Op(op).Lit(f)
	}
	return []jen.Code{jen.If(cond).Block(c.invalid("must be " + word + " " + b.Lit))}
}

// intBound is the condition under which the integer x of Go type goType
// breaks the bound b, compared exactly, or nil when no value of the type
// does.
func intBound(x *jen.Statement, goType string, b *ir.Bound, lower bool) *jen.Statement {
	lo, hi := intRange(goType)
	n, beyond := b.IntLimit(lower)
	switch {
	case lower && (beyond < 0 || beyond == 0 && n.Cmp(lo) <= 0), !lower && (beyond > 0 || beyond == 0 && n.Cmp(hi) >= 0):
		return nil
	case lower && (beyond > 0 || n.Cmp(hi) > 0):
		return jen.Add(x).Op("<=").Id(hi.String()) // no value of the type is above the bound
	case !lower && (beyond < 0 || n.Cmp(lo) < 0):
		return jen.Add(x).Op(">=").Id(lo.String())
	case lower:
		return jen.Add(x).Op("<").Id(n.String())
	}
	return jen.Add(x).Op(">").Id(n.String())
}

// intRange returns the least and the greatest value of the Go integer type
// goType ("" is int64).
func intRange(goType string) (lo, hi *big.Int) {
	bits := 64
	if n, err := strconv.Atoi(strings.TrimLeft(goType, "uint")); err == nil {
		bits = n
	}
	one := big.NewInt(1)
	if strings.HasPrefix(goType, "uint") {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, uint(bits)), one)
	}
	hi = new(big.Int).Lsh(one, uint(bits-1))
	return new(big.Int).Neg(hi), hi.Sub(hi, one)
}

// pattern returns the variable holding the compiled regexp p.
func (g *gen) pattern(p string) string {
	if v, ok := g.patterns[p]; ok {
		return v
	}
	v := "pattern" + strconv.Itoa(len(g.patOrder)+1)
	g.patterns[p] = v
	g.patOrder = append(g.patOrder, p)
	return v
}

func (g *gen) validateFile() *jen.File {
	f := g.newFile()
	for _, t := range g.pkg.Types {
		g.validateDecl(f, t)
	}
	if len(g.patOrder) > 0 {
		var defs []jen.Code
		for _, p := range g.patOrder {
			compile := jen.Qual("regexp", "MustCompile")
			if _, err := regexp.Compile(p); err != nil {
				// Only the ECMAScript engine reads it (see runtime.CompilePattern).
				compile = jen.Qual(implPkg, "MustCompilePattern")
			}
			defs = append(defs, jen.Id(g.patterns[p]).Op("=").Add(compile).Call(jen.Lit(p)))
		}
		f.Add(comment("The patterns of the schemas, compiled once.")).Var().Defs(defs...)
	}
	return f
}

func (g *gen) validateDecl(f *jen.File, t *ir.Type) {
	r, isRoot := g.roots[t]
	recv := "a"
	var body []jen.Code
	switch t.Kind {
	case ir.Enum, ir.Const:
		return // declared with the type
	case ir.Struct:
		c := checker{g: g, lits: []string{}}
		for _, fl := range t.Fields {
			fc := c.withLit(fl.JSONName)
			expr := recv + "." + fl.GoName
			ft := fl.Type
			if fl.Required && ((ft.Kind == ir.Slice || ft.Kind == ir.Map) || fieldPointer(fl)) {
				body = append(body, jen.If(jen.Id(expr).Op("==").Nil()).Block(fc.invalid("is required")))
			}
			if fieldPointer(fl) {
				if inner := g.checksAt(ft, "*"+expr, fc, 0); len(inner) > 0 {
					body = append(body, jen.If(jen.Id(expr).Op("!=").Nil()).Block(inner...))
				}
				continue
			}
			checks := g.checksAt(ft, expr, fc, 0)
			if u := ft.Underlying(); (u.Kind == ir.Slice && u.MinItems != nil) || (u.Kind == ir.Map && u.MinEntries != nil) {
				// A nil slice or map is an absent property (or null): its
				// minItems or minProperties does not apply.
				checks = []jen.Code{jen.If(jen.Id(expr).Op("!=").Nil()).Block(checks...)}
			}
			body = append(body, checks...)
		}
		if t.Extra != nil {
			body = append(body, g.mapChecks(t.Extra, &ir.Type{}, recv+".Extra", c, 0)...)
		}
	case ir.Union:
		recv = "u"
		c := checker{g: g, lits: []string{}}
		body = append(body, jen.Id("n").Op(":=").Lit(0))
		for _, b := range t.Branches {
			body = append(body, jen.If(jen.Id(recv).Dot(b.GoName).Op("!=").Nil()).Block(jen.Id("n").Op("++")))
		}
		body = append(body,
			jen.If(jen.Id("n").Op("==").Lit(0)).Block(c.invalid("no branch of "+t.Name+" is set")),
			jen.If(jen.Id("n").Op(">").Lit(1)).Block(c.invalid("more than one branch of "+t.Name+" is set")),
		)
		for _, b := range t.Branches {
			if inner := g.checksAt(b.Type, "*"+recv+"."+b.GoName, c, 0); len(inner) > 0 {
				body = append(body, jen.If(jen.Id(recv).Dot(b.GoName).Op("!=").Nil()).Block(inner...))
			}
		}
	case ir.Slice, ir.Map:
		recv = "s"
		body = g.checksAt(&ir.Type{Kind: t.Kind, Elem: t.Elem, Constraints: t.Constraints}, recv, checker{g: g, lits: []string{}}, 0)
	default:
		return
	}
	body = append(body, jen.Return(jen.Nil()))
	recvType := jen.Op("*").Id(t.Name)
	if t.Kind == ir.Slice || t.Kind == ir.Map {
		recvType = jen.Id(t.Name)
	}
	if !isRoot {
		f.Add(comment("Validate returns a *runtime.ValidationError naming the first value that breaks the schema.")).Func().Params(jen.Id(recv).Add(recvType)).Id("Validate").Params().Error().Block(body...)
		return
	}
	checks := r.tool.RawChecks
	schema := jen.Id("schemas").Dot("Input").Call(jen.Lit(g.toolIndex[r.tool]))
	if r.result {
		checks = r.tool.ResultRawChecks
		schema = jen.Id("schemas").Dot("Output").Call(jen.Lit(g.toolIndex[r.tool]))
	}
	doc := []string{"Validate returns a *runtime.ValidationError naming the first value that breaks the schema of the tool " + quote(r.tool.Name) + "."}
	validate := jen.Func().Params(jen.Id(recv).Add(recvType)).Id("validate").Params().Error().Block(body...)
	if len(checks) > 0 {
		doc = append(doc, fmt.Sprintf("The schema uses keywords without a Go counterpart (%s), so Validate also checks the encoded value against the schema itself.", joinWords(checks)))
		f.Add(comment(doc...)).Func().Params(jen.Id(recv).Add(recvType)).Id("Validate").Params().Error().Block(
			jen.If(jen.Err().Op(":=").Id(recv).Dot("validate").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual(implPkg, "ForTool").Call(jen.Err(), jen.Lit(r.tool.Name)))),
			jen.Return(jen.Qual(implPkg, "ValidateEncoded").Call(schema, jen.Id(recv))),
		)
		f.Add(validate)
		return
	}
	if len(body) == 1 {
		// Nothing to check: every value of the type is valid.
		f.Add(comment(doc...)).Func().Params(jen.Id(recv).Add(recvType)).Id("Validate").Params().Error().Block(jen.Return(jen.Nil()))
		return
	}
	f.Add(comment(doc...)).Func().Params(jen.Id(recv).Add(recvType)).Id("Validate").Params().Error().Block(
		jen.Return(jen.Qual(implPkg, "ForTool").Call(jen.Id(recv).Dot("validate").Call(), jen.Lit(r.tool.Name))))
	f.Add(validate)
}

func joinWords(ws []string) string {
	out := ""
	for i, w := range ws {
		if i > 0 {
			out += ", "
		}
		out += w
	}
	return out
}
