package schema

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// Limits of a Flattener.
const (
	// DefaultMaxFlattenDepth bounds how many levels of $ref and allOf one
	// schema may nest.
	DefaultMaxFlattenDepth = 64
	// DefaultMaxSteps is how many steps one schema may take (see Budget).
	DefaultMaxSteps = 50000
)

// Budget counts the steps of work done on one schema, so that a schema
// reaching its definitions through very many paths stops with an error
// instead of running away. A consumer that does work of its own per node
// (a conversion) counts it in the same budget.
type Budget struct {
	// Max is the most steps allowed; zero means DefaultMaxSteps.
	Max int
	// Steps counts the steps taken so far.
	Steps int
	// Check, when set, is asked at every step, for example whether the
	// caller's context is done.
	Check func(ptr string) error
}

// StepsError reports a schema that took more than Budget.Max steps, at the
// JSON pointer where the limit was reached.
type StepsError struct {
	Pointer string
	Max     int
}

func (e *StepsError) Error() string {
	return fmt.Sprintf("%s: the schema takes more than %d steps: it reaches its definitions through too many paths", pointerText(e.Pointer), e.Max)
}

// Step counts one step at ptr. It returns a *StepsError once the budget
// is spent, or the error of Check.
func (b *Budget) Step(ptr string) error {
	b.Steps++
	limit := b.Max
	if limit <= 0 {
		limit = DefaultMaxSteps
	}
	if b.Steps > limit {
		return &StepsError{Pointer: ptr, Max: limit}
	}
	if b.Check != nil {
		return b.Check(ptr)
	}
	return nil
}

// FlattenError is a schema that cannot be flattened: a $ref that is not a
// string or does not resolve, an allOf that is not an array, a recursive
// $ref, or $ref and allOf nested too deep. Pointer locates it.
type FlattenError struct {
	Pointer, Msg string
	// TooDeep marks $ref and allOf nested deeper than MaxDepth: the
	// schema may be valid, only too deep to flatten.
	TooDeep bool
}

func (e *FlattenError) Error() string { return pointerText(e.Pointer) + ": " + e.Msg }

func pointerText(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}

// errCut stops following a reference in lenient mode.
var errCut = errors.New("cut")

// Flattener makes the merged view of the schemas of one document: a schema
// with its $ref followed and its allOf parts folded in, as one object
// without either keyword. It is the module's one walk over $ref and allOf;
// consumers keep only their own decisions, in Merge and Leaf.
//
// The keywords are merged in this order: the schema's own, then the
// $ref's target, then each allOf part. Beside a $ref, only the keywords
// that apply in the document's draft are read (see Draft.RefSiblings): up
// to draft-07 an allOf beside a $ref is ignored too. Each $ref target is flattened
// once and its result shared by every use, so that a target reached
// through many paths (allOf: [{$ref: X}, {$ref: X}] at every level of a
// chain) costs one walk, not one per path. A Flattener is not safe for
// concurrent use.
type Flattener struct {
	// Root is the document $refs resolve in.
	Root *jsontree.Node
	// Prefix is put before the JSON pointers of $ref targets (for errors
	// and Merge), to name where the document itself is.
	Prefix string
	// MaxDepth bounds the levels of $ref and allOf; zero means
	// DefaultMaxFlattenDepth.
	MaxDepth int
	// Budget counts one step per schema walked; nil means a budget of
	// DefaultMaxSteps of the Flattener's own.
	Budget *Budget
	// Lenient keeps a $ref that does not resolve, recurses, or nests too
	// deep as it is written, instead of failing; an allOf that is not an
	// array, or a $ref that is not a string, is left out.
	Lenient bool
	// Merge adds the keywords of src, a flattened schema found at ptr, to
	// dst, an object that belongs to the walk. It must not change src or
	// the values it holds: they may be shared. A nil Merge sets each
	// keyword of src, later ones winning.
	Merge func(dst, src *jsontree.Node, ptr string) error
	// FalseBareCycles reads a $ref that leads back to itself through bare
	// $refs only (see BareCycle) as the false schema, made by Leaf, instead
	// of failing: validators refuse every value there.
	FalseBareCycles bool
	// Leaf returns the object that stands for a schema that is not one
	// (true, false, or a JSON value that is no schema), or an error. A nil
	// Leaf reads true as {}, false as {"not": {}}, and fails on the rest.
	Leaf func(n *jsontree.Node, ptr string) (*jsontree.Node, error)
	// Flattens counts the schemas walked.
	Flattens int

	memo   map[string]*flat
	active []string
	// draft is the draft of Root, once read.
	draft *Draft
}

