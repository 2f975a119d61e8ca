package emit

import (
	"bytes"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/schema"
)

// A path is the JSON pointer of the value being checked, relative to the
// receiver of the Validate method, as Go expressions: quoted property
// names and loop variables.
type path []string

func (p path) with(tok string) path {
	return append(append(path(nil), p...), tok)
}

// pointer renders the path as a JSON pointer expression.
func (p path) pointer(lits []string) string {
	if lits != nil {
		s := ""
		for _, l := range lits {
			s += "/" + escapeToken(l)
		}
		return strconv.Quote(s)
	}
	return "mcpimpl.Pointer(" + strings.Join(p, ", ") + ")"
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
	// tool, when set, is the quoted name of the tool whose Args or Result
	// the checks are of: their errors name it, and with result set say
	// they are of its result.
	tool   string
	result bool
}

func (g *gen) checks(t *ir.Type, expr string, p path, depth int) []stmt {
	c := checker{g: g, lits: []string{}, p: p}
	if len(p) > 0 {
		c.shape = "?"
	}
	return g.checksAt(t, expr, c, depth)
}

func (c checker) withLit(name string) checker {
	n := checker{g: c.g, p: c.p.with(strconv.Quote(name)), shape: c.shape + "l", first: c.first, tool: c.tool, result: c.result}
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
	return checker{g: c.g, p: c.p.with(v), shape: c.shape + "k", first: c.first, tool: c.tool, result: c.result}
}

// withIndex adds the array index in the variable i to the path.
func (c checker) withIndex(i string) checker {
	return checker{g: c.g, p: c.p.with(i), shape: c.shape + "i", first: c.first, tool: c.tool, result: c.result}
}

func (c checker) invalid(reason string) stmt {
	c.g.usesImpl = true
	return simple("return " + c.forTool("mcpimpl.Invalid("+c.p.pointer(c.lits)+", "+strconv.Quote(reason)+")"))
}

// forTool wraps the error expression err to name the tool, if the checks
// are of a tool's own type.
func (c checker) forTool(err string) string {
	if c.tool == "" {
		return err
	}
	return forToolFunc(c.result) + "(" + err + ", " + c.tool + ")"
}

// forToolFunc is the function that names the tool in the errors of a
// tool's own type: mcpimpl.ForResult for its Result, which also says the
// value is the result the server sent.
func forToolFunc(result bool) string {
	if result {
		return "mcpimpl.ForResult"
	}
	return "mcpimpl.ForTool"
}

// fails is an if statement that returns the error of reason when cond holds.
func (c checker) fails(cond, reason string) stmt {
	return block("if "+cond, c.invalid(reason))
}

// within checks a nested value with call, a Validate call, and prefixes
// the path to the value to the pointer of its error. The two common paths,
// a property and an item of an array property, have helpers of their own,
// which spare each call site the variadic arguments of Within.
func (c checker) within(call string) stmt {
	ret := "err"
	switch {
	case len(c.p) == 0:
	case c.shape == "l":
		ret = "mcpimpl.WithinName(err, " + strconv.Quote(c.first) + ")"
	case c.shape == "li":
		ret = "mcpimpl.WithinItem(err, " + strconv.Quote(c.first) + ", " + c.p[1] + ")"
	default:
		ret = "mcpimpl.Within(err, " + strings.Join(c.p, ", ") + ")"
	}
	if len(c.p) > 0 || c.tool != "" {
		c.g.usesImpl = true
	}
	return block("if err := "+call+"; err != nil", simple("return "+c.forTool(ret)))
}

// needsValidate reports whether values of t can be invalid, so that
// calls to a Validate that always returns nil are left out.
func (g *gen) needsValidate(t *ir.Type) bool {
	return ir.NeedsValidate(t, g.needs)
}

