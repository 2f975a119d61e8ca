package provschema

import (
	"slices"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
)

// StripAddedNulls undoes what Strict did to arguments: it removes every
// property whose value is null where the server's schema has the property
// optional and not nullable, which is how a strict-mode model says it left
// the property out. doc is the server's whole input schema (for $refs) and
// args the model's arguments. Arguments that do not parse are returned as
// they are, for the validator to report.
func StripAddedNulls(doc *jsontree.Node, args []byte) []byte {
	v, err := jsontree.ParseUnique(args)
	if err != nil || v.Kind != jsontree.Object {
		return args
	}
	doc = schema.StaticRefs(doc)
	r := &nulls{flat: &schema.Flattener{Root: doc, Lenient: true, Merge: func(dst, src *jsontree.Node, _ string) error {
		return rootMerge(dst, src, "")
	}}, views: map[*jsontree.Node]*jsontree.Node{}}
	if !r.strip(doc, v, 0) {
		return args
	}
	return []byte(v.String())
}

// nulls reads the server's schema for StripAddedNulls.
type nulls struct {
	// flat follows $ref and merges allOf (see schema.Flattener).
	flat *schema.Flattener
	// views holds the view of each schema object flattened so far (nil
	// for one that cannot be), so that the Flattener's step budget bounds
	// the schema's work, not the number of values in the arguments.
	views map[*jsontree.Node]*jsontree.Node
}

// view returns s with its $ref followed and its allOf merged, and false
// when s is no schema object or holds a $ref that cannot be followed.
func (r *nulls) view(s *jsontree.Node, depth int) (*jsontree.Node, bool) {
	if depth > 64 || s == nil || s.Kind != jsontree.Object {
		return nil, false
	}
	if out, ok := r.views[s]; ok {
		return out, out != nil
	}
	out, _, err := r.flat.Flatten(s, "")
	if err != nil || out.Has("$ref") {
		out = nil
	}
	r.views[s] = out
	return out, out != nil
}

// strip walks value v along schema s and reports whether it removed
// anything.
func (r *nulls) strip(s, v *jsontree.Node, depth int) bool {
	s, ok := r.view(s, depth)
	if !ok {
		return false
	}
	changed := false
	for _, key := range []string{"anyOf", "oneOf"} {
		if u := s.Get(key); u != nil {
			if b := r.branch(u.Items, v, depth); b != nil {
				changed = r.strip(b, v, depth+1) || changed
			}
		}
	}
	switch v.Kind {
	case jsontree.Object:
		props := s.Get("properties")
		if props == nil {
			return changed
		}
		required := Required(s)
		kept := v.Members[:0]
		for _, m := range v.Members {
			ps := props.Get(m.Key)
			if m.Value.Kind == jsontree.Null && ps != nil && !slices.Contains(required, m.Key) && !r.acceptsNull(ps, depth) {
				changed = true
				continue
			}
			if ps != nil {
				changed = r.strip(ps, m.Value, depth+1) || changed
			}
			kept = append(kept, m)
		}
		v.Members = kept
	case jsontree.Array:
		if items := s.Get("items"); items != nil {
			for _, it := range v.Items {
				changed = r.strip(items, it, depth+1) || changed
			}
		}
	}
	return changed
}

// branch returns the union branch that describes v, or nil: of the
// branches whose type fits v, for an object the one whose properties take
// the most of v's keys and whose const and enum properties v's values
// match (so a tagged union's tag picks its branch), else the first.
func (r *nulls) branch(branches []*jsontree.Node, v *jsontree.Node, depth int) *jsontree.Node {
	var first, best *jsontree.Node
	bestScore := -1
	for _, b := range branches {
		if !r.matchesKind(b, v, depth) {
			continue
		}
		if first == nil {
			first = b
		}
		if v.Kind != jsontree.Object {
			break
		}
		if score := r.fit(b, v, depth); score > bestScore {
			best, bestScore = b, score
		}
	}
	if best != nil {
		return best
	}
	return first
}

// fit returns how many of object v's keys the properties of branch b
// declare, or -1 when a value of v is not one of the values b's const or
// enum allows for its key.
func (r *nulls) fit(b, v *jsontree.Node, depth int) int {
	b, ok := r.view(b, depth)
	if !ok {
		return -1
	}
	props := b.Get("properties")
	if props == nil {
		return 0
	}
	score := 0
	for _, m := range v.Members {
		ps := props.Get(m.Key)
		if ps == nil {
			continue
		}
		score++
		if ps.Kind != jsontree.Object || m.Value.Kind == jsontree.Null {
			continue
		}
		if c := ps.Get("const"); c != nil && c.String() != m.Value.String() {
			return -1
		}
		if e := ps.Get("enum"); e != nil && e.Kind == jsontree.Array && !slices.ContainsFunc(e.Items, func(x *jsontree.Node) bool { return x.String() == m.Value.String() }) {
			return -1
		}
	}
	return score
}

// matchesKind reports whether a union branch could describe v, judging by
// its type only.
func (r *nulls) matchesKind(s, v *jsontree.Node, depth int) bool {
	s, ok := r.view(s, depth)
	if !ok {
		return false
	}
	types := schema.Types(s.Get("type"))
	if len(types) == 0 {
		return v.Kind == jsontree.Object && s.Has("properties") || v.Kind == jsontree.Array && s.Has("items")
	}
	return slices.Contains(types, v.Kind.String()) || v.Kind == jsontree.Number && slices.Contains(types, "integer")
}

// acceptsNull reports whether a schema of the server accepts null: every
// keyword that constrains null (const, enum, anyOf, oneOf, type, and
// without a type nullable) must let it through.
func (r *nulls) acceptsNull(s *jsontree.Node, depth int) bool {
	if s.Kind == jsontree.Bool {
		return s.Bool
	}
	s, ok := r.view(s, depth)
	if !ok {
		return false
	}
	if k := s.Get("const"); k != nil && k.Kind != jsontree.Null {
		return false
	}
	if e := s.Get("enum"); e != nil && !slices.ContainsFunc(e.Items, isNull) {
		return false
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if u := s.Get(key); u != nil && !slices.ContainsFunc(u.Items, func(b *jsontree.Node) bool { return r.acceptsNull(b, depth+1) }) {
			return false
		}
	}
	if t := s.Get("type"); t != nil {
		return slices.Contains(schema.Types(t), "null")
	}
	if n := s.Get("nullable"); n != nil {
		return n.Kind == jsontree.Bool && n.Bool
	}
	return true
}