// flat is one flattened schema: the merged object, the targets of the
// $refs it followed (as "#" and their JSON pointer), how many levels of
// $ref and allOf it took, and whether a lenient walk stopped inside it,
// which makes it depend on where it was reached.
type flat struct {
	node   *jsontree.Node
	refs   []string
	height int
	cut    bool
}

// Flatten returns the merged view of n, found at ptr, and the $ref targets
// it followed, each once, as "#" and their JSON pointer. A schema with
// neither $ref nor allOf is returned as it is.
func (f *Flattener) Flatten(n *jsontree.Node, ptr string) (*jsontree.Node, []string, error) {
	r, err := f.flatten(n, ptr, 0)
	if err != nil {
		return nil, nil, err
	}
	return r.node, r.refs, nil
}

// Plain reports whether n is an object without $ref and allOf, which
// Flatten would return as it is with no $ref followed, and if so counts the
// step Flatten would count. It lets a walk that makes a node's JSON pointer
// only for messages skip making it for such nodes. It reports false when
// the step would call the budget's Check or exceed its Max: Flatten then
// takes the step and reports it.
func (f *Flattener) Plain(n *jsontree.Node) bool {
	if n.Kind != jsontree.Object || n.Has("$ref") || n.Has("allOf") {
		return false
	}
	if f.Budget == nil {
		f.Budget = &Budget{}
	}
	b := f.Budget
	limit := b.Max
	if limit <= 0 {
		limit = DefaultMaxSteps
	}
	if b.Check != nil || b.Steps >= limit {
		return false
	}
	b.Steps++
	f.Flattens++
	return true
}

// MergeInto flattens n, found at ptr, and merges it into dst, an object
// that belongs to the caller. It returns the $ref targets followed.
func (f *Flattener) MergeInto(dst, n *jsontree.Node, ptr string) ([]string, error) {
	r, err := f.flatten(n, ptr, 0)
	if err != nil {
		return nil, err
	}
	return r.refs, f.merge(dst, r.node, ptr)
}

func (f *Flattener) merge(dst, src *jsontree.Node, ptr string) error {
	if f.Merge != nil {
		return f.Merge(dst, src, ptr)
	}
	for _, m := range src.Members {
		dst.Set(m.Key, m.Value)
	}
	return nil
}

func (f *Flattener) leaf(n *jsontree.Node, ptr string) (*jsontree.Node, error) {
	if f.Leaf != nil {
		return f.Leaf(n, ptr)
	}
	if n.Kind == jsontree.Bool {
		if n.Bool {
			return &jsontree.Node{Kind: jsontree.Object}, nil
		}
		return &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{{Key: "not", Value: &jsontree.Node{Kind: jsontree.Object}}}}, nil
	}
	return nil, &FlattenError{Pointer: ptr, Msg: fmt.Sprintf("schema is a JSON %s, want an object or a boolean", n.Kind)}
}

func (f *Flattener) maxDepth() int {
	if f.MaxDepth > 0 {
		return f.MaxDepth
	}
	return DefaultMaxFlattenDepth
}

func (f *Flattener) tooDeep(ptr string) error {
	if f.Lenient {
		return errCut
	}
	return &FlattenError{Pointer: ptr, Msg: fmt.Sprintf("$ref and allOf nest more than %d levels", f.maxDepth()), TooDeep: true}
}