// checksAt returns statements that return an error when the value expr of
// type t is invalid.
func (g *gen) checksAt(t *ir.Type, expr string, c checker, depth int) []stmt {
	if !g.needsValidate(t) {
		return nil
	}
	if t.IsNamed() {
		return []stmt{c.within(operand(expr) + ".Validate()")}
	}
	var out []stmt
	switch t.Kind {
	case ir.Nullable:
		if t.Elem.NilAble() {
			return g.checksAt(t.Elem, expr, c, depth)
		}
		inner := g.checksAt(t.Elem, "*"+expr, c, depth)
		if len(inner) == 0 {
			return nil
		}
		return []stmt{block("if "+expr+" != nil", inner...)}
	case ir.Int, ir.Number:
		out = append(out, bound(expr, t, t.Minimum, true, c)...)
		out = append(out, bound(expr, t, t.Maximum, false, c)...)
		if t.MultipleOf != "" {
			out = append(out, c.fails(expr+"%"+t.MultipleOf+" != 0", "must be a multiple of "+t.MultipleOf))
		}
	case ir.String:
		if t.MinLength != nil {
			g.usesUTF8 = true
			out = append(out, c.fails("utf8.RuneCountInString("+expr+") < "+strconv.FormatInt(int64(*t.MinLength), 10),
				"must be at least "+count(*t.MinLength, "character", "characters")+" long"))
		}
		if t.MaxLength != nil {
			g.usesUTF8 = true
			out = append(out, c.fails("utf8.RuneCountInString("+expr+") > "+strconv.FormatInt(int64(*t.MaxLength), 10),
				"must be at most "+count(*t.MaxLength, "character", "characters")+" long"))
		}
		for _, p := range t.Patterns {
			out = append(out, c.fails("!mcpimpl.Match("+g.pattern(p)+", "+expr+")", "must match the pattern "+truncate(p, 120)))
		}
		if t.Format != "" {
			out = append(out, c.fails("!mcpimpl.CheckFormat("+strconv.Quote(t.Format)+", "+expr+")", fmt.Sprintf("must be a valid %q", t.Format)))
		}
	case ir.Slice:
		if t.MinItems != nil {
			out = append(out, c.fails("len("+expr+") < "+strconv.FormatInt(int64(*t.MinItems), 10), "must have at least "+count(*t.MinItems, "item", "items")))
		}
		if t.MaxItems != nil {
			out = append(out, c.fails("len("+expr+") > "+strconv.FormatInt(int64(*t.MaxItems), 10), "must have at most "+count(*t.MaxItems, "item", "items")))
		}
		i := "i" + strconv.Itoa(depth)
		if inner := g.checksAt(t.Elem, operand(expr)+"["+i+"]", c.withIndex(i), depth+1); len(inner) > 0 {
			out = append(out, block("for "+i+" := range "+expr, inner...))
		}
	case ir.Map:
		out = append(out, g.mapChecks(t.Elem, t, expr, c, depth)...)
	case ir.Struct:
		// Unnamed structs do not occur: structs are always named.
	}
	return out
}

// count writes n with the noun that agrees with it: "1 character", "2
// characters".
func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
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
func (g *gen) mapChecks(elem, lim *ir.Type, expr string, c checker, depth int) []stmt {
	var out []stmt
	if lim.MinEntries != nil {
		out = append(out, c.fails("len("+expr+") < "+strconv.FormatInt(int64(*lim.MinEntries), 10), "must have at least "+count(*lim.MinEntries, "property", "properties")))
	}
	if lim.MaxEntries != nil {
		out = append(out, c.fails("len("+expr+") > "+strconv.FormatInt(int64(*lim.MaxEntries), 10), "must have at most "+count(*lim.MaxEntries, "property", "properties")))
	}
	k, v := "k"+strconv.Itoa(depth), "v"+strconv.Itoa(depth)
	var inner []stmt
	for _, p := range lim.KeyPatterns {
		inner = append(inner, c.withVar(k).fails("!mcpimpl.Match("+g.pattern(p)+", "+k+")", "property name must match the pattern "+truncate(p, 120)))
	}
	elemChecks := g.checksAt(elem, v, c.withVar(k), depth+1)
	inner = append(inner, elemChecks...)
	if len(inner) == 0 {
		return out
	}
	vid := v
	if len(elemChecks) == 0 {
		vid = "_"
	}
	return append(out, block("for "+k+", "+vid+" := range "+expr, inner...))
}

