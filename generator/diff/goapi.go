package diff

import (
	"github.com/mcpgen/mcpgen/internal/schema"

	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// The schema rules set the GO_API marker from what each change does to the
// shape of a value. refineGoAPI then checks the markers against the package
// the generator would emit: it builds the generator's IR for both lists and
// compares every identifier callers can use (methods, types, fields,
// constants) with its Go type. An identifier that disappears or changes type
// marks the change at its schema location, or becomes a change of its own
// when no schema change explains it (a name shifted by a collision, say); a
// tool whose identifiers are all unchanged loses its markers. When either
// list cannot be built into the IR, the schema rules' markers stand.

// apiLoc is where an identifier comes from in a tool.
type apiLoc struct {
	tool, section, ptr string
}

// apiItem is one identifier of the generated package and its Go type.
// loc is where the first tool, in name order, uses it; others are the uses
// by the other tools, for the identifiers of a type several tools share.
type apiItem struct {
	sig    string
	loc    apiLoc
	others []apiLoc
}

// surface lists the identifiers of a generated package.
type surface map[string]apiItem

func refineGoAPI(build ir.Options, oldTools, newTools []runtime.Tool, changes []Change, walkers map[apiLoc]*walker) ([]Change, error) {
	oldAPI, ok, err := buildSurface(build, oldTools)
	if err != nil || !ok {
		return changes, err
	}
	newAPI, ok, err := buildSurface(build, newTools)
	if err != nil || !ok {
		return changes, err
	}
	// The identifiers that disappear or change type, grouped by location
	// (the new one when the identifier is still there).
	type group struct {
		loc, alt      apiLoc // alt is the old location, tried second
		others        []apiLoc
		ids           []string
		gone, changed []string
		old, new      []string
	}
	var groups []*group
	byLoc := map[apiLoc]*group{}
	broken := map[string]bool{} // tools with a break
	for _, id := range sortedIDs(oldAPI) {
		o := oldAPI[id]
		n, found := newAPI[id]
		if found && n.sig == o.sig {
			continue
		}
		loc := o.loc
		if found {
			loc = n.loc
		}
		g := byLoc[loc]
		if g == nil {
			g = &group{loc: loc, alt: o.loc}
			byLoc[loc] = g
			groups = append(groups, g)
		}
		g.ids = append(g.ids, id)
		g.old = append(g.old, id+" "+o.sig)
		if found {
			g.new = append(g.new, id+" "+n.sig)
			g.changed = append(g.changed, id)
		} else {
			g.gone = append(g.gone, id)
		}
		broken[o.loc.tool] = true
		// A shared type breaks every tool that uses it.
		for _, l := range o.others {
			broken[l.tool] = true
			if !slices.Contains(g.others, l) {
				g.others = append(g.others, l)
			}
		}
	}

	for i := range changes {
		if !broken[changes[i].Tool] {
			changes[i].GoAPI = false
		}
	}
	defer func() {
		for i := range changes {
			changes[i].composeWhy()
		}
	}()
	for _, g := range groups {
		// A shared definition's changes are reported where it is
		// defined, not where the generator first met it.
		if w := walkers[apiLoc{tool: g.loc.tool, section: g.loc.section}]; w != nil {
			g.loc.ptr = w.defPointer(w.new, g.loc.ptr)
		}
		if w := walkers[apiLoc{tool: g.alt.tool, section: g.alt.section}]; w != nil {
			g.alt.ptr = w.defPointer(w.old, g.alt.ptr)
		}
		why := identifiersWhy(g.gone, g.changed)
		mark := func(i int) {
			c := &changes[i]
			switch {
			case !c.GoAPI:
				c.GoAPI = true
				c.goWhy = why
				if c.baseWhy == "" {
					c.Why += " " + why
				}
			case c.baseWhy != "":
				c.goWhy = addAffected(c.goWhy, g.ids)
			}
		}
		// The other tools that share the identifiers keep the marker on
		// the changes that explain them there.
		for _, l := range g.others {
			if w := walkers[apiLoc{tool: l.tool, section: l.section}]; w != nil {
				l.ptr = w.defPointer(w.old, l.ptr)
			}
			if i := explains(changes, l); i >= 0 && changes[i].Tool != g.loc.tool {
				mark(i)
			}
		}
		i := explains(changes, g.loc)
		if i < 0 && g.alt != g.loc {
			i = explains(changes, g.alt)
		}
		if i >= 0 {
			mark(i)
			continue
		}
		if len(g.others) > 0 {
			var tools []string
			for _, l := range g.others {
				tools = append(tools, l.tool)
			}
			why += fmt.Sprintf(" The identifiers belonged to a type this tool shared with %s: a change there, or a tool added or removed, gave the type another name.", strings.Join(tools, ", "))
		}
		changes = insertByTool(changes, Change{
			Tool: g.loc.tool, Schema: g.loc.section, Pointer: g.loc.ptr,
			Severity: Info, GoAPI: true, Rule: GoTypeChanged,
			Summary: "generated Go API changes: " + strings.Join(g.ids, ", "),
			Old:     strings.Join(g.old, "; "),
			New:     strings.Join(g.new, "; "),
			Why:     "The wire format is unchanged, but the generated Go code is not. " + why,
		})
	}
	return changes, nil
}

// addAffected appends ids to the "Affected: ..." sentence that ends why,
// or starts that sentence when why has none.
func addAffected(why string, ids []string) string {
	list := strings.Join(ids, ", ")
	if i := strings.LastIndex(why, "Affected: "); i >= 0 && strings.HasSuffix(why, ".") && !strings.Contains(why[i:], ". ") {
		return why[:len(why)-1] + ", " + list + "."
	}
	return strings.TrimSpace(why + " Affected: " + list + ".")
}

// identifiersWhy explains identifiers of the generated package that
// disappear and ones that change type.
func identifiersWhy(gone, changed []string) string {
	var parts []string
	if len(gone) > 0 {
		parts = append(parts, fmt.Sprintf("Generated identifiers disappear or are renamed (%s), so code that uses them no longer compiles.", strings.Join(gone, ", ")))
	}
	if len(changed) > 0 {
		parts = append(parts, fmt.Sprintf("Generated identifiers change their type or the JSON property they carry (%s), so code that uses them may no longer compile or may send a different argument.", strings.Join(changed, ", ")))
	}
	return strings.Join(parts, " ")
}

// explains returns the index of the change that best accounts for the
// identifiers at loc: one at loc itself or at one of its keywords, then one
// at a parent of loc (a removed property, tool or schema), then one inside
// loc, and among equals one that already carries the marker; -1 when none
// does.
func explains(changes []Change, loc apiLoc) int {
	best, bestRank := -1, 4
	for i, c := range changes {
		if c.Tool != loc.tool {
			continue
		}
		rank := 4
		switch {
		case c.Schema == SectionTool && c.Pointer == "" && (c.Rule == ToolRemoved || c.Rule == ToolRenamed):
			rank = 1
		case loc.section == SectionTool && (c.Rule == OutputSchemaAdded || c.Rule == OutputSchemaRemoved):
			// The method's result type follows the output schema.
			rank = 0
		case c.Schema != loc.section:
		case c.Pointer == loc.ptr:
			rank = 0
		case isKeywordOf(c.Pointer, loc.ptr):
			rank = 0
		case strings.HasPrefix(loc.ptr, c.Pointer+"/") || (c.Pointer == "" && c.Rule == OutputSchemaRemoved):
			rank = 1
		case strings.HasPrefix(c.Pointer, loc.ptr+"/"):
			rank = 2
		}
		// Among changes at one place, the one the schema rules marked
		// already explains the identifiers: marking another would count
		// one change of the Go API twice.
		if rank < bestRank || best >= 0 && rank == bestRank && c.GoAPI && !changes[best].GoAPI {
			best, bestRank = i, rank
		}
	}
	return best
}

// isKeywordOf reports whether ptr is a keyword of the schema at parent, such
// as parent+"/type".
func isKeywordOf(ptr, parent string) bool {
	rest, ok := strings.CutPrefix(ptr, parent+"/")
	return ok && !strings.Contains(rest, "/") && (handledKeys[rest] || contains(limitKeys, rest))
}

// insertByTool inserts c after the last change of its tool, or before the
// first change of a later tool.
func insertByTool(changes []Change, c Change) []Change {
	at := len(changes)
	for i := len(changes) - 1; i >= 0; i-- {
		if changes[i].Tool == c.Tool {
			at = i + 1
			break
		}
		if changes[i].Tool < c.Tool {
			at = i + 1
			break
		}
		at = i
	}
	changes = append(changes, Change{})
	copy(changes[at+1:], changes[at:])
	changes[at] = c
	return changes
}

func sortedIDs(s surface) []string {
	ids := make([]string, 0, len(s))
	for id := range s {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// buildSurface builds the IR of tools with the options generate uses and
// lists its identifiers; ok is false when the generator cannot build it.
// The error is a *StoppedError once the build's context is done.
func buildSurface(build ir.Options, tools []runtime.Tool) (surface, bool, error) {
	pkg, ok, err := buildPackage(build, tools)
	if err != nil || !ok {
		return nil, false, err
	}
	s := surface{}
	roots := map[*ir.Type]bool{}
	for _, t := range pkg.Tools {
		roots[t.Args] = true
		roots[t.Result] = true
	}
	needs := map[*ir.Type]bool{}
	for _, t := range pkg.Tools {
		// The tool a method calls is part of its meaning: a method that
		// comes to call another tool (one spelled exactly as its name,
		// added) is as much a change as one that disappears.
		sig := t.Args.Name
		if t.Result != nil {
			sig += ", " + t.Result.Name
		}
		sig += " calling " + strconv.Quote(t.Name)
		s.add("method "+t.GoName, sig, apiLoc{tool: t.Name})
		w := &surfaceWalker{s: s, seen: map[*ir.Type]bool{}, roots: roots, needs: needs}
		w.walk(t.Args, apiLoc{tool: t.Name, section: SectionInput})
		if t.Result != nil {
			w.walk(t.Result, apiLoc{tool: t.Name, section: SectionOutput})
		}
	}
	return s, true, nil
}

// buildPackage builds the IR of tools with the options generate uses; ok
// is false when the generator cannot build it. The error is a
// *StoppedError once the build's context is done.
func buildPackage(build ir.Options, tools []runtime.Tool) (*ir.Package, bool, error) {
	st := make([]snapshot.Tool, len(tools))
	for i := range tools {
		t := &tools[i]
		st[i] = snapshot.Tool{Name: t.Name, Title: t.Title, Description: t.Description}
		in := bytes.TrimSpace(t.InputSchema)
		if len(in) == 0 {
			in = []byte(`{"type":"object"}`)
		}
		v, err := jsontree.Parse(in)
		if err != nil || v.Kind != jsontree.Object || refCycle(in) {
			return nil, false, nil
		}
		st[i].Input = v
		if out := bytes.TrimSpace(t.OutputSchema); len(out) > 0 && string(out) != "null" {
			v, err := jsontree.Parse(out)
			if err != nil || v.Kind != jsontree.Object || refCycle(out) {
				return nil, false, nil
			}
			st[i].Output = v
		}
	}
	pkg, err := ir.BuildOptions(st, build)
	var se *ir.StoppedError
	if errors.As(err, &se) {
		return nil, false, &StoppedError{Tool: se.Tool, Phase: "checking the generated Go API at " + se.Pointer, Err: se.Err}
	}
	if err != nil {
		return nil, false, nil
	}
	return pkg, true, nil
}

// add records an identifier at its first location, and the other tools
// that use it.
func (s surface) add(id, sig string, loc apiLoc) {
	it, ok := s[id]
	if !ok {
		s[id] = apiItem{sig: sig, loc: loc}
		return
	}
	if loc.tool == it.loc.tool || slices.ContainsFunc(it.others, func(l apiLoc) bool { return l.tool == loc.tool }) {
		return
	}
	it.others = append(it.others, loc)
	s[id] = it
}

type surfaceWalker struct {
	s    surface
	seen map[*ir.Type]bool
	// roots are the tools' Args and Result types, which always have a
	// Validate method; needs memoizes ir.NeedsValidate.
	roots, needs map[*ir.Type]bool
}

func (w *surfaceWalker) walk(t *ir.Type, loc apiLoc) {
	if t == nil || w.seen[t] {
		return
	}
	if t.IsNamed() {
		w.seen[t] = true
		sig := kindName(t)
		if t.AliasOf != nil {
			// An alias is the type it aliases: one that splits from it is
			// another Go type, which code assigning one to the other sees.
			sig = "= " + t.AliasOf.Name
		}
		w.s.add("type "+t.Name, sig, loc)
		if t.Kind == ir.Struct && !w.roots[t] && ir.NeedsValidate(t, w.needs) {
			// A nested struct with nothing to check has no Validate.
			w.s.add("method "+t.Name+".Validate", "func() error", loc)
		}
	}
	at := func(tokens ...string) apiLoc {
		l := loc
		l.ptr = childPtr(loc.ptr, tokens...)
		return l
	}
	switch t.Kind {
	case ir.Nullable:
		w.walk(t.Elem, loc)
	case ir.Slice:
		w.walk(t.Elem, at("items"))
	case ir.Map:
		w.walk(t.Elem, at("additionalProperties"))
	case ir.Struct:
		for _, f := range t.Fields {
			floc := at("properties", f.JSONName)
			w.s.add("field "+t.Name+"."+f.GoName, fmt.Sprintf("%s `json:%q`", fieldExpr(f), f.JSONName), floc)
			w.walk(f.Type, floc)
		}
		if t.Extra != nil {
			w.s.add("field "+t.Name+".Extra", "map[string]"+typeExpr(t.Extra), at("additionalProperties"))
			w.walk(t.Extra, at("additionalProperties"))
		}
	case ir.Enum:
		// A constant's value is part of its meaning: one that comes to
		// stand for another value (spelled exactly as its name, added)
		// sends that value from code that still compiles.
		for _, v := range t.Values {
			w.s.add("constant "+v.GoName, t.Name+" = "+jsontree.Canonical(v.Value), loc)
		}
	case ir.Union:
		kw := "anyOf"
		if t.OneOf {
			kw = "oneOf"
		}
		// A union may come from a type list, which has no branch
		// pointers: its branch fields are located at the union.
		for i, b := range t.Branches {
			w.s.add("field "+t.Name+"."+b.GoName, "*"+typeExpr(b.Type), loc)
			w.walk(b.Type, at(kw, fmt.Sprint(i)))
		}
	}
}

var kindNames = map[ir.Kind]string{
	ir.Raw: "json.RawMessage", ir.Bool: "bool", ir.Int: "int64", ir.Number: "float64",
	ir.String: "string", ir.Struct: "struct", ir.Slice: "slice", ir.Map: "map",
	ir.Enum: "enum", ir.Const: "constant type", ir.Union: "union", ir.Nullable: "nullable",
}

func kindName(t *ir.Type) string {
	if t.Kind == ir.Enum {
		return "enum of " + kindNames[t.Base]
	}
	return kindNames[t.Kind]
}

// typeExpr is the Go type of a value of t, as the emitter writes it.
func typeExpr(t *ir.Type) string {
	switch t.Kind {
	case ir.Bool, ir.Int, ir.Number, ir.String:
		return kindNames[t.Kind]
	case ir.Nullable:
		if t.Elem.NilAble() {
			return typeExpr(t.Elem)
		}
		return "*" + typeExpr(t.Elem)
	}
	if t.IsNamed() {
		return t.Name
	}
	switch t.Kind {
	case ir.Slice:
		return "[]" + typeExpr(t.Elem)
	case ir.Map:
		return "map[string]" + typeExpr(t.Elem)
	}
	return "json.RawMessage"
}

// fieldExpr is the Go type of a struct field, as the emitter writes it:
// optional values without a nil of their own are pointers, and so are
// required values of recursive types.
func fieldExpr(f *ir.Field) string {
	t := f.Type
	ptr := false
	if f.Required {
		ptr = (t.Kind == ir.Struct || t.Kind == ir.Union) && t.Recursive
	} else {
		ptr = t.Kind != ir.Nullable && !t.NilAble()
	}
	if ptr {
		return "*" + typeExpr(t)
	}
	return typeExpr(t)
}

// refCycle reports whether a schema holds a chain of references that leads
// back to itself without passing through a schema of its own, such as
// a → b → a. The generator cannot build such a schema, so it is left to the
// schema rules alone.
func refCycle(raw []byte) bool {
	root, err := jsontree.ParseUnique(raw)
	if err != nil {
		return true
	}
	root = schema.StaticRefs(root)
	r := newResolver(root)
	cycle := false
	eachRef(root, func(ref string) {
		seen := map[string]bool{}
		for !cycle {
			if seen[ref] {
				cycle = true
				return
			}
			seen[ref] = true
			target, _, ok := r.lookupRef(ref)
			next := target.Get("$ref")
			if !ok || next == nil || next.Kind != jsontree.String {
				return
			}
			ref = next.Str
		}
	})
	return cycle
}

// defPointer rewrites ptr, a place in the schema r holds as the generator
// reaches it, into the pointer the walker reports changes there at: past a
// shared definition the walker compared once, from that definition's own
// pointer. A place the schema does not spell out (one made by merging
// allOf, say) keeps its pointer.
func (w *walker) defPointer(r resolver, ptr string) string {
	if ptr == "" || len(w.defs) == 0 {
		return ptr
	}
	cur, out := r.root, ""
	for _, tok := range strings.Split(ptr[1:], "/") {
		next, err := cur.Lookup("/" + tok)
		if err != nil {
			return ptr
		}
		cur = next
		out += "/" + tok
		for range maxRefDepth {
			ref := cur.Get("$ref")
			if ref == nil || ref.Kind != jsontree.String {
				break
			}
			target, _, ok := r.lookupRef(ref.Str)
			if !ok {
				break
			}
			cur = target
			if d := w.defs[ref.Str]; d != nil {
				out = d.ptr
			}
		}
	}
	return out
}