func (f *Flattener) flatten(n *jsontree.Node, ptr string, depth int) (flat, error) {
	if depth > f.maxDepth() {
		return flat{}, f.tooDeep(ptr)
	}
	if f.Budget == nil {
		f.Budget = &Budget{}
	}
	if err := f.Budget.Step(ptr); err != nil {
		if f.Lenient {
			return flat{}, errCut
		}
		return flat{}, err
	}
	f.Flattens++
	if n.Kind != jsontree.Object {
		node, err := f.leaf(n, ptr)
		return flat{node: node}, err
	}
	ref, all := n.Get("$ref"), n.Get("allOf")
	if ref == nil && all == nil {
		return flat{node: n}, nil
	}
	res := flat{node: &jsontree.Node{Kind: jsontree.Object}}
	var target *flat
	var targetPtr string
	keepRef := false
	if ref != nil {
		switch s, ok := ref.StringValue(); {
		case !ok && !f.Lenient:
			return flat{}, &FlattenError{Pointer: ptr + "/$ref", Msg: fmt.Sprintf("$ref is a JSON %s, want a string", ref.Kind)}
		case ok:
			t, tptr, err := Resolve(f.Root, s)
			if err != nil {
				if !f.Lenient {
					return flat{}, &FlattenError{Pointer: ptr + "/$ref", Msg: err.Error()}
				}
				keepRef = true
				break
			}
			r, err := f.target(t, tptr, s, ptr, depth+1)
			switch {
			case err == errCut:
				keepRef, res.cut = true, true
			case err != nil:
				return flat{}, err
			default:
				target, targetPtr = &r, f.Prefix+tptr
			}
		}
	}
	own := &jsontree.Node{Kind: jsontree.Object}
	if f.draft == nil {
		d := DraftOf(f.Root)
		f.draft = &d
	}
	draft := *f.draft
	for _, m := range n.Members {
		if m.Key == "$ref" || m.Key == "allOf" || target != nil && !draft.RefSibling(m.Key) {
			continue
		}
		own.Members = append(own.Members, m)
	}
	if keepRef {
		own.Set("$ref", ref)
	}
	if err := f.merge(res.node, own, ptr); err != nil {
		return flat{}, err
	}
	if target != nil {
		res.refs, res.height, res.cut = addRefs(res.refs, target.refs), target.height+1, res.cut || target.cut
		if err := f.merge(res.node, target.node, targetPtr); err != nil {
			return flat{}, err
		}
	}
	if all != nil && (target == nil || draft.RefSibling("allOf")) {
		if all.Kind != jsontree.Array {
			if f.Lenient {
				return res, nil
			}
			return flat{}, &FlattenError{Pointer: ptr + "/allOf", Msg: "allOf must be an array"}
		}
		for i, it := range all.Items {
			ip := ptr + "/allOf/" + strconv.Itoa(i)
			r, err := f.flatten(it, ip, depth+1)
			if err == errCut {
				res.cut = true
				continue
			}
			if err != nil {
				return flat{}, err
			}
			res.refs, res.height, res.cut = addRefs(res.refs, r.refs), max(res.height, r.height+1), res.cut || r.cut
			if err := f.merge(res.node, r.node, ip); err != nil {
				return flat{}, err
			}
		}
	}
	return res, nil
}

