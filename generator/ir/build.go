package ir

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
	"github.com/mcpgen/mcpgen/runtime"
)

// reservedFields are the method names of generated types, which a field may
// not take.
var reservedFields = []string{"Validate", "MarshalJSON", "UnmarshalJSON"}

// Build converts tools into the IR with the default Limits. Tools are sorted
// by name; Go names are assigned in that order, so the same tool list always
// gives the same names.
func Build(tools []snapshot.Tool) (*Package, error) {
	return BuildLimited(tools, Limits{})
}

// BuildLimited is Build with limits on the tool count and the schema depth.
func BuildLimited(tools []snapshot.Tool, lim Limits) (*Package, error) {
	return BuildOptions(tools, Options{Limits: lim})
}

// buildPackage converts tools; no type takes a reserved name, and used
// records the keys of the overrides applied. Types are shared as sharing
// says; unshared are the entries of sharing.Except that matched no type.
func buildPackage(ctx context.Context, tools []snapshot.Tool, lim Limits, overrides map[string]Override, reserved []string, sharing Sharing, strict bool, used map[string]bool) (pkg *Package, unshared []string, err error) {
	lim = lim.withDefaults()
	if len(tools) > lim.MaxTools {
		return nil, nil, &TooManyToolsError{Count: len(tools), Limit: lim.MaxTools}
	}
	tools, err = withSchemas(tools)
	if err != nil {
		return nil, nil, err
	}
	sorted := make([]*snapshot.Tool, len(tools))
	for i := range tools {
		sorted[i] = &tools[i]
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })

	pkg = &Package{}
	names := newScope(reserved...)
	// Tool names become methods of Client and prefixes of type names, so
	// they may repeat package-level names ("client" gives Client.Client
	// and ClientArgs).
	toolNames := newScope()
	for _, st := range sorted {
		if err := st.CheckName(); err != nil {
			return nil, nil, &Error{Tool: st.Name, Pointer: "/name", Msg: err.Error()}
		}
		t := &Tool{Name: st.Name, Title: st.Title, Description: st.Description, Source: st.Runtime()}
		base := Exported(st.Name, "Tool")
		toolNames.claim(base, st.Name, spellingRank(st.Name, base), func(n string) { t.GoName = n })
		pkg.Tools = append(pkg.Tools, t)
	}
	toolNames.resolve()
	// Tool names are unique and no reserved name ends in Args or Result,
	// so these never collide; nested types that want them get a suffix.
	for i, st := range sorted {
		names.reserve(pkg.Tools[i].GoName + "Args")
		if st.Output != nil {
			names.reserve(pkg.Tools[i].GoName + "Result")
		}
	}
	index := map[*Type]int{}
	metaErrs, stopMeta := checkMetaAhead(sorted)
	defer stopMeta()
	kept := pkg.Tools[:0:0]
	for i, st := range sorted {
		t := pkg.Tools[i]
		start := len(pkg.Types)
		err := convertTool(ctx, pkg, names, index, t, st, lim, overrides, used, metaErrs[i])
		var ie *Error
		if err == nil || strict || !errors.As(err, &ie) || !ie.Uncallable {
			if err != nil {
				return nil, nil, err
			}
			kept = append(kept, t)
			continue
		}
		// The tool is left out: so are the types its conversion made. Its
		// names stay taken, so that the package names everything else as
		// it will once the server fixes the tool.
		for _, typ := range pkg.Types[start:] {
			delete(index, typ)
		}
		clear(pkg.Types[start:])
		pkg.Types = pkg.Types[:start]
		pkg.Skipped = append(pkg.Skipped, ie)
	}
	pkg.Tools = kept
	unshared = shareTypes(pkg, sharing)
	nameTypes(pkg, names)
	aliasTypes(pkg, sharing)
	pkg.names, pkg.methods = names, toolNames
	return pkg, unshared, nil
}

