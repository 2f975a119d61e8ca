package diff

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
	"github.com/mcpgen/mcpgen/internal/textcut"
)

// maxDepth bounds how deep two schemas are walked; schemas deeper than this
// are compared no further.
const maxDepth = 128

// walker compares one schema of one tool (its inputSchema or outputSchema)
// between the old and the new tool list.
type walker struct {
	tool     string
	section  string // "inputSchema" or "outputSchema"
	output   bool
	old, new resolver
	changes  []Change
	active   map[string]bool // $ref pairs being compared, against recursion
	stable   map[string]bool // refsStable results by reference
	depth    int
	// shared are the local references used more than once in the old or
	// the new document; defs records the ones compared, by reference, and
	// def is the one being compared.
	shared map[string]bool
	defs   map[string]*defUse
	def    *defUse
	// ctx, when not nil, stops the walk once done, leaving err set.
	ctx context.Context
	err error
	// compared counts the calls of compare, against maxCompared.
	compared, maxCompared int
}

// defaultMaxCompared bounds how many schemas one walk compares. Shared
// definitions are compared once, so only a schema that reaches its
// definitions through very many paths without sharing them (a $ref with
// other keywords beside it that change at every level, say) comes near it.
const defaultMaxCompared = 50000

// maxUseSites is how many places that use a shared definition a change
// inside it lists; the others are counted.
const maxUseSites = 5

// defUse is a definition used more than once, compared once at its own
// pointer: the places that use it, the first maxUseSites of them as
// pointers, and how many there are.
type defUse struct {
	ptr   string
	sites []string
	uses  int
}

// finding is one change found by the walker, before its severity and
// sentence are filled in.
type finding struct {
	rule    Rule
	ptr     string
	subject string // fills %s in the rule's sentence
	summary string
	old     string
	new     string
	goAPI   bool
	goWhy   string
	sev     *Severity // overrides the rule's severity when set
	why     string    // overrides the rule's sentence when set; %s is the subject
}

func (w *walker) report(f finding) {
	info := rules[f.rule]
	sev, why := info.in, info.whyIn
	if w.output {
		sev, why = info.out, info.whyOut
	}
	if f.sev != nil {
		sev = *f.sev
	}
	if f.why != "" {
		why = f.why
	}
	c := Change{
		Tool:     w.tool,
		Schema:   w.section,
		Pointer:  f.ptr,
		Severity: sev,
		GoAPI:    f.goAPI,
		Rule:     f.rule,
		Summary:  f.summary,
		Old:      f.old,
		New:      f.new,
		baseWhy:  fmt.Sprintf(why, f.subject),
	}
	if f.goAPI {
		c.goWhy = f.goWhy
	}
	c.composeWhy()
	c.def = w.def
	w.changes = append(w.changes, c)
}

// finish fills in where the shared definitions the changes are in are used,
// once every use has been seen.
func (w *walker) finish() []Change {
	for i := range w.changes {
		c := &w.changes[i]
		if d := c.def; d != nil {
			for _, p := range d.sites {
				c.UsedAt = append(c.UsedAt, w.section+p)
			}
			c.MoreUses = d.uses - len(d.sites)
		}
	}
	return w.changes
}

// sharedRef returns the reference o and n both are, when it is used more
// than once, points inside both documents, and the keywords beside it are
// the same on both sides: the definition is then compared once, where it
// is defined, instead of once per path that reaches it.
func (w *walker) sharedRef(o, n *jsontree.Node) (string, bool) {
	ro, rn := o.Get("$ref"), n.Get("$ref")
	if ro == nil || rn == nil || ro.Kind != jsontree.String || rn.Kind != jsontree.String || ro.Str != rn.Str || !w.shared[ro.Str] {
		return "", false
	}
	if _, _, ok := w.old.lookupRef(ro.Str); !ok {
		return "", false
	}
	if _, _, ok := w.new.lookupRef(ro.Str); !ok {
		return "", false
	}
	so, sn := without(o, "$ref"), without(n, "$ref")
	if jsontree.Canonical(so) != jsontree.Canonical(sn) && !(onlyAnnotations(so) && onlyAnnotations(sn)) {
		return "", false
	}
	return ro.Str, true
}

// onlyAnnotations reports whether every keyword of the object o is an
// annotation, such as a description beside a $ref.
func onlyAnnotations(o *jsontree.Node) bool {
	for _, k := range o.Keys() {
		if !isAnnotation(k) {
			return false
		}
	}
	return true
}

// compareUseAnnotations compares the annotations written beside a shared
// $ref, which describe that use of the definition.
func (w *walker) compareUseAnnotations(ptr, path string, o, n *jsontree.Node) {
	ov, nv := &view{obj: without(o, "$ref")}, &view{obj: without(n, "$ref")}
	if jsontree.Canonical(ov.obj) == jsontree.Canonical(nv.obj) {
		return
	}
	subj := w.subject(path)
	w.compareText(ptr, subj, ov, nv, "title", TitleChanged)
	w.compareText(ptr, subj, ov, nv, "description", DescriptionChanged)
	w.compareOther(ptr, subj, ov, nv)
}

// compareShared records ptr as a use of the shared definition ref, and
// compares the definition the first time it is reached.
func (w *walker) compareShared(ref, ptr string, pos position) {
	d := w.defs[ref]
	first := d == nil
	if first {
		d = &defUse{ptr: refPointer(ref)}
		w.defs[ref] = d
	}
	d.uses++
	if len(d.sites) < maxUseSites {
		d.sites = append(d.sites, ptr)
	}
	if !first {
		return
	}
	ot, _, _ := w.old.lookupRef(ref)
	nt, _, _ := w.new.lookupRef(ref)
	outer := w.def
	w.def = d
	defer func() { w.def = outer }()
	w.compare(d.ptr, defPath(d.ptr), ot, nt, pos)
}

// refPointer returns the JSON pointer a local reference such as
// "#/$defs/Item" points at.
func refPointer(ref string) string {
	frag := strings.TrimPrefix(ref, "#")
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	return frag
}