// target flattens t, the target of the reference s at ptr, at JSON pointer
// tptr, once per Flattener: later uses share the first result, and still
// fail when the levels it took would nest too deep from where they are.
func (f *Flattener) target(t *jsontree.Node, tptr, s, ptr string, depth int) (flat, error) {
	if m, ok := f.memo[tptr]; ok {
		if depth+m.height > f.maxDepth() {
			return flat{}, f.tooDeep(ptr)
		}
		return *m, nil
	}
	if slices.Contains(f.active, tptr) {
		if f.Lenient {
			return flat{}, errCut
		}
		if f.FalseBareCycles && BareCycle(f.Root, t) {
			// The loop from t back to t holds bare $refs only: the walk
			// from t followed the one chain BareCycle follows, or it
			// would have come back to another schema first.
			node, err := f.leaf(&jsontree.Node{Kind: jsontree.Bool}, f.Prefix+tptr)
			return flat{node: node}, err
		}
		return flat{}, &FlattenError{Pointer: ptr + "/$ref", Msg: fmt.Sprintf("$ref %q is reached again inside itself: a recursive schema cannot be merged", s)}
	}
	f.active = append(f.active, tptr)
	r, err := f.flatten(t, f.Prefix+tptr, depth)
	f.active = f.active[:len(f.active)-1]
	if err != nil {
		return flat{}, err
	}
	r.refs = addRefs([]string{"#" + escapeFragment(tptr)}, r.refs)
	if !r.cut {
		if f.memo == nil {
			f.memo = map[string]*flat{}
		}
		f.memo[tptr] = &r
	}
	return r, nil
}

// addRefs appends to list the references it does not hold yet.
func addRefs(list, refs []string) []string {
	for _, r := range refs {
		if !slices.Contains(list, r) {
			list = append(list, r)
		}
	}
	return list
}

// FollowBare follows bare $refs from n and returns the schema they end at:
// those bare reports, or, when bare is nil, those BareRef reports. It
// stops at a $ref that does not resolve, after DefaultMaxFlattenDepth
// steps (a cycle), or at a schema that is not a bare $ref.
func FollowBare(root, n *jsontree.Node, bare func(*jsontree.Node) bool) *jsontree.Node {
	if bare == nil {
		bare = BareRef
	}
	for i := 0; i < DefaultMaxFlattenDepth && bare(n); i++ {
		t, _, err := Resolve(root, n.Get("$ref").Str)
		if err != nil {
			return n
		}
		n = t
	}
	return n
}

// BareCycle reports whether the bare $refs followed from n lead back to a
// schema they passed, never to a schema that constrains anything: a $ref
// to itself, x → y → x, or a chain into such a loop, through pointers or
// $anchors. A schema is bare here when the keywords beside its string $ref
// constrain nothing: annotations, $anchor, $defs and the like, and, up to
// draft-07, any keyword, which the $ref makes validators ignore. JSON
// Schema leaves such a loop undefined; validators refuse every value that
// reaches it (the one behind runtime.Schema reports a reference cycle) or
// never end. BareCycle reports false at a $ref that does not resolve, and
// after DefaultMaxFlattenDepth steps.
func BareCycle(root, n *jsontree.Node) bool {
	draft := DraftOf(root)
	var seen []string
	for range DefaultMaxFlattenDepth {
		if !refOnly(n, draft) {
			return false
		}
		t, ptr, err := Resolve(root, n.Get("$ref").Str)
		if err != nil {
			return false
		}
		if slices.Contains(seen, ptr) {
			return true
		}
		seen = append(seen, ptr)
		n = t
	}
	return false
}

// refOnly reports whether n is a string $ref whose other keywords
// constrain nothing in draft d (see BareCycle).
func refOnly(n *jsontree.Node, d Draft) bool {
	if n == nil || n.Kind != jsontree.Object {
		return false
	}
	if _, ok := n.Get("$ref").StringValue(); !ok {
		return false
	}
	for _, m := range n.Members {
		switch {
		case m.Key == "$ref", Annotation(m.Key), !d.RefSibling(m.Key):
		case m.Key == "$anchor", m.Key == "$dynamicAnchor", m.Key == "$defs", m.Key == "definitions", m.Key == "$schema", m.Key == "$id", m.Key == "id":
		default:
			return false
		}
	}
	return true
}

// BareRef reports a schema that is a string $ref with only annotations
// beside it.
func BareRef(n *jsontree.Node) bool {
	if n == nil || n.Kind != jsontree.Object {
		return false
	}
	if _, ok := n.Get("$ref").StringValue(); !ok {
		return false
	}
	for _, m := range n.Members {
		if m.Key != "$ref" && !Annotation(m.Key) {
			return false
		}
	}
	return true
}