// convertTool converts the schemas of the tool st into t.Args and t.Result.
// The converter reports what it cannot map first, in its own words; the
// meta-schema, whose verdict arrives on meta, then catches what it let
// through, and unsatisfiable what no value satisfies. An error of a tool no
// call of which can succeed (the meta-schema rejects one of its schemas, or
// one admits no value) is an *Error with Uncallable set, whichever of the
// three reports it.
func convertTool(ctx context.Context, pkg *Package, names *scope, index map[*Type]int, t *Tool, st *snapshot.Tool, lim Limits, overrides map[string]Override, used map[string]bool, meta <-chan error) error {
	convErr := func() error {
		c := newConverter(pkg, names, index, t.Name, st.Input, "/inputSchema")
		c.ctx, c.maxDepth, c.budget.Max = ctx, lim.MaxSchemaDepth, lim.MaxSchemaSteps
		c.overrides, c.usedOverrides = overrides, used
		args, err := c.root(t.GoName, t.GoName+"Args")
		pkg.steps += c.budget.Steps
		if err != nil {
			return err
		}
		t.Args, t.RawChecks = args, c.rawList()
		if st.Output != nil {
			c := newConverter(pkg, names, index, t.Name, st.Output, "/outputSchema")
			c.ctx, c.maxDepth, c.budget.Max = ctx, lim.MaxSchemaDepth, lim.MaxSchemaSteps
			c.overrides, c.usedOverrides = overrides, used
			res, err := c.root(t.GoName+"Result", t.GoName+"Result")
			pkg.steps += c.budget.Steps
			if err != nil {
				return err
			}
			t.Result, t.ResultRawChecks = res, c.rawList()
		}
		return nil
	}()
	var ie *Error
	if convErr != nil && (!errors.As(convErr, &ie) || ie.limit) {
		return convErr
	}
	// uncallable marks the converter's error as the error of a tool that
	// cannot be called, or returns err.
	uncallable := func(err error) error {
		if convErr == nil {
			return err
		}
		e := *ie
		e.Uncallable = true
		return &e
	}
	if metaErr := <-meta; metaErr != nil {
		return uncallable(metaErr)
	}
	for _, s := range []struct {
		doc       *jsontree.Node
		ptr, what string
	}{{st.Input, "/inputSchema", "no arguments are valid"}, {st.Output, "/outputSchema", "no result is valid"}} {
		if s.doc == nil {
			continue
		}
		if at, why := unsatisfiable(s.doc, s.ptr); at != "" {
			return uncallable(&Error{Tool: t.Name, Pointer: at, Msg: why + ", so " + s.what + " and every call would fail", Uncallable: true})
		}
	}
	return convErr
}

// nameTypes gives the named types their final names, then the enum
// constants theirs, which start with the name of their type. During the
// conversion a type's Name is the name it asks for; here every type asking
// for the same name is ranked by the spelling of its schema's last pointer
// token (a $defs name, a property name), then inputs ahead of outputs
// (callers spell the types they build; they mostly reach the ones they read
// through fields), then by how many tools share it, so that which type keeps the name never depends on the order the tools
// or properties come in. A type shared by several tools asks for its name
// without a tool's prefix (see share.go).
func nameTypes(pkg *Package, names *scope) {
	for _, t := range pkg.Types {
		if t.origin == "" {
			continue // a tool's Args or Result type, reserved already
		}
		tok := lastToken(t.Pointer)
		want, weight := t.Name, 1
		if len(t.SharedBy) > 1 {
			want, weight = t.local, len(t.SharedBy)
		}
		// A type callers build (used in an input schema) comes before one
		// they only read, whatever the tool counts.
		tier := 1
		if t.inInput {
			tier = 0
		}
		names.weighedClaim(want, t.origin, spellingRank(tok, Exported(tok, "")), tier, weight, func(n string) { t.Name = n })
	}
	names.resolve()
	for _, t := range pkg.Types {
		origin := boundOrigin(t.origin)
		for _, v := range t.Values {
			names.claim(t.Name+v.suffix, origin+"="+scalarText(v.Value), v.rank, func(n string) { v.GoName = n })
		}
	}
	names.resolve()
}

type converter struct {
	// ctx, when not nil, stops the conversion once done.
	ctx      context.Context
	pkg      *Package
	names    *scope
	index    map[*Type]int
	tool     string
	doc      *jsontree.Node
	rootPtr  string
	draft07  bool
	base     string
	rootName string
	memo     map[string]*Type
	// budget counts conversions and merge steps, against
	// Limits.MaxSchemaSteps and for the package's total.
	budget schema.Budget
	// flat merges allOf parts and $refs with siblings (see mergeInto).
	flat     *schema.Flattener
	building map[string]bool
	recursed map[string]bool
	raw      map[string]bool
	// shared are the types stored in memo.
	shared map[*Type]bool
	// depth is how many conversions are under way; maxDepth bounds it.
	depth, maxDepth int
	// overrides are the property overrides of the build, by OverrideKey;
	// usedOverrides records those applied.
	overrides     map[string]Override
	usedOverrides map[string]bool
	// structs are the names the fields of the structs being converted
	// start with, innermost last; defNames are the names of the $defs
	// entries referenced, by pointer (see ownName).
	structs  []string
	defNames map[string]string
	// owners are the own names of the structs being converted (see
	// ownName), innermost last; "" for a tool's root type.
	owners []string
}