// extraFieldCheck refuses a member of the Extra map expr of the struct t
// that has the name of one of t's fields: encoded after the fields, it
// would give the member twice, or, beside an unset field, a value that
// only the field's checks would have seen.
func extraFieldCheck(t *ir.Type, expr string, c checker) []stmt {
	if len(t.Fields) == 0 {
		return nil
	}
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = strconv.Quote(f.JSONName)
	}
	return []stmt{block("for k := range "+expr,
		block("switch k", caseClause("case "+strings.Join(names, ", ")+":"),
			c.withVar("k").invalid("is a field, so it cannot be in Extra too")))}
}

// bound checks a numeric limit.
func bound(x string, t *ir.Type, b *ir.Bound, lower bool, c checker) []stmt {
	if b == nil {
		return nil
	}
	word := ">="
	if b.Exclusive {
		word = ">"
	}
	if !lower {
		word = "<="
		if b.Exclusive {
			word = "<"
		}
	}
	var cond string
	if t.Kind == ir.Int {
		cond = intBound(x, t.GoType, b, lower)
		if cond == "" {
			return nil
		}
	} else {
		// Negated, so that NaN, which compares false both ways and JSON
		// cannot carry, breaks the bound too.
		f, _ := strconv.ParseFloat(b.Lit, 64)
		cond = "!(" + x + " " + word + " " + floatLit(f) + ")"
	}
	return []stmt{c.fails(cond, "must be "+word+" "+b.Lit)}
}