// defPath names a definition in reports, such as "$defs.Item" for
// /$defs/Item, with long names cut as cutName cuts them.
func defPath(ptr string) string {
	var parts []string
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		parts = append(parts, cutName(strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")))
	}
	return strings.Join(parts, ".")
}

// countRefs counts the uses of each reference in a document.
func countRefs(root *jsontree.Node) map[string]int {
	counts := map[string]int{}
	eachRef(root, func(ref string) { counts[ref]++ })
	return counts
}

// position tells where a schema sits in generated Go code, which decides
// whether it is a pointer.
type position struct {
	field          bool // a struct field, slice element or map value
	oldReq, newReq bool
}

// nodeState carries what one schema comparison has said about the Go type.
type nodeState struct {
	kindChanged bool
	kindWhy     string
	goReported  bool
}

// kindAPI returns whether a finding that changes the shape of the value
// should carry the GO_API marker, and records that it did.
func (s *nodeState) kindAPI() (bool, string) {
	if !s.kindChanged {
		return false, ""
	}
	s.goReported = true
	return true, s.kindWhy
}

func (w *walker) subject(path string) string {
	if path == "" {
		if w.output {
			return "the result"
		}
		return "the arguments"
	}
	return "`" + path + "`"
}

// childPath names the property name of path in reports, cut as cutName
// cuts it.
func childPath(path, name string) string {
	name = cutName(name)
	if path == "" {
		return name
	}
	return path + "." + name
}

// maxNameShown bounds, in bytes, one name in the paths and pointers a
// report prints, as the generator bounds the identifier it makes of one
// name: a name of a megabyte would otherwise come back in full in every
// change below it, in its place, summary and why.
const maxNameShown = 128

// cutName returns s, or when it is longer than maxNameShown, s cut and
// ending with "…" and the hash of s, which keeps names that differ only
// past the cut apart.
func cutName(s string) string {
	if len(s) <= maxNameShown {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	suffix := fmt.Sprintf("…%08x", h.Sum32())
	return textcut.Prefix(s, maxNameShown-len(suffix)) + suffix
}

// cutPointer returns ptr with each of its tokens cut as cutName cuts it.
func cutPointer(ptr string) string {
	if len(ptr) <= maxNameShown {
		return ptr
	}
	toks := strings.Split(ptr, "/")
	for i, t := range toks {
		toks[i] = cutName(t)
	}
	return strings.Join(toks, "/")
}

func childPtr(ptr string, tokens ...string) string {
	for _, t := range tokens {
		ptr += "/" + jsontree.EscapeToken(t)
	}
	return ptr
}

// compare compares the schemas o and n found at ptr.
func (w *walker) compare(ptr, path string, o, n *jsontree.Node, pos position) {
	if w.depth >= maxDepth || w.err != nil {
		return
	}
	if w.ctx != nil && w.ctx.Err() != nil {
		w.err = &StoppedError{Tool: w.tool, Phase: "comparing " + w.section + " at " + orRoot(ptr), Err: w.ctx.Err()}
		return
	}
	if w.compared++; w.compared > w.maxCompared {
		w.err = fmt.Errorf("tool %s: comparing %s at %s: more than %d schemas to compare; the schema reaches its definitions through too many paths", w.tool, w.section, orRoot(ptr), w.maxCompared)
		return
	}
	if o != nil && n != nil && jsontree.Canonical(o) == jsontree.Canonical(n) && !w.refsInside(o, n) {
		return
	}
	if ref, ok := w.sharedRef(o, n); ok {
		w.compareUseAnnotations(ptr, path, o, n)
		w.compareShared(ref, ptr, pos)
		return
	}
	ov, nv := w.old.view(o), w.new.view(n)
	if len(ov.refs)+len(nv.refs) > 0 {
		key := strings.Join(ov.refs, " ") + "|" + strings.Join(nv.refs, " ")
		if w.active[key] {
			return
		}
		w.active[key] = true
		defer delete(w.active, key)
	}
	w.depth++
	defer func() { w.depth-- }()
	w.compareViews(ptr, path, ov, nv, pos)
}

// orRoot names the pointer of a schema's root "(root)".
func orRoot(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}

// refsInside reports whether two equal-looking schemas may still differ
// because they hold local references whose targets differ between the old
// and the new document.
func (w *walker) refsInside(o, n *jsontree.Node) bool {
	return !w.refsStable(o) || !w.refsStable(n)
}

// refsStable reports whether every local $ref reachable from n, directly or
// through other references, resolves to equal targets in the old and the new
// document.
func (w *walker) refsStable(n *jsontree.Node) bool {
	stable := true
	eachRef(n, func(ref string) {
		if stable && !w.refStable(ref) {
			stable = false
		}
	})
	return stable
}

// refStable is refsStable for one reference, memoized. It walks the whole
// closure of references reachable from ref, in both documents.
func (w *walker) refStable(ref string) bool {
	if state, ok := w.stable[ref]; ok {
		return state
	}
	seen := map[string]bool{}
	queue := []string{ref}
	ok := true
	for len(queue) > 0 && ok {
		r := queue[0]
		queue = queue[1:]
		if seen[r] {
			continue
		}
		seen[r] = true
		ot, _, ook := w.old.lookupRef(r)
		nt, _, nok := w.new.lookupRef(r)
		if ook != nok || (ook && jsontree.Canonical(ot) != jsontree.Canonical(nt)) {
			ok = false
			break
		}
		if ook {
			eachRef(ot, func(next string) { queue = append(queue, next) })
		}
	}
	w.stable[ref] = ok
	return ok
}

// eachRef calls fn with every $ref string under n, outside data keywords.
func eachRef(n *jsontree.Node, fn func(string)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case jsontree.Array:
		for _, it := range n.Items {
			eachRef(it, fn)
		}
	case jsontree.Object:
		for _, m := range n.Members {
			k, v := m.Key, m.Value
			switch {
			case k == "$ref" && v.Kind == jsontree.String:
				fn(v.Str)
			case k == "enum" || k == "const" || k == "default" || k == "examples" || k == "example":
			default:
				eachRef(v, fn)
			}
		}
	}
}

var goKindText = map[string]string{
	"none":    "a type that accepts nothing",
	"union":   "a union type",
	"const":   "a constant type",
	"struct":  "a struct",
	"map":     "a map",
	"slice":   "a slice",
	"raw":     "json.RawMessage",
	"string":  "string",
	"int64":   "int64",
	"float64": "float64",
	"bool":    "bool",
}

func (w *walker) compareViews(ptr, path string, ov, nv *view, pos position) {
	subj := w.subject(path)
	oldKind, newKind := ov.goKind(), nv.goKind()
	st := &nodeState{
		kindChanged: oldKind != newKind,
		kindWhy:     fmt.Sprintf("The generated Go type changes from %s to %s.", goKindText[oldKind], goKindText[newKind]),
	}

	if ov.never || nv.never {
		if ov.never != nv.never {
			rule, summary := TypeWidened, fmt.Sprintf("%s now accepts values", subj)
			if nv.never {
				rule, summary = TypeNarrowed, fmt.Sprintf("%s no longer accepts any value", subj)
			}
			api, why := st.kindAPI()
			w.report(finding{rule: rule, ptr: ptr, subject: subj, summary: summary,
				old: schemaText(ov), new: schemaText(nv), goAPI: api, goWhy: why})
		}
		return
	}

	if ov.refName != "" && nv.refName != "" && ov.refName != nv.refName && (oldKind == "struct" || ov.hasEnum) {
		w.report(finding{rule: NamedTypeRenamed, ptr: ptr, subject: subj,
			summary: fmt.Sprintf("definition of %s renamed", subj),
			old:     ov.refName, new: nv.refName, goAPI: true,
			goWhy: "Code that names the old Go type no longer compiles."})
	}

	oUnion, nUnion := len(ov.union) > 0, len(nv.union) > 0
	var oWrapped, nWrapped []*jsontree.Node
	switch {
	case !oUnion && !nUnion:
		if !w.compareTypes(ptr, path, ov, nv, st) {
			return
		}
	case !oUnion:
		ov, oWrapped = splitForUnion(ov)
	case !nUnion:
		nv, nWrapped = splitForUnion(nv)
	}

	w.compareNullable(ptr, subj, ov, nv, pos)
	w.compareKeyword(ptr, subj, ov, nv, "format", FormatAdded, FormatChanged, FormatRemoved)
	switch co, cn := constInEnum(ov, nv); {
	case constEnumSwap(ov, nv):
	case co != nil:
		w.compareEnum(ptr, path, co, cn)
	default:
		w.compareConst(ptr, subj, ov, nv, st)
		w.compareEnum(ptr, path, ov, nv)
	}
	w.compareLimits(ptr, subj, ov, nv)
	w.compareKeyword(ptr, subj, ov, nv, "pattern", PatternAdded, PatternChanged, PatternRemoved)
	w.compareKeyword(ptr, subj, ov, nv, "default", DefaultAdded, DefaultChanged, DefaultRemoved)
	w.compareText(ptr, subj, ov, nv, "title", TitleChanged)
	w.compareText(ptr, subj, ov, nv, "description", DescriptionChanged)
	w.compareOther(ptr, subj, ov, nv)

	w.compareProperties(ptr, path, ov, nv)
	w.compareAdditional(ptr, path, ov, nv)
	w.compareItems(ptr, path, ov, nv)
	if oUnion || nUnion {
		w.compareBranches(ptr, path, ov, nv, oWrapped, nWrapped, st)
	}
	if st.kindChanged && !st.goReported {
		w.report(finding{rule: GoTypeChanged, ptr: ptr, subject: subj,
			summary: fmt.Sprintf("Go type of %s changes", subj),
			old:     goKindText[oldKind], new: goKindText[newKind], goAPI: true, goWhy: st.kindWhy})
	}
}

// compareTypes compares the type keywords of two non-union schemas. It
// returns false when the types are unrelated, after which nothing else about
// the schema is worth reporting.
func (w *walker) compareTypes(ptr, path string, ov, nv *view, st *nodeState) bool {
	subj := w.subject(path)
	oldSub, newSub := subsetTypes(ov.types, nv.types), subsetTypes(nv.types, ov.types)
	if oldSub && newSub {
		return true
	}
	f := finding{ptr: childPtr(ptr, "type"), subject: subj, old: ov.typeText(), new: nv.typeText()}
	f.goAPI, f.goWhy = st.kindAPI()
	switch {
	case newSub:
		f.rule, f.summary = TypeNarrowed, fmt.Sprintf("type of %s narrowed", subj)
	case oldSub:
		f.rule, f.summary = TypeWidened, fmt.Sprintf("type of %s widened", subj)
	default:
		f.rule, f.summary = TypeChanged, fmt.Sprintf("type of %s changed", subj)
	}
	w.report(f)
	return f.rule != TypeChanged
}

// splitForUnion splits a plain schema compared against a union into its
// annotations, compared with the union's own keywords, and branches holding
// its constraints, compared with the union's branches: one branch, or one
// per type when the schema has a type list, since ["string","integer"] is
// the union of a string and an integer.
func splitForUnion(v *view) (*view, []*jsontree.Node) {
	parent := &view{obj: &jsontree.Node{Kind: jsontree.Object}, nullable: v.nullable, refName: v.refName, refs: v.refs}
	rest := &jsontree.Node{Kind: jsontree.Object}
	for _, m := range v.obj.Members {
		k, val := m.Key, m.Value
		switch {
		case annotationKeys[k] || k == "default":
			parent.obj.Set(k, val)
		case k == "nullable", k == "type":
		case k == "enum":
			rest.Set(k, &jsontree.Node{Kind: jsontree.Array, Items: v.enum})
		default:
			rest.Set(k, val)
		}
	}
	if len(v.types) == 0 {
		return parent, []*jsontree.Node{rest}
	}
	var branches []*jsontree.Node
	for _, name := range v.types {
		b := &jsontree.Node{Kind: jsontree.Object}
		b.Set("type", &jsontree.Node{Kind: jsontree.String, Str: name})
		b.Members = append(b.Members, rest.Members...)
		branches = append(branches, b)
	}
	return parent, branches
}

func (w *walker) compareNullable(ptr, subj string, ov, nv *view, pos position) {
	if ov.nullable == nv.nullable {
		return
	}
	f := finding{ptr: ptr, subject: subj, old: nullText(ov.nullable), new: nullText(nv.nullable)}
	if nv.nullable {
		f.rule, f.summary = NullableAdded, fmt.Sprintf("%s became nullable", subj)
	} else {
		f.rule, f.summary = NullableRemoved, fmt.Sprintf("%s is no longer nullable", subj)
	}
	if pos.field {
		before, after := ov.pointer(pos.oldReq), nv.pointer(pos.newReq)
		// Marked when nullability alone moves the field between T and *T;
		// a change of requiredness is marked by its own rule.
		if before != after && ov.pointer(pos.newReq) != nv.pointer(pos.newReq) {
			f.goAPI, f.goWhy = true, pointerWhy(before)
		}
	}
	w.report(f)
}

func nullText(b bool) string {
	if b {
		return "nullable"
	}
	return "not nullable"
}

// pointerWhy explains a field that moves between T and *T.
func pointerWhy(wasPointer bool) string {
	if wasPointer {
		return "The generated Go field changes from *T to T, so code that sets or reads it must change."
	}
	return "The generated Go field changes from T to *T, so code that sets or reads it must change."
}

// compareKeyword reports a keyword added, changed or removed.
func (w *walker) compareKeyword(ptr, subj string, ov, nv *view, key string, added, changed, removed Rule) {
	o, n := ov.obj.Get(key), nv.obj.Get(key)
	if jsontree.Equal(o, n) {
		return
	}
	f := finding{ptr: childPtr(ptr, key), subject: subj, old: valueText(o), new: valueText(n)}
	switch {
	case o == nil:
		f.rule, f.summary = added, fmt.Sprintf("%s added to %s", key, subj)
	case n == nil:
		f.rule, f.summary = removed, fmt.Sprintf("%s removed from %s", key, subj)
	default:
		f.rule, f.summary = changed, fmt.Sprintf("%s of %s changed", key, subj)
	}
	w.report(f)
}

func (w *walker) compareText(ptr, subj string, ov, nv *view, key string, rule Rule) {
	o, n := ov.obj.Get(key), nv.obj.Get(key)
	if jsontree.Equal(o, n) {
		return
	}
	w.report(finding{rule: rule, ptr: childPtr(ptr, key), subject: subj,
		summary: fmt.Sprintf("%s of %s changed", key, subj), old: textOf(o), new: textOf(n)})
}

// textOf returns a string node's text, or compact JSON for anything else.
func textOf(n *jsontree.Node) string {
	if n != nil && n.Kind == jsontree.String {
		return n.Str
	}
	return valueText(n)
}

// constEnumSwap reports whether one side restricts the value with const and
// the other with a one-value enum holding the same value: the same schema
// on the wire, written two ways (as JSON Schema generators differ on
// literals). A change to the generated Go type is still reported by the
// check against the generator.
func constEnumSwap(ov, nv *view) bool {
	single := func(v *view) *jsontree.Node {
		c := v.obj.Get("const")
		switch {
		case c != nil && !v.hasEnum:
			return c
		case c == nil && v.hasEnum && len(v.enum) == 1:
			return v.enum[0]
		}
		return nil
	}
	o, n := single(ov), single(nv)
	return o != nil && n != nil && jsontree.Equal(o, n) && (ov.obj.Has("const") != nv.obj.Has("const"))
}

// constInEnum returns ov and nv with the constant of one side read as a
// one-value enum, when the other side restricts the value with an enum that
// holds the constant: a const widened to an enum, or an enum narrowed to
// one of its values, is then compared value by value, as enums are. It
// returns nils otherwise.
func constInEnum(ov, nv *view) (*view, *view) {
	asEnum := func(v *view) *view {
		c := v.obj.Get("const")
		if c == nil || c.Kind == jsontree.Null || v.hasEnum {
			return nil
		}
		e := *v
		e.hasEnum, e.enum = true, []*jsontree.Node{c}
		return &e
	}
	holds := func(v *view, c *jsontree.Node) bool {
		return v.hasEnum && !v.obj.Has("const") && slices.ContainsFunc(v.enum, func(x *jsontree.Node) bool { return jsontree.Equal(x, c) })
	}
	if e := asEnum(ov); e != nil && holds(nv, e.enum[0]) {
		return e, nv
	}
	if e := asEnum(nv); e != nil && holds(ov, e.enum[0]) {
		return ov, e
	}
	return nil, nil
}

func (w *walker) compareConst(ptr, subj string, ov, nv *view, st *nodeState) {
	o, n := ov.obj.Get("const"), nv.obj.Get("const")
	if jsontree.Equal(o, n) {
		return
	}
	f := finding{ptr: childPtr(ptr, "const"), subject: subj, old: valueText(o), new: valueText(n),
		goAPI: true, goWhy: "The generated constant type changes."}
	if st.kindChanged {
		st.goReported = true
		f.goWhy = st.kindWhy
	}
	switch {
	case o == nil:
		f.rule, f.summary = ConstAdded, fmt.Sprintf("%s fixed to %s", subj, valueText(n))
	case n == nil:
		f.rule, f.summary = ConstRemoved, fmt.Sprintf("%s no longer fixed to %s", subj, valueText(o))
	default:
		// The constant type keeps its name and fills in the new value.
		f.rule, f.summary = ConstChanged, fmt.Sprintf("constant of %s changed", subj)
		f.goAPI = st.kindChanged
	}
	w.report(f)
}

func (w *walker) compareEnum(ptr, path string, ov, nv *view) {
	subj := w.subject(path)
	eptr := childPtr(ptr, "enum")
	switch {
	case !ov.hasEnum && !nv.hasEnum:
		return
	case !ov.hasEnum:
		w.report(finding{rule: EnumAdded, ptr: eptr, subject: subj,
			summary: fmt.Sprintf("%s restricted to a list of values", subj),
			new:     valueText(nv.obj.Get("enum")), goAPI: true,
			goWhy: "The field gets a named Go type with one constant per value."})
		return
	case !nv.hasEnum:
		w.report(finding{rule: EnumRemoved, ptr: eptr, subject: subj,
			summary: fmt.Sprintf("%s no longer restricted to a list of values", subj),
			old:     valueText(ov.obj.Get("enum")), goAPI: true,
			goWhy: "The named Go type and its constants disappear."})
		return
	}
	inOld, inNew := map[string]bool{}, map[string]bool{}
	for _, v := range ov.enum {
		inOld[jsontree.Canonical(v)] = true
	}
	for _, v := range nv.enum {
		inNew[jsontree.Canonical(v)] = true
	}
	var removed, added []*jsontree.Node
	for _, v := range ov.enum {
		if !inNew[jsontree.Canonical(v)] {
			removed = append(removed, v)
		}
	}
	for _, v := range nv.enum {
		if !inOld[jsontree.Canonical(v)] {
			added = append(added, v)
		}
	}
	if len(removed) == 1 && len(added) == 1 {
		o, n := valueText(removed[0]), valueText(added[0])
		w.report(finding{rule: EnumValueRenamed, ptr: eptr, subject: o,
			summary: fmt.Sprintf("value %s of %s renamed to %s", o, subj, n),
			old:     o, new: n, goAPI: true,
			goWhy: fmt.Sprintf("The generated constant for %s is replaced by one for %s.", o, n)})
		return
	}
	for _, v := range removed {
		t := valueText(v)
		w.report(finding{rule: EnumValueRemoved, ptr: eptr, subject: t,
			summary: fmt.Sprintf("value %s removed from %s", t, subj), old: t, goAPI: true,
			goWhy: fmt.Sprintf("The generated constant for %s disappears.", t)})
	}
	for _, v := range added {
		t := valueText(v)
		w.report(finding{rule: EnumValueAdded, ptr: eptr, subject: t,
			summary: fmt.Sprintf("value %s added to %s", t, subj), new: t})
	}
}

// limitKeys lists the numeric limits in report order.
var limitKeys = []string{
	"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
	"minProperties", "maxProperties", "minContains", "maxContains",
}

// numericBound is a minimum or maximum as it applies, whichever keywords
// spell it: minimum/maximum, exclusiveMinimum/exclusiveMaximum as numbers
// (draft 6 and later), or as a flag beside minimum/maximum (draft 4).
type numericBound struct {
	key       string // the keyword holding the value
	value     *big.Rat
	exclusive bool
	text      string
}

// bound returns the effective lower (or upper) numeric bound of o, the
// stricter one when several keywords set it, or nil.
func bound(o *jsontree.Node, lower bool) *numericBound {
	incl, excl := "maximum", "exclusiveMaximum"
	if lower {
		incl, excl = "minimum", "exclusiveMinimum"
	}
	var b *numericBound
	stricter := func(c *numericBound) bool {
		if b == nil {
			return true
		}
		cmp := c.value.Cmp(b.value)
		if !lower {
			cmp = -cmp
		}
		return cmp > 0 || (cmp == 0 && c.exclusive && !b.exclusive)
	}
	flag := o.Get(excl)
	if r, ok := rat(o.Get(incl)); ok {
		c := &numericBound{key: incl, value: r, exclusive: flagOn(flag), text: valueText(o.Get(incl))}
		if c.exclusive {
			c.text = "> " + c.text
			if !lower {
				c.text = "< " + valueText(o.Get(incl))
			}
		}
		b = c
	}
	if r, ok := rat(flag); ok {
		c := &numericBound{key: excl, value: r, exclusive: true, text: "> " + valueText(flag)}
		if !lower {
			c.text = "< " + valueText(flag)
		}
		if stricter(c) {
			b = c
		}
	}
	return b
}

// compareBounds compares the effective numeric bounds, so that moving a
// bound between minimum and exclusiveMinimum (or between the draft-4 and
// later spellings) reports what changed for values, not for keywords.
func (w *walker) compareBounds(ptr, subj string, ov, nv *view) {
	for _, lower := range []bool{true, false} {
		o, n := bound(ov.obj, lower), bound(nv.obj, lower)
		name := "maximum"
		if lower {
			name = "minimum"
		}
		ls := fmt.Sprintf("`%s` of %s", name, subj)
		f := finding{subject: ls}
		switch {
		case o == nil && n == nil:
			continue
		case o == nil:
			f.rule, f.summary, f.new, f.ptr = LimitAdded, fmt.Sprintf("%s set to %s", ls, n.text), n.text, childPtr(ptr, n.key)
		case n == nil:
			f.rule, f.summary, f.old, f.ptr = LimitRemoved, fmt.Sprintf("%s removed", ls), o.text, childPtr(ptr, o.key)
		default:
			cmp := n.value.Cmp(o.value)
			if !lower {
				cmp = -cmp
			}
			if cmp == 0 && n.exclusive != o.exclusive {
				cmp = 1
				if o.exclusive {
					cmp = -1
				}
			}
			if cmp == 0 {
				continue
			}
			f.old, f.new, f.ptr = o.text, n.text, childPtr(ptr, n.key)
			if cmp > 0 {
				f.rule, f.summary = LimitTightened, fmt.Sprintf("%s tightened", ls)
			} else {
				f.rule, f.summary = LimitRelaxed, fmt.Sprintf("%s relaxed", ls)
			}
		}
		w.report(f)
	}
}

func (w *walker) compareLimits(ptr, subj string, ov, nv *view) {
	w.compareBounds(ptr, subj, ov, nv)
	for _, key := range limitKeys {
		if isNumericBound(key) {
			continue
		}
		o, n := ov.obj.Get(key), nv.obj.Get(key)
		if jsontree.Equal(o, n) || (noLimit(key, o) && noLimit(key, n)) {
			continue
		}
		ls := fmt.Sprintf("`%s` of %s", key, subj)
		f := finding{ptr: childPtr(ptr, key), subject: ls, old: valueText(o), new: valueText(n)}
		f.rule = limitRule(key, o, n)
		switch f.rule {
		case LimitAdded:
			f.summary = fmt.Sprintf("%s set to %s", ls, valueText(n))
		case LimitRemoved:
			f.summary = fmt.Sprintf("%s removed", ls)
		case LimitTightened:
			f.summary = fmt.Sprintf("%s tightened", ls)
		case LimitRelaxed:
			f.summary = fmt.Sprintf("%s relaxed", ls)
		default:
			f.summary = fmt.Sprintf("%s changed", ls)
		}
		w.report(f)
	}
}

func isNumericBound(key string) bool {
	return key == "minimum" || key == "maximum" || key == "exclusiveMinimum" || key == "exclusiveMaximum"
}

// limitRule classifies a change of one limit keyword.
func limitRule(key string, o, n *jsontree.Node) Rule {
	// Flags: uniqueItems, and the draft-04 boolean exclusiveMinimum/Maximum.
	if isFlag(o) || isFlag(n) {
		ot, nt := flagOn(o), flagOn(n)
		switch {
		case ot == nt:
			return LimitChanged
		case nt && o == nil:
			return LimitAdded
		case nt:
			return LimitTightened
		case n == nil:
			return LimitRemoved
		default:
			return LimitRelaxed
		}
	}
	if o == nil {
		return LimitAdded
	}
	if n == nil {
		return LimitRemoved
	}
	a, aok := rat(o)
	b, bok := rat(n)
	if !aok || !bok {
		return LimitChanged
	}
	switch {
	case key == "multipleOf":
		if a.Sign() == 0 || b.Sign() == 0 {
			return LimitChanged
		}
		if isInt(new(big.Rat).Quo(b, a)) {
			return LimitTightened
		}
		if isInt(new(big.Rat).Quo(a, b)) {
			return LimitRelaxed
		}
		return LimitChanged
	case schema.LowerBounds[key]:
		if b.Cmp(a) > 0 {
			return LimitTightened
		}
		return LimitRelaxed
	default:
		if b.Cmp(a) < 0 {
			return LimitTightened
		}
		return LimitRelaxed
	}
}

func isFlag(n *jsontree.Node) bool { return n != nil && n.Kind == jsontree.Bool }
func flagOn(n *jsontree.Node) bool { return n != nil && n.Kind == jsontree.Bool && n.Bool }
func isInt(r *big.Rat) bool        { return r.IsInt() }

// noLimit reports whether the limit keyword key, valued n, limits nothing:
// left out, or written at the value that is its default, such as
// uniqueItems false or minLength 0.
func noLimit(key string, n *jsontree.Node) bool {
	if n == nil || (isFlag(n) && !n.Bool) {
		return true
	}
	switch key {
	case "minLength", "minItems", "minProperties":
		r, ok := rat(n)
		return ok && r.Sign() == 0
	}
	return false
}

// handledKeys are the keywords compared by their own rules.
var handledKeys = map[string]bool{
	"type": true, "nullable": true, "format": true, "const": true, "enum": true,
	"pattern": true, "default": true, "title": true, "description": true,
	"properties": true, "required": true, "additionalProperties": true, "unevaluatedProperties": true,
	"items": true, "prefixItems": true, "anyOf": true, "oneOf": true, "allOf": true,
	"$defs": true, "definitions": true,
}

// annotationKeys are keywords that do not constrain values.
var annotationKeys = map[string]bool{
	"title": true, "description": true, "examples": true, "example": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true,
	"$schema": true, "$id": true, "$anchor": true, "$dynamicAnchor": true,
	"contentMediaType": true, "markdownDescription": true,
}

func isAnnotation(key string) bool {
	return annotationKeys[key] || strings.HasPrefix(key, "x-")
}

// compareOther reports changes to every keyword no other rule handles.
func (w *walker) compareOther(ptr, subj string, ov, nv *view) {
	for _, key := range unionKeys(ov.obj, nv.obj) {
		if handledKeys[key] || contains(limitKeys, key) || (key == "additionalItems" && draft7Tuples(ov, nv)) {
			continue
		}
		o, n := ov.obj.Get(key), nv.obj.Get(key)
		if jsontree.Equal(o, n) {
			continue
		}
		f := finding{ptr: childPtr(ptr, key), subject: "`" + key + "` of " + subj,
			old: valueText(o), new: valueText(n),
			summary: fmt.Sprintf("`%s` of %s changed", key, subj)}
		if isAnnotation(key) {
			f.rule = AnnotationChanged
		} else {
			f.rule = KeywordChanged
		}
		w.report(f)
	}
}

// unionKeys returns the keys of a and then the keys only b has.
func unionKeys(a, b *jsontree.Node) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range []*jsontree.Node{a, b} {
		if n == nil || n.Kind != jsontree.Object {
			continue
		}
		for _, k := range n.Keys() {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// closed reports whether an object schema rejects undeclared keys.
func closed(v *view) bool {
	for _, key := range []string{"additionalProperties", "unevaluatedProperties"} {
		if a := v.obj.Get(key); a != nil && a.Kind == jsontree.Bool && !a.Bool {
			return true
		}
	}
	return false
}

func requiredSet(o *jsontree.Node) map[string]bool {
	out := map[string]bool{}
	if r := o.Get("required"); r != nil && r.Kind == jsontree.Array {
		for _, it := range r.Items {
			if it.Kind == jsontree.String {
				out[it.Str] = true
			}
		}
	}
	return out
}

// propertyNames returns the declared properties, then required names that
// have no declaration, in schema order.
func propertyNames(o *jsontree.Node) []string {
	var names []string
	seen := map[string]bool{}
	if p := o.Get("properties"); p != nil && p.Kind == jsontree.Object {
		for _, k := range p.Keys() {
			seen[k] = true
			names = append(names, k)
		}
	}
	if r := o.Get("required"); r != nil && r.Kind == jsontree.Array {
		for _, it := range r.Items {
			if it.Kind == jsontree.String && !seen[it.Str] {
				seen[it.Str] = true
				names = append(names, it.Str)
			}
		}
	}
	return names
}

func propSchema(o *jsontree.Node, name string) *jsontree.Node {
	if s := o.Get("properties").Get(name); s != nil {
		return s
	}
	return trueNode
}

func (w *walker) compareProperties(ptr, path string, ov, nv *view) {
	oldNames, newNames := propertyNames(ov.obj), propertyNames(nv.obj)
	if len(oldNames) == 0 && len(newNames) == 0 {
		return
	}
	inOld, inNew := map[string]bool{}, map[string]bool{}
	for _, name := range oldNames {
		inOld[name] = true
	}
	for _, name := range newNames {
		inNew[name] = true
	}
	oreq, nreq := requiredSet(ov.obj), requiredSet(nv.obj)
	var removed, added []string
	for _, name := range oldNames {
		if !inNew[name] {
			removed = append(removed, name)
		}
	}
	for _, name := range newNames {
		if !inOld[name] {
			added = append(added, name)
		}
	}
	renamed, renamedTo := false, ""
	if len(removed) == 1 && len(added) == 1 &&
		jsontree.Equal(propSchema(ov.obj, removed[0]), propSchema(nv.obj, added[0])) {
		renamed, renamedTo = true, added[0]
	}

	removedSev := func(name string) Severity {
		if w.output {
			if oreq[name] {
				return Err
			}
			return Warn
		}
		if closed(nv) {
			return Err
		}
		return Warn
	}
	addedRule := func(name string) Rule {
		if nreq[name] {
			return PropertyAddedRequired
		}
		return PropertyAdded
	}

	order := append(append([]string(nil), oldNames...), added...)
	for _, name := range order {
		pptr := childPtr(ptr, "properties", name)
		ppath := childPath(path, name)
		psubj := "`" + ppath + "`"
		switch {
		case inOld[name] && inNew[name]:
			os, ns := propSchema(ov.obj, name), propSchema(nv.obj, name)
			or, nr := oreq[name], nreq[name]
			if or != nr {
				opv, npv := w.old.view(os), w.new.view(ns)
				f := finding{ptr: pptr, subject: psubj, old: reqText(or), new: reqText(nr)}
				if nr {
					f.rule, f.summary = PropertyBecameRequired, fmt.Sprintf("%s became required", psubj)
				} else {
					f.rule, f.summary = PropertyBecameOptional, fmt.Sprintf("%s became optional", psubj)
				}
				before := opv.pointer(or)
				if before != npv.pointer(nr) && before != opv.pointer(nr) {
					f.goAPI, f.goWhy = true, pointerWhy(before)
				}
				w.report(f)
			}
			w.compare(pptr, ppath, os, ns, position{field: true, oldReq: or, newReq: nr})
		case inOld[name] && renamed:
			to := childPath(path, renamedTo)
			sev := removedSev(name)
			if s := rules[addedRule(renamedTo)]; w.output && s.out > sev {
				sev = s.out
			} else if !w.output && s.in > sev {
				sev = s.in
			}
			w.report(finding{rule: PropertyRenamed, ptr: pptr, subject: psubj,
				summary: fmt.Sprintf("%s renamed to `%s`", psubj, to),
				old:     name, new: renamedTo, sev: &sev, goAPI: true,
				goWhy: "The generated Go field is renamed, so code that uses it no longer compiles."})
		case inOld[name]:
			sev := removedSev(name)
			w.report(finding{rule: PropertyRemoved, ptr: pptr, subject: psubj,
				summary: fmt.Sprintf("%s removed", psubj),
				old:     valueText(propSchema(ov.obj, name)), sev: &sev, goAPI: true,
				goWhy: "The generated Go field disappears, so code that uses it no longer compiles."})
		case renamed && name == renamedTo:
			// Reported with the old name.
		default:
			rule := addedRule(name)
			summary := fmt.Sprintf("optional property %s added", psubj)
			if rule == PropertyAddedRequired {
				summary = fmt.Sprintf("required property %s added", psubj)
			}
			w.report(finding{rule: rule, ptr: pptr, subject: psubj, summary: summary,
				new: valueText(propSchema(nv.obj, name))})
		}
	}
}

func reqText(required bool) string {
	if required {
		return "required"
	}
	return "optional"
}

// compareAdditional compares additionalProperties and
// unevaluatedProperties: either set to false closes the object to
// undeclared keys.
func (w *walker) compareAdditional(ptr, path string, ov, nv *view) {
	w.compareClosing(ptr, path, "additionalProperties", ov, nv)
	w.compareClosing(ptr, path, "unevaluatedProperties", ov, nv)
}

// compareClosing compares one keyword of compareAdditional. A change of
// unevaluatedProperties that neither closes nor opens the object is a
// changed keyword, since its schema applies after the subschemas.
func (w *walker) compareClosing(ptr, path, key string, ov, nv *view) {
	o, n := ov.obj.Get(key), nv.obj.Get(key)
	if o == nil && n == nil {
		return
	}
	isClosed := func(a *jsontree.Node) bool { return a != nil && a.Kind == jsontree.Bool && !a.Bool }
	aptr := childPtr(ptr, key)
	subj := w.subject(path)
	switch {
	case !isClosed(o) && isClosed(n):
		w.report(finding{rule: AdditionalPropsClosed, ptr: aptr, subject: subj,
			summary: fmt.Sprintf("%s no longer accepts undeclared keys", subj),
			old:     valueText(o), new: valueText(n)})
	case isClosed(o) && !isClosed(n):
		w.report(finding{rule: AdditionalPropsOpened, ptr: aptr, subject: subj,
			summary: fmt.Sprintf("%s now accepts undeclared keys", subj),
			old:     valueText(o), new: valueText(n)})
	case key == "unevaluatedProperties":
		if !jsontree.Equal(o, n) {
			w.report(finding{rule: KeywordChanged, ptr: aptr, subject: "`" + key + "` of " + subj,
				old: valueText(o), new: valueText(n),
				summary: fmt.Sprintf("`%s` of %s changed", key, subj)})
		}
	default:
		w.compare(aptr, path+"{}", o, n, position{field: true, oldReq: true, newReq: true})
	}
}

// tuple returns the positional item schemas of an array schema, from
// prefixItems or from a draft-07 items array, and the keyword they are under.
func tuple(o *jsontree.Node) ([]*jsontree.Node, string) {
	if p := o.Get("prefixItems"); p != nil && p.Kind == jsontree.Array {
		return p.Items, "prefixItems"
	}
	if it := o.Get("items"); it != nil && it.Kind == jsontree.Array {
		return it.Items, "items"
	}
	return nil, ""
}

// compareItems compares items and prefixItems.
func (w *walker) compareItems(ptr, path string, ov, nv *view) {
	ot, okw := tuple(ov.obj)
	nt, nkw := tuple(nv.obj)
	if okw != "" || nkw != "" {
		kw := firstNonEmpty(nkw, okw)
		for i := 0; i < len(ot) && i < len(nt); i++ {
			idx := fmt.Sprint(i)
			w.compare(childPtr(ptr, kw, idx), fmt.Sprintf("%s[%d]", path, i), ot[i], nt[i],
				position{field: true, oldReq: true, newReq: true})
		}
		if len(ot) != len(nt) {
			subj := w.subject(path)
			w.report(finding{rule: TupleLengthChanged, ptr: childPtr(ptr, kw), subject: subj,
				summary: fmt.Sprintf("%s has %d positions instead of %d", subj, len(nt), len(ot)),
				old:     fmt.Sprint(len(ot)), new: fmt.Sprint(len(nt)), goAPI: true,
				goWhy: "The generated tuple type changes."})
		}
		if draft7Tuples(ov, nv) {
			o, _ := restItems(ov.obj, okw)
			n, key := restItems(nv.obj, nkw)
			if o != nil || n != nil {
				w.compare(childPtr(ptr, key), path+"[]", orTrue(o), orTrue(n),
					position{field: true, oldReq: true, newReq: true})
			}
			return
		}
	}
	o, n := ov.obj.Get("items"), nv.obj.Get("items")
	if (o != nil && o.Kind == jsontree.Array) || (n != nil && n.Kind == jsontree.Array) || (o == nil && n == nil) {
		return
	}
	w.compare(childPtr(ptr, "items"), path+"[]", o, n, position{field: true, oldReq: true, newReq: true})
}

// draft7Tuples reports whether both schemas are tuples and one of them
// lists its positions in a draft-07 items array: the items past the
// positions are then compared by restItems, whichever keyword holds them.
func draft7Tuples(ov, nv *view) bool {
	_, okw := tuple(ov.obj)
	_, nkw := tuple(nv.obj)
	return okw != "" && nkw != "" && (okw == "items" || nkw == "items")
}

// restItems returns the schema of the items past a tuple's positions, nil
// when it is left out, and the keyword that holds it: additionalItems
// beside a draft-07 items array, items beside prefixItems.
func restItems(o *jsontree.Node, kw string) (*jsontree.Node, string) {
	if kw == "items" {
		return o.Get("additionalItems"), "additionalItems"
	}
	return o.Get("items"), "items"
}

// branchSignature identifies a union branch across versions: its types, its
// constant, and the constants of its properties (the usual discriminator).
func (r resolver) branchSignature(b *jsontree.Node) string {
	v := r.view(b)
	types := append([]string(nil), v.types...)
	sort.Strings(types)
	sig := strings.Join(types, ",") + "|" + valueText(v.obj.Get("const"))
	if p := v.obj.Get("properties"); p != nil && p.Kind == jsontree.Object {
		var discr []string
		for _, m := range p.Members {
			if c := r.view(m.Value).obj.Get("const"); c != nil {
				discr = append(discr, m.Key+"="+jsontree.Canonical(c))
			}
		}
		sort.Strings(discr)
		sig += "|" + strings.Join(discr, ",")
	}
	return sig
}

// compareBranches compares the alternatives of anyOf/oneOf. A plain schema
// compared with a union stands for the union of its wrapped branches.
func (w *walker) compareBranches(ptr, path string, ov, nv *view, oWrapped, nWrapped []*jsontree.Node, st *nodeState) {
	subj := w.subject(path)
	type branch struct {
		n   *jsontree.Node
		ptr string
	}
	list := func(v *view, wrapped []*jsontree.Node) []branch {
		if wrapped != nil {
			out := make([]branch, len(wrapped))
			for i, b := range wrapped {
				out[i] = branch{b, ptr}
			}
			return out
		}
		out := make([]branch, len(v.union))
		for i, b := range v.union {
			out[i] = branch{b, childPtr(ptr, v.unionKW, fmt.Sprint(unionIndex(v, b)))}
		}
		return out
	}
	ob, nb := list(ov, oWrapped), list(nv, nWrapped)
	if ov.unionKW != "" && nv.unionKW != "" && ov.unionKW != nv.unionKW {
		w.report(finding{rule: UnionKindChanged, ptr: childPtr(ptr, nv.unionKW), subject: subj,
			summary: fmt.Sprintf("%s changed from %s to %s", subj, ov.unionKW, nv.unionKW),
			old:     ov.unionKW, new: nv.unionKW})
	}

	matchedOld := make([]int, len(ob)) // index+1 of the matching new branch
	matchedNew := make([]int, len(nb))
	pair := func(same func(i, j int) bool) {
		for i := range ob {
			if matchedOld[i] != 0 {
				continue
			}
			for j := range nb {
				if matchedNew[j] == 0 && same(i, j) {
					matchedOld[i], matchedNew[j] = j+1, i+1
					break
				}
			}
		}
	}
	pair(func(i, j int) bool {
		return jsontree.Canonical(ob[i].n) == jsontree.Canonical(nb[j].n) && !w.refsInside(ob[i].n, nb[j].n)
	})
	pair(func(i, j int) bool { return jsontree.Canonical(ob[i].n) == jsontree.Canonical(nb[j].n) })
	// Branches of one signature (objects without tags, say) pair by
	// likeness, so that reordering them or changing one of them does not
	// pair it with another; past maxOverlapChecks pairs, in order.
	if len(ob)*len(nb) > maxOverlapChecks {
		pair(func(i, j int) bool { return w.old.branchSignature(ob[i].n) == w.new.branchSignature(nb[j].n) })
	} else {
		type candidate struct{ i, j, score int }
		var cands []candidate
		oldViews, newViews := map[int]*view{}, map[int]*view{}
		newSigs := map[int]string{}
		for j := range nb {
			if matchedNew[j] == 0 {
				newSigs[j] = w.new.branchSignature(nb[j].n)
			}
		}
		for i := range ob {
			if matchedOld[i] != 0 {
				continue
			}
			sig := w.old.branchSignature(ob[i].n)
			for j := range nb {
				if matchedNew[j] != 0 || newSigs[j] != sig {
					continue
				}
				if oldViews[i] == nil {
					oldViews[i] = w.old.view(ob[i].n)
				}
				if newViews[j] == nil {
					newViews[j] = w.new.view(nb[j].n)
				}
				cands = append(cands, candidate{i, j, likeness(oldViews[i], newViews[j])})
			}
		}
		// The likest pairs first; among equals, the first old branch
		// takes the first new one.
		sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
		for _, c := range cands {
			if matchedOld[c.i] == 0 && matchedNew[c.j] == 0 {
				matchedOld[c.i], matchedNew[c.j] = c.j+1, c.i+1
			}
		}
	}
	var restOld, restNew []int
	for i := range ob {
		if matchedOld[i] == 0 {
			restOld = append(restOld, i)
		}
	}
	for j := range nb {
		if matchedNew[j] == 0 {
			restNew = append(restNew, j)
		}
	}
	if len(restOld) == 1 && len(restNew) == 1 {
		matchedOld[restOld[0]], matchedNew[restNew[0]] = restNew[0]+1, restOld[0]+1
		restOld, restNew = nil, nil
	}
	for i, b := range ob {
		if j := matchedOld[i]; j != 0 {
			w.compare(nb[j-1].ptr, path, b.n, nb[j-1].n, position{})
		}
	}
	for _, i := range restOld {
		api, why := true, "The generated union type loses a field."
		if st.kindChanged {
			st.goReported = true
			why = st.kindWhy
		}
		w.report(finding{rule: BranchRemoved, ptr: ob[i].ptr, subject: subj,
			summary: fmt.Sprintf("alternative removed from %s", subj),
			old:     valueText(ob[i].n), goAPI: api, goWhy: why})
	}
	var views []*view // of the new branches, made once when a oneOf gains one
	checks := maxOverlapChecks
	for _, j := range restNew {
		api, why := st.kindAPI()
		f := finding{rule: BranchAdded, ptr: nb[j].ptr, subject: subj,
			summary: fmt.Sprintf("alternative added to %s", subj),
			new:     valueText(nb[j].n), goAPI: api, goWhy: why}
		if !w.output && nv.unionKW == "oneOf" {
			if views == nil {
				views = make([]*view, len(nb))
				for k, b := range nb {
					views[k] = w.new.view(b.n)
				}
			}
			for k := range nb {
				if k == j {
					continue
				}
				// Past the budget, the branch counts as overlapping:
				// the rating that cannot hide a break.
				checks--
				if checks < 0 || !w.new.disjoint(views[j], views[k]) {
					sev := Warn
					f.sev = &sev
					f.why = "%s accepts one more alternative, which overlaps another: oneOf rejects a value that matches both, so calls that were valid may now be rejected."
					break
				}
			}
		}
		w.report(f)
	}
}

// likeness scores how much two union branches of one signature have in
// common: two points for each property both declare, and one for each
// other keyword with the same value on both sides.
func likeness(ov, nv *view) int {
	score := 0
	op, np := ov.obj.Get("properties"), nv.obj.Get("properties")
	if op != nil && op.Kind == jsontree.Object && np != nil && np.Kind == jsontree.Object {
		for _, m := range op.Members {
			if np.Has(m.Key) {
				score += 2
			}
		}
	}
	for _, m := range ov.obj.Members {
		if m.Key != "properties" && jsontree.Equal(m.Value, nv.obj.Get(m.Key)) {
			score++
		}
	}
	return score
}

// maxOverlapChecks bounds the pairs of branches compared to tell whether
// the branches a oneOf gains overlap others, and the pairs of constant or
// enum values compared for one pair of branches: every pair of a union of
// thousands of branches would take minutes. A branch left unchecked counts
// as overlapping (WARN), and values left uncompared as meeting.
const maxOverlapChecks = 1 << 16

// disjoint reports whether no value can match both union branches va and
// vb, as far as their types, their constant or enum values and a property
// both require with different values (a tag) tell.
func (r resolver) disjoint(va, vb *view) bool {
	switch {
	case va.never || vb.never:
		return true
	case va.nullable && vb.nullable:
		return false
	case len(va.types) > 0 && len(vb.types) > 0 && !typesMeet(va.types, vb.types):
		return true
	case !valuesMeet(va, vb):
		return true
	}
	rb := requiredSet(vb.obj)
	for name := range requiredSet(va.obj) {
		if rb[name] && !valuesMeet(r.view(propSchema(va.obj, name)), r.view(propSchema(vb.obj, name))) {
			return true
		}
	}
	return false
}

// typesMeet reports whether a value can have one of the types a and one
// of the types b: a type they share, or an integer, which is a number.
func typesMeet(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y || x == "integer" && y == "number" || x == "number" && y == "integer" {
				return true
			}
		}
	}
	return false
}

// valuesMeet reports whether a value can be among the values both views
// allow, by their const or enum; a view that sets neither allows any.
func valuesMeet(a, b *view) bool {
	values := func(v *view) ([]*jsontree.Node, bool) {
		if c := v.obj.Get("const"); c != nil {
			return []*jsontree.Node{c}, true
		}
		return v.enum, v.hasEnum
	}
	av, aok := values(a)
	bv, bok := values(b)
	if !aok || !bok || len(av)*len(bv) > maxOverlapChecks {
		return true
	}
	for _, x := range av {
		for _, y := range bv {
			if jsontree.Equal(x, y) {
				return true
			}
		}
	}
	return a.nullable && b.nullable
}

// unionIndex returns the index of branch b in v's union keyword as written,
// null branches included.
func unionIndex(v *view, b *jsontree.Node) int {
	if u := v.obj.Get(v.unionKW); u != nil {
		for i, it := range u.Items {
			if it == b {
				return i
			}
		}
	}
	return 0
}

// valueText renders a value for a report as compact JSON; "" when absent.
func valueText(n *jsontree.Node) string {
	if n == nil {
		return ""
	}
	return n.String()
}

// schemaText renders a whole schema view for a report.
func schemaText(v *view) string {
	if v.never {
		return "false"
	}
	if len(v.obj.Members) == 0 {
		return "true"
	}
	return v.obj.String()
}

// rat returns the value of a number node; ok is false for any other node.
func rat(n *jsontree.Node) (r *big.Rat, ok bool) {
	if n == nil || n.Kind != jsontree.Number {
		return nil, false
	}
	return new(big.Rat).SetString(n.Str)
}