func newConverter(pkg *Package, names *scope, index map[*Type]int, tool string, doc *jsontree.Node, rootPtr string) *converter {
	// A $ref inside an embedded resource (a subschema with a $id of its
	// own) resolves against that resource: StaticRefs makes it a pointer
	// from the root, which ref then follows like any other.
	doc = schema.StaticRefs(doc)
	c := &converter{
		pkg: pkg, names: names, index: index, tool: tool, doc: doc, rootPtr: rootPtr,
		memo: map[string]*Type{}, building: map[string]bool{}, recursed: map[string]bool{}, raw: map[string]bool{}, shared: map[*Type]bool{},
		defNames: map[string]string{},
	}
	c.draft07 = schema.DraftOf(doc) == schema.Draft7
	c.budget.Check = c.checkContext
	return c
}

// fieldName returns Exported(key, "Field"), once per name and build.
func (c *converter) fieldName(key string) string {
	if n, ok := c.pkg.fieldNames[key]; ok {
		return n
	}
	if c.pkg.fieldNames == nil {
		c.pkg.fieldNames = map[string]string{}
	}
	n := Exported(key, "Field")
	c.pkg.fieldNames[key] = n
	return n
}

func (c *converter) errf(ptr, format string, args ...any) error {
	return &Error{Tool: c.tool, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

func (c *converter) needRaw(keyword string) { c.raw[keyword] = true }

func (c *converter) rawList() []string {
	out := make([]string, 0, len(c.raw))
	for k := range c.raw {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// named records t as a named type asking for the name hint; the tool's
// root type gets its name at once, the others get theirs from nameTypes
// once every tool is converted.
func (c *converter) named(t *Type, hint string) *Type {
	t.Name = hint
	if hint == c.rootName && c.rootName != "" {
		c.rootName = ""
	} else {
		t.origin = c.tool + "#" + t.Pointer
		t.tool, t.toolBase = c.tool, c.base
		t.local = c.ownName(t.Pointer, hint)
		t.inInput = c.rootPtr == "/inputSchema"
		if _, def := c.defNames[t.Pointer]; !def && genericNames[t.local] {
			// A generic name says too little on its own: qualify it by
			// the struct it is a field of, or keep it to its tool.
			if n := len(c.owners); n > 0 && c.owners[n-1] != "" {
				t.local = c.owners[n-1] + t.local
			} else {
				t.perTool = true
			}
		}
	}
	c.index[t] = len(c.pkg.Types)
	c.pkg.Types = append(c.pkg.Types, t)
	return t
}

// ownName is the part of the name hint that names the type at ptr itself,
// without the name of the struct it is a field of or the tool's prefix: the
// name of a $defs entry, a property name ("DeviceClass"), a property name
// and "Item" for the items of an array. It is "" when hint does not start
// with the enclosing name.
func (c *converter) ownName(ptr, hint string) string {
	if own, ok := c.defNames[ptr]; ok {
		return own
	}
	enclosing := c.base
	if n := len(c.structs); n > 0 {
		enclosing = c.structs[n-1]
	}
	own, _ := strings.CutPrefix(hint, enclosing)
	return own
}

// root converts the whole schema document, which must become a named type.
func (c *converter) root(base, name string) (*Type, error) {
	c.base, c.rootName = base, name
	t, err := c.conv(c.doc, c.rootPtr, name)
	if err != nil {
		return nil, err
	}
	ok := t.Kind == Struct
	if t.Kind == Union {
		ok = true
		for _, b := range t.Branches {
			if b.Type.Underlying().Kind != Struct {
				ok = false
			}
		}
	}
	if !ok {
		return nil, c.errf(c.rootPtr, "the schema does not describe a JSON object")
	}
	return t, nil
}

// ref converts the target of a $ref found at ptr.
func (c *converter) ref(ref, ptr string) (*Type, error) {
	target, tptr, err := schema.Resolve(c.doc, ref)
	if err == nil && schema.BareCycle(c.doc, target) {
		// Validators refuse every value there: a field of any JSON value,
		// which the tool's schema checks, as for the false schema.
		c.needRaw("$ref cycle")
		return &Type{Kind: Raw, Pointer: strings.TrimSuffix(ptr, "/$ref")}, nil
	}
	visited := map[string]bool{tptr: true}
	for err == nil && isBareRef(target) {
		next := target.Get("$ref").Str
		var nptr string
		target, nptr, err = schema.Resolve(c.doc, next)
		if err == nil && visited[nptr] {
			return nil, c.errf(ptr, "$ref %q leads back to itself through other bare $refs, never to a schema", ref)
		}
		visited[nptr] = true
		tptr = nptr
	}
	if err != nil {
		return nil, c.errf(ptr, "%v", err)
	}
	hint := c.base + Exported(lastToken(tptr), "Def")
	c.defNames[c.rootPtr+tptr] = Exported(lastToken(tptr), "Def")
	if tptr == "" {
		hint = c.rootName
		if hint == "" {
			hint = c.base
		}
	}
	return c.conv(target, c.rootPtr+tptr, hint)
}

// conv converts the schema v at ptr; hint names the type if it needs a
// name. Each pointer is converted once: a $ref to a schema that was already
// converted, or is being converted (recursion), gets the same type.
func (c *converter) conv(v *jsontree.Node, ptr, hint string) (*Type, error) {
	if t, ok := c.memo[ptr]; ok {
		if c.building[ptr] {
			c.recursed[ptr] = true
		}
		return t, nil
	}
	if c.depth >= c.maxDepth && c.maxDepth > 0 {
		return nil, c.limitf(ptr, "the schema nests more than %d levels", c.maxDepth)
	}
	if err := c.stopped(ptr); err != nil {
		return nil, err
	}
	c.depth++
	defer func() { c.depth-- }()
	placeholder := &Type{}
	c.shared[placeholder] = true
	c.memo[ptr] = placeholder
	c.building[ptr] = true
	t, err := c.convNode(v, ptr, hint)
	if t == placeholder {
		return nil, c.errf(ptr, "the schema refers to itself without describing a value")
	}
	delete(c.building, ptr)
	if err != nil {
		return nil, err
	}
	if c.shared[t] {
		// A bare $ref: use the referenced type itself, which may still be
		// under construction.
		delete(c.shared, placeholder)
		c.memo[ptr] = t
		return t, nil
	}
	*placeholder = *t
	if i, ok := c.index[t]; ok && t.IsNamed() {
		c.pkg.Types[i] = placeholder
		c.index[placeholder] = i
		delete(c.index, t)
	}
	if c.recursed[ptr] {
		placeholder.Recursive = true
		if !placeholder.IsNamed() {
			switch placeholder.Kind {
			case Slice, Map:
				c.named(placeholder, hint)
			default:
				return nil, c.errf(ptr, "a %s cannot contain itself", kindWord(placeholder.Kind))
			}
		}
	}
	return placeholder, nil
}

func lastToken(ptr string) string {
	i := strings.LastIndexByte(ptr, '/')
	return strings.ReplaceAll(strings.ReplaceAll(ptr[i+1:], "~1", "/"), "~0", "~")
}

func kindWord(k Kind) string {
	return [...]string{"raw value", "boolean", "integer", "number", "string", "struct", "slice", "map", "enum", "const", "union", "nullable value"}[k]
}

// handled are the assertion keywords the IR maps to Go types and checks.
var handled = map[string]bool{
	"type": true, "enum": true, "const": true, "properties": true, "required": true,
	"additionalProperties": true, "patternProperties": true, "items": true, "prefixItems": true,
	"minItems": true, "maxItems": true, "minLength": true, "maxLength": true, "pattern": true,
	"format": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "multipleOf": true, "allOf": true, "anyOf": true, "oneOf": true,
	"$ref": true, "additionalItems": true, patternsKey: true,
}

// rawOnly are the assertion keywords only the tool's own schema checks.
var rawOnly = map[string]bool{
	"not": true, "if": true, "then": true, "else": true, "dependentRequired": true,
	"dependentSchemas": true, "dependencies": true, "propertyNames": true,
	"unevaluatedProperties": true, "unevaluatedItems": true, "contains": true,
	"minContains": true, "maxContains": true, "uniqueItems": true, "minProperties": true,
	"maxProperties": true, "$dynamicRef": true, "$recursiveRef": true,
}

// patternsKey holds the extra patterns of merged allOf parts.
const patternsKey = "\x00patterns"

// isAssertion reports whether a keyword constrains values; every other
// keyword is an annotation, which JSON Schema validators ignore.
func isAssertion(k string) bool { return handled[k] || rawOnly[k] }

func description(v *jsontree.Node) string {
	if d := v.Get("description"); d != nil && d.Kind == jsontree.String && d.Str != "" {
		return d.Str
	}
	if d := v.Get("title"); d != nil && d.Kind == jsontree.String {
		return d.Str
	}
	return ""
}

// convNode converts v without looking at what was converted before.
func (c *converter) convNode(v *jsontree.Node, ptr, hint string) (*Type, error) {
	if v.Kind == jsontree.Bool {
		if !v.Bool {
			c.needRaw("false schema")
		}
		return &Type{Kind: Raw, Pointer: ptr}, nil
	}
	if v.Kind != jsontree.Object {
		return nil, c.errf(ptr, "schema is a JSON %s, want an object or a boolean", v.Kind)
	}
	for _, k := range v.Keys() {
		if rawOnly[k] && k != "minProperties" && k != "maxProperties" {
			if k == "uniqueItems" {
				if b := v.Get(k); b.Kind == jsontree.Bool && !b.Bool {
					continue
				}
			}
			c.needRaw(k)
		}
	}
	t, err := c.conv1(v, ptr, hint)
	if err != nil {
		return nil, err
	}
	if t.Doc == "" && !t.IsNamed() {
		t.Doc = description(v)
	}
	return t, nil
}

func (c *converter) conv1(v *jsontree.Node, ptr, hint string) (*Type, error) {
	if ref := v.Get("$ref"); ref != nil {
		if ref.Kind != jsontree.String {
			return nil, c.errf(ptr+"/$ref", "$ref is a JSON %s, want a string", ref.Kind)
		}
		if c.draft07 || isBareRef(v) {
			return c.ref(ref.Str, ptr+"/$ref")
		}
		return c.allOf(v, ptr, hint)
	}
	if v.Has("allOf") {
		return c.allOf(v, ptr, hint)
	}
	if v.Has("anyOf") || v.Has("oneOf") {
		return c.union(v, ptr, hint)
	}
	if v.Has("enum") {
		return c.enum(v, ptr, hint)
	}
	if v.Has("const") {
		return c.constant(v, ptr, hint)
	}
	typ := v.Get("type")
	if typ == nil {
		if ptr == c.rootPtr {
			return c.object(v, ptr, hint)
		}
		for _, k := range v.Keys() {
			if handled[k] || k == "minProperties" || k == "maxProperties" {
				c.needRaw("keywords without type")
				break
			}
		}
		return &Type{Kind: Raw, Pointer: ptr, Doc: description(v)}, nil
	}
	switch typ.Kind {
	case jsontree.String:
		return c.single(typ.Str, v, ptr, hint)
	case jsontree.Array:
		for i, it := range typ.Items {
			if it.Kind != jsontree.String {
				return nil, c.errf(ptr+"/type/"+strconv.Itoa(i), "type is a JSON %s, want a string", it.Kind)
			}
		}
		types, nullable := schema.SplitNull(schema.Types(typ))
		var t *Type
		var err error
		switch len(types) {
		case 0:
			c.needRaw("type null")
			return &Type{Kind: Raw, Pointer: ptr}, nil
		case 1:
			t, err = c.single(types[0], v, ptr, hint)
		default:
			branches := &jsontree.Node{Kind: jsontree.Array}
			for _, name := range types {
				b := v.Clone()
				b.Set("type", &jsontree.Node{Kind: jsontree.String, Str: name})
				b.Delete("description")
				branches.Items = append(branches.Items, b)
			}
			u := &jsontree.Node{Kind: jsontree.Object}
			u.Set("anyOf", branches)
			if d := v.Get("description"); d != nil {
				u.Set("description", d)
			}
			t, err = c.union(u, ptr, hint)
		}
		if err != nil || !nullable {
			return t, err
		}
		return &Type{Kind: Nullable, Elem: t, Pointer: ptr}, nil
	default:
		return nil, c.errf(ptr+"/type", "type is a JSON %s, want a string or an array", typ.Kind)
	}
}

func (c *converter) single(typ string, v *jsontree.Node, ptr, hint string) (*Type, error) {
	t := &Type{Pointer: ptr, Default: v.Get("default")}
	var err error
	switch typ {
	case "string":
		t.Kind = String
		if t.MinLength, err = c.count(v, ptr, "minLength"); err != nil {
			return nil, err
		}
		if t.MaxLength, err = c.count(v, ptr, "maxLength"); err != nil {
			return nil, err
		}
		if err := c.patterns(v, ptr, &t.Patterns); err != nil {
			return nil, err
		}
		if f := v.Get("format"); f != nil && f.Kind == jsontree.String {
			t.Format = f.Str
		}
	case "integer", "number":
		t.Kind = Int
		if typ == "number" {
			t.Kind = Number
		}
		if err := c.bounds(v, ptr, t); err != nil {
			return nil, err
		}
	case "boolean":
		t.Kind = Bool
	case "null":
		c.needRaw("type null")
		t.Kind = Raw
	case "array":
		return c.array(v, ptr, hint)
	case "object":
		return c.object(v, ptr, hint)
	default:
		return nil, c.errf(ptr+"/type", "unknown type %q", typ)
	}
	return t, nil
}

// count returns the count the keyword key of v sets (minLength, maxItems
// and the like), nil when it sets none. A count beyond what a Go int holds
// on every platform (math.MaxInt32), such as 4294967295, the largest
// uint32, is left to the tool's own schema.
func (c *converter) count(v *jsontree.Node, ptr, key string) (*int64, error) {
	n := v.Get(key)
	if n == nil {
		return nil, nil
	}
	f, err := strconv.ParseFloat(n.Str, 64)
	if n.Kind != jsontree.Number || err != nil || f < 0 || f != math.Trunc(f) {
		return nil, c.errf(ptr+"/"+key, "%s is %s, want a non-negative integer", key, n)
	}
	if f > math.MaxInt32 {
		c.needRaw(key)
		return nil, nil
	}
	i := int64(f)
	return &i, nil
}

func (c *converter) patterns(v *jsontree.Node, ptr string, dst *[]string) error {
	var list []*jsontree.Node
	if p := v.Get("pattern"); p != nil {
		list = append(list, p)
	}
	if ps := v.Get(patternsKey); ps != nil {
		list = append(list, ps.Items...)
	}
	for _, p := range list {
		if p.Kind != jsontree.String {
			return c.errf(ptr+"/pattern", "pattern is a JSON %s, want a string", p.Kind)
		}
		if err := c.compilePattern(p.Str); err != nil {
			return c.errf(ptr+"/pattern", "%v", err)
		}
		if !slices.Contains(*dst, p.Str) {
			*dst = append(*dst, p.Str)
		}
	}
	return nil
}

// compilePattern reports whether p compiles as the generated code compiles
// it, compiling each distinct pattern of the build once.
func (c *converter) compilePattern(p string) error {
	if err, ok := c.pkg.patterns[p]; ok {
		return err
	}
	_, err := runtime.CompilePattern(p)
	if c.pkg.patterns == nil {
		c.pkg.patterns = map[string]error{}
	}
	c.pkg.patterns[p] = err
	return err
}

func (c *converter) bounds(v *jsontree.Node, ptr string, t *Type) error {
	num := func(key string) (*jsontree.Node, error) {
		n := v.Get(key)
		if n == nil || n.Kind == jsontree.Number || (n.Kind == jsontree.Bool && strings.HasPrefix(key, "exclusive")) {
			return n, nil
		}
		return nil, c.errf(ptr+"/"+key, "%s is a JSON %s, want a number", key, n.Kind)
	}
	pick := func(inclKey, exclKey string, lower bool) (*Bound, error) {
		incl, err := num(inclKey)
		if err != nil {
			return nil, err
		}
		excl, err := num(exclKey)
		if err != nil {
			return nil, err
		}
		var b *Bound
		if incl != nil {
			b = &Bound{Lit: incl.Str}
			if excl != nil && excl.Kind == jsontree.Bool {
				b.Exclusive = excl.Bool // draft-04
			}
		}
		if excl != nil && excl.Kind == jsontree.Number {
			e := &Bound{Lit: excl.Str, Exclusive: true}
			if b == nil {
				return e, nil
			}
			cmp, _ := jsontree.CompareNumbers(e.Lit, b.Lit)
			if (lower && cmp >= 0) || (!lower && cmp <= 0) {
				return e, nil
			}
		}
		return b, nil
	}
	var err error
	if t.Minimum, err = pick("minimum", "exclusiveMinimum", true); err != nil {
		return err
	}
	if t.Maximum, err = pick("maximum", "exclusiveMaximum", false); err != nil {
		return err
	}
	if m := v.Get("multipleOf"); m != nil {
		f, err := strconv.ParseFloat(m.Str, 64)
		if m.Kind != jsontree.Number || err != nil || f <= 0 {
			return c.errf(ptr+"/multipleOf", "multipleOf is %s, want a positive number", m)
		}
		if n, ok := jsontree.Int64(m.Str); t.Kind == Int && ok {
			t.MultipleOf = strconv.FormatInt(n, 10)
		} else {
			c.needRaw("multipleOf")
		}
	}
	return nil
}

func (c *converter) array(v *jsontree.Node, ptr, hint string) (*Type, error) {
	t := &Type{Kind: Slice, Pointer: ptr, Default: v.Get("default")}
	var err error
	if t.MinItems, err = c.count(v, ptr, "minItems"); err != nil {
		return nil, err
	}
	if t.MaxItems, err = c.count(v, ptr, "maxItems"); err != nil {
		return nil, err
	}
	items := v.Get("items")
	switch {
	case v.Has("prefixItems"):
		c.needRaw("prefixItems")
		t.Elem = &Type{Kind: Raw, Pointer: ptr + "/prefixItems"}
	case items == nil:
		t.Elem = &Type{Kind: Raw, Pointer: ptr}
	case items.Kind == jsontree.Array:
		c.needRaw("items array")
		t.Elem = &Type{Kind: Raw, Pointer: ptr + "/items"}
	default:
		elemHint := hint + "Item"
		if items.Has("enum") || items.Has("const") {
			elemHint = hint
		}
		if t.Elem, err = c.conv(items, ptr+"/items", elemHint); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (c *converter) object(v *jsontree.Node, ptr, hint string) (*Type, error) {
	props := v.Get("properties")
	if props != nil && props.Kind != jsontree.Object {
		return nil, c.errf(ptr+"/properties", "properties is a JSON %s, want an object", props.Kind)
	}
	addl := v.Get("additionalProperties")
	pattern := v.Get("patternProperties")
	if pattern != nil && (pattern.Kind != jsontree.Object || len(pattern.Members) == 0) {
		pattern = nil
	}
	var required []string
	if r := v.Get("required"); r != nil {
		if r.Kind != jsontree.Array {
			return nil, c.errf(ptr+"/required", "required is a JSON %s, want an array", r.Kind)
		}
		for i, it := range r.Items {
			if it.Kind != jsontree.String {
				return nil, c.errf(ptr+"/required/"+strconv.Itoa(i), "required holds a JSON %s, want strings", it.Kind)
			}
			required = append(required, it.Str)
		}
	}
	isRoot := ptr == c.rootPtr
	if !isRoot && (props == nil || len(props.Members) == 0) && (addl == nil || addl.Kind != jsontree.Bool || addl.Bool || pattern != nil) {
		// A map.
		t := &Type{Kind: Map, Pointer: ptr, Default: v.Get("default")}
		var err error
		if len(required) > 0 {
			c.needRaw("required")
		}
		switch {
		case pattern != nil && len(pattern.Members) == 1 && addl != nil && addl.Kind == jsontree.Bool && !addl.Bool:
			m := pattern.Members[0]
			if err := c.compilePattern(m.Key); err != nil {
				return nil, c.errf(ptr+"/patternProperties", "%v", err)
			}
			t.KeyPatterns = []string{m.Key}
			t.Elem, err = c.conv(m.Value, ptr+"/patternProperties/"+jsontree.EscapeToken(m.Key), hint+"Value")
		case pattern != nil:
			c.needRaw("patternProperties")
			t.Elem = &Type{Kind: Raw, Pointer: ptr}
		case addl != nil && !isTrivial(addl):
			t.Elem, err = c.conv(addl, ptr+"/additionalProperties", hint+"Value")
		default:
			t.Elem = &Type{Kind: Raw, Pointer: ptr}
		}
		if err != nil {
			return nil, err
		}
		if t.MinEntries, err = c.count(v, ptr, "minProperties"); err != nil {
			return nil, err
		}
		if t.MaxEntries, err = c.count(v, ptr, "maxProperties"); err != nil {
			return nil, err
		}
		return t, nil
	}
	t := c.named(&Type{Kind: Struct, Pointer: ptr, Doc: description(v), Default: v.Get("default")}, hint)
	base := t.Name
	if isRoot {
		base = c.base
	}
	owner := t.local
	if isRoot {
		owner = ""
	}
	c.structs, c.owners = append(c.structs, base), append(c.owners, owner)
	defer func() { c.structs, c.owners = c.structs[:len(c.structs)-1], c.owners[:len(c.owners)-1] }()
	fieldNames := newScope(reservedFields...)
	if pattern != nil || addl != nil && !isTrivial(addl) && !(addl.Kind == jsontree.Bool) {
		fieldNames.reserve("Extra")
	}
	if pattern != nil {
		c.needRaw("patternProperties")
	}
	for _, k := range []string{"minProperties", "maxProperties"} {
		if v.Has(k) {
			c.needRaw(k)
		}
	}
	if props != nil {
		// Names an override gives are fixed before the others are handed
		// out. One that another property, with no name of its own, would
		// have had is an error: that property's field would be renamed.
		overridden := map[string]string{} // Go name → override key
		for _, m := range props.Members {
			fptr := ptr + "/properties/" + jsontree.EscapeToken(m.Key)
			if o, ok := c.override(fptr); ok && o.GoName != "" {
				key := OverrideKey(c.tool, fptr)
				if fieldNames.reserved[o.GoName] {
					return nil, &OverrideError{Key: key, Msg: fmt.Sprintf("Go name %s is taken by another field or a method of %s", o.GoName, t.Name)}
				}
				fieldNames.reserve(o.GoName)
				overridden[o.GoName] = key
			}
		}
		for _, m := range props.Members {
			fptr := ptr + "/properties/" + jsontree.EscapeToken(m.Key)
			if o, ok := c.override(fptr); ok && o.GoName != "" {
				continue
			}
			if key, taken := overridden[c.fieldName(m.Key)]; taken {
				return nil, &OverrideError{Key: key, Msg: fmt.Sprintf("Go name %s is the field name of property %s of %s: choose another, or give %s a go_name too", c.fieldName(m.Key), m.Key, t.Name, m.Key)}
			}
		}
	}
	seen := map[string]bool{}
	if props != nil {
		for _, m := range props.Members {
			if seen[m.Key] {
				continue
			}
			seen[m.Key] = true
			fptr := ptr + "/properties/" + jsontree.EscapeToken(m.Key)
			if !validTagName(m.Key) {
				return nil, c.errf(fptr, "property name %q cannot be named in a Go struct tag: encoding/json accepts only letters, digits, spaces and !#$%%&()*+-./:;<=>?@[]^_{|}~", m.Key)
			}
			ft, err := c.conv(m.Value, fptr, base+c.fieldName(m.Key))
			if err != nil {
				return nil, err
			}
			doc := ""
			if m.Value.Kind == jsontree.Object {
				doc = description(m.Value)
			}
			if doc == "" {
				doc = ft.Doc
			}
			f := &Field{
				JSONName: m.Key,
				Doc:      doc,
				Type:     ft,
				Required: slices.Contains(required, m.Key),
			}
			o, _ := c.override(fptr)
			if o.GoType != "" {
				if f.Type, err = c.withGoType(ft, o.GoType, fptr); err != nil {
					return nil, err
				}
			}
			if o.GoName != "" {
				f.GoName = o.GoName
			} else {
				goName := c.fieldName(m.Key)
				fieldNames.claim(goName, m.Key, spellingRank(m.Key, goName), func(n string) { f.GoName = n })
			}
			t.Fields = append(t.Fields, f)
		}
	}
	if err := c.undescribedRequired(t, ptr, required, seen, addl, pattern, fieldNames); err != nil {
		return nil, err
	}
	fieldNames.resolve()
	switch {
	case pattern != nil:
		// The members patternProperties describes are no fields: Extra
		// keeps them, and any other member, as JSON for the tool's own
		// schema to check (patternProperties is a raw check). Closed, the
		// struct would refuse them; open, it would drop them unchecked.
		t.Extra = &Type{Kind: Raw, Pointer: ptr}
	case addl == nil:
	case addl.Kind == jsontree.Bool:
		t.Closed = !addl.Bool
	case !isTrivial(addl):
		et, err := c.conv(addl, ptr+"/additionalProperties", base+"Extra")
		if err != nil {
			return nil, err
		}
		t.Extra = et
	}
	return t, nil
}

// undescribedRequired gives t a field for each property required names
// but properties does not describe: a required field of unknown type
// (json.RawMessage), which the tool's own schema checks, as it may hold
// additionalProperties or patternProperties constraints. Without such a
// field the generated struct could never carry the property, and every
// call would fail. When additionalProperties is false and no
// patternProperties could admit the property, no value satisfies the
// schema at all, and it is refused.
func (c *converter) undescribedRequired(t *Type, ptr string, required []string, seen map[string]bool, addl, pattern *jsontree.Node, fieldNames *scope) error {
	for i, r := range required {
		if seen[r] {
			continue
		}
		seen[r] = true
		rptr := ptr + "/required/" + strconv.Itoa(i)
		if addl != nil && addl.Kind == jsontree.Bool && !addl.Bool && pattern == nil {
			return c.errf(rptr, "required names %q, which properties does not describe and additionalProperties: false forbids, so no value satisfies the schema", r)
		}
		if !validTagName(r) {
			return c.errf(rptr, "required names %q, which properties does not describe and a Go struct tag cannot name", r)
		}
		c.needRaw("required")
		f := &Field{JSONName: r, Doc: "The schema requires this property without describing it.", Type: &Type{Kind: Raw, Pointer: rptr}, Required: true}
		goName := Exported(r, "Field")
		fieldNames.claim(goName, r, spellingRank(r, goName), func(n string) { f.GoName = n })
		t.Fields = append(t.Fields, f)
	}
	return nil
}

// isTrivial reports a schema that accepts every value: true or {} (annotations
// aside).
func isTrivial(v *jsontree.Node) bool {
	if v.Kind == jsontree.Bool {
		return v.Bool
	}
	if v.Kind != jsontree.Object {
		return false
	}
	for _, k := range v.Keys() {
		if isAssertion(k) {
			return false
		}
	}
	return true
}

// isBareRef reports a $ref whose siblings are annotations only.
func isBareRef(v *jsontree.Node) bool {
	if v.Kind != jsontree.Object || v.Get("$ref") == nil {
		return false
	}
	for _, k := range v.Keys() {
		if k != "$ref" && isAssertion(k) {
			return false
		}
	}
	return true
}

// validTagName reports whether encoding/json accepts name in a struct tag;
// it silently uses the Go field name otherwise.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", r) {
			return false
		}
	}
	return true
}

// checkMetaAhead checks the tools' schemas against their meta-schemas in a
// goroutine of its own, while the converter works through the same tools,
// and delivers each tool's verdict on its channel, in tool order. stop ends
// the checks early.
func checkMetaAhead(tools []*snapshot.Tool) (verdicts []chan error, stop func()) {
	verdicts = make([]chan error, len(tools))
	for i := range verdicts {
		verdicts[i] = make(chan error, 1)
	}
	done := make(chan struct{})
	go func() {
		meta := newMetaChecker()
		for i, st := range tools {
			select {
			case <-done:
				return
			default:
			}
			err := meta.check(st.Name, st.Input, "/inputSchema")
			if err == nil && st.Output != nil {
				err = meta.check(st.Name, st.Output, "/outputSchema")
			}
			verdicts[i] <- err
		}
	}()
	return verdicts, func() { close(done) }
}