// floatLit writes f as a Go floating-point constant: the shortest decimal
// that reads back as f (with an exponent from 1e+21 and below 1e-4), and
// ".0" after one that would read as an integer.
func floatLit(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// intBound is the condition under which the integer x of Go type goType
// breaks the bound b, compared exactly, or "" when no value of the type
// does.
func intBound(x string, goType string, b *ir.Bound, lower bool) string {
	lo, hi := intRange(goType)
	n, beyond := b.IntLimit(lower)
	switch {
	case lower && (beyond < 0 || beyond == 0 && n.Cmp(lo) <= 0), !lower && (beyond > 0 || beyond == 0 && n.Cmp(hi) >= 0):
		return ""
	case lower && (beyond > 0 || n.Cmp(hi) > 0):
		return x + " <= " + hi.String() // no value of the type is above the bound
	case !lower && (beyond < 0 || n.Cmp(lo) < 0):
		return x + " >= " + lo.String()
	case lower:
		return x + " < " + n.String()
	}
	return x + " > " + n.String()
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

// validateFile writes validate.go in gofmt's form, and lists what it
// declares.
func (g *gen) validateFile() ([]byte, []string) {
	var s srcFile
	s.prev = "import"
	var names []string
	for _, t := range g.pkg.Types {
		names = g.validateDecl(&s, t, names)
	}
	usesRegexp := false
	if len(g.patOrder) > 0 {
		s.decl("var", true)
		s.b.WriteString("// The patterns of the schemas, compiled once.\nvar (\n")
		width := len(g.patterns[g.patOrder[len(g.patOrder)-1]])
		for _, p := range g.patOrder {
			v := g.patterns[p]
			compile := "regexp.MustCompile("
			if q, ok := schema.RE2Pattern(p); !ok || q != p {
				// RE2 reads it only rewritten, or only the ECMAScript
				// engine reads it (see runtime.CompilePattern).
				compile = "mcpimpl.MustCompilePattern("
			} else if _, err := regexp.Compile(p); err != nil {
				compile = "mcpimpl.MustCompilePattern("
			} else {
				usesRegexp = true
			}
			s.b.WriteByte('\t')
			s.b.WriteString(v)
			s.b.WriteString(strings.Repeat(" ", width-len(v)))
			s.b.WriteString(" = ")
			s.b.WriteString(compile)
			s.b.WriteString(strconv.Quote(p))
			s.b.WriteString(")\n")
			names = append(names, v)
		}
		s.b.WriteString(")\n")
	}
	var imports []string
	if g.usesJSON {
		imports = append(imports, jsonPkg)
	}
	if usesRegexp {
		imports = append(imports, "regexp")
	}
	if g.usesUTF8 {
		imports = append(imports, "unicode/utf8")
	}
	if g.usesImpl {
		imports = append(imports, implPkg)
	}
	return append(header(g.opts.Package, imports), s.b.Bytes()...), names
}

// validateDecl writes the Validate method of t, and of a union the checks
// of its branches that have no type of their own, and appends what it
// declares to names.
func (g *gen) validateDecl(s *srcFile, t *ir.Type, names []string) []string {
	r, isRoot := g.roots[t]
	recv := "a"
	var body []stmt
	// The checks of a tool's own type name the tool in their errors, in
	// the one method: no validate beside Validate.
	tool := ""
	result := false
	if isRoot {
		tool, result = strconv.Quote(r.tool.Name), r.result
	}
	switch t.Kind {
	case ir.Enum, ir.Const:
		return names // declared with the type
	case ir.Struct:
		if t.AliasOf != nil {
			return names // the methods are those of the type it aliases
		}
		if !isRoot && !g.needsValidate(t) {
			// Every value is valid: no Validate, and no call of one.
			return names
		}
		c := checker{g: g, lits: []string{}, tool: tool, result: result}
		for _, fl := range t.Fields {
			fc := c.withLit(fl.JSONName)
			expr := recv + "." + fl.GoName
			ft := fl.Type
			if fl.Required && ((ft.Kind == ir.Slice || ft.Kind == ir.Map) || fieldPointer(fl)) {
				body = append(body, fc.fails(expr+" == nil", "is required"))
			}
			if fieldPointer(fl) {
				if inner := g.checksAt(ft, "*"+expr, fc, 0); len(inner) > 0 {
					body = append(body, block("if "+expr+" != nil", inner...))
				}
				continue
			}
			checks := g.checksAt(ft, expr, fc, 0)
			if u := ft.Underlying(); (u.Kind == ir.Slice && u.MinItems != nil) || (u.Kind == ir.Map && u.MinEntries != nil) {
				// A nil slice or map is an absent property (or null): its
				// minItems or minProperties does not apply.
				checks = []stmt{block("if "+expr+" != nil", checks...)}
			}
			body = append(body, checks...)
		}
		if t.Extra != nil {
			body = append(body, extraFieldCheck(t, recv+".Extra", c)...)
			body = append(body, g.mapChecks(t.Extra, &ir.Type{}, recv+".Extra", c, 0)...)
		}
	case ir.Union:
		recv = "u"
		c := checker{g: g, lits: []string{}, tool: tool, result: result}
		body = append(body, simple("n := 0"))
		for _, b := range t.Branches {
			body = append(body, block("if "+recv+"."+b.GoName+" != nil", simple("n++")))
		}
		body = append(body,
			c.fails("n == 0", "no branch of "+t.Name+" is set"),
			c.fails("n > 1", "more than one branch of "+t.Name+" is set"),
		)
		for _, b := range t.Branches {
			if inner := g.checksAt(b.Type, "*"+recv+"."+b.GoName, c, 0); len(inner) > 0 {
				body = append(body, block("if "+recv+"."+b.GoName+" != nil", inner...))
			}
		}
	case ir.Slice, ir.Map:
		recv = "s"
		body = g.checksAt(&ir.Type{Kind: t.Kind, Elem: t.Elem, Constraints: t.Constraints}, recv, checker{g: g, lits: []string{}, tool: tool, result: result}, 0)
	default:
		return names
	}
	body = append(body, simple("return nil"))
	recvType := "*" + t.Name
	if t.Kind == ir.Slice || t.Kind == ir.Map {
		recvType = t.Name
	}
	sig := func(name string) string { return "(" + recv + " " + recvType + ") " + name + "() error" }
	names = append(names, t.Name+".Validate")
	defer func() {
		if t.Kind == ir.Union {
			names = g.branchChecks(s, t, names)
		}
	}()
	if !isRoot {
		s.fn(g.sharedChecks(t, funcDecl{doc: []string{"Validate returns a *runtime.ValidationError naming the first value that breaks the schema."}, sig: sig("Validate"), body: body}, ""))
		return names
	}
	checks := r.tool.RawChecks
	schema := "schemas.Input(" + strconv.Itoa(g.toolIndex[r.tool]) + ")"
	if r.result {
		checks = r.tool.ResultRawChecks
		schema = "schemas.Output(" + strconv.Itoa(g.toolIndex[r.tool]) + ")"
	}
	doc := []string{"Validate returns a *runtime.ValidationError naming the first value that breaks the schema of the tool " + quote(r.tool.Name) + "."}
	if len(checks) > 0 {
		g.usesImpl = true
		doc = append(doc, fmt.Sprintf("The schema uses keywords without a Go counterpart (%s), so Validate also checks the encoded value against the schema itself.", joinWords(checks)))
		body[len(body)-1] = simple("return mcpimpl.ValidateEncoded(" + schema + ", " + recv + ")")
	}
	s.fn(g.sharedChecks(t, funcDecl{doc: doc, sig: sig("Validate"), body: body}, tool))
	return names
}

// sharedChecks returns d, the Validate method of the struct t, or one
// that calls the Validate of an earlier struct when that one has the same
// fields and the same checks. Large schemas repeat objects under names
// that keep them from being one type (see ir.Sharing): Microsoft Graph's
// message body, say, as the body of several tools and in several
// definitions. Their types' Validate methods were the same code, compiled
// again for each; a struct of the same field names and types converts to
// the other (struct tags do not count), so one of them keeps the checks
// and the others call it. tool is the quoted name of the tool whose Args
// or Result t is, or "": the checks of a tool's own type name it, and a
// call of another tool's names this one instead.
func (g *gen) sharedChecks(t *ir.Type, d funcDecl, tool string) funcDecl {
	if t.Kind != ir.Struct || len(d.body) < 2 {
		return d
	}
	var b bytes.Buffer
	writeStmts(&b, 1, d.body)
	d.text = b.String()
	text := d.text
	var key strings.Builder
	if tool != "" {
		key.WriteString("tool")
		text = strings.ReplaceAll(text, ", "+tool+")", ", \x00)")
	}
	w := typesWriter{}
	for _, f := range t.Fields {
		key.WriteString("\x00" + f.GoName + " " + w.fieldType(f))
	}
	if t.Extra != nil {
		key.WriteString("\x00Extra map[string]" + w.goType(t.Extra))
	}
	key.WriteString("\x00\x00")
	key.WriteString(text)
	if owner, ok := g.checksOf[key.String()]; ok {
		d.text = "\treturn (*" + owner + ")(a).Validate()\n"
		if tool != "" {
			d.text = "\treturn mcpimpl.AsTool((*" + owner + ")(a).Validate(), " + tool + ")\n"
		}
		return d
	}
	g.checksOf[key.String()] = t.Name
	return d
}

// branchCheck is the name of the function that checks branch i of the
// union t, a branch without a type of its own; mcpimpl.DecodeUnion calls
// it. The index after the last underscore keeps names apart.
func branchCheck(t *ir.Type, i int) string {
	return "check" + t.Name + "_" + strconv.Itoa(i)
}

// branchChecks writes the checks of the branches of the union t that have
// no type of their own, and appends their names to names.
func (g *gen) branchChecks(s *srcFile, t *ir.Type, names []string) []string {
	w := typesWriter{}
	for i, b := range t.Branches {
		if b.Type.IsNamed() {
			continue
		}
		checks := g.checks(b.Type, "*v", nil, 0)
		if len(checks) == 0 {
			continue
		}
		name := branchCheck(t, i)
		s.fn(funcDecl{
			doc:  []string{fmt.Sprintf("%s checks the %s branch of %s.", name, b.GoName, t.Name)},
			sig:  name + "(v *" + w.goType(b.Type) + ") error",
			body: append(checks, simple("return nil")),
		})
		names = append(names, name)
	}
	g.usesJSON = g.usesJSON || w.usesJSON // a branch of []json.RawMessage
	return names
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
