package ir

import (
	"bytes"
	"strconv"
	"strings"
)

// aliasTypes makes every named struct or enum that is identical to an
// earlier one apart from its name and its description an alias of that
// one: its
// AliasOf is set to the first of them, in the order of pkg.Types. Large
// schemas repeat one object under names sharing cannot merge (see
// Sharing): Microsoft Graph's item body under each tool's own property
// name, say. As aliases they are one Go type, whose methods are compiled
// once, and each keeps its name and its doc comment.
//
// Two structs are identical when they have the same fields (JSON and Go
// names, descriptions, requiredness, types), the same constraints,
// closedness, default and Extra, and their fields' named types are the
// same types: the same declaration, or structs or enums identical in turn;
// two enums are identical when their values are, in the same order. A
// required field of a recursive type is a pointer in Go, so a struct with
// one and a struct that requires an identical type that is not recursive
// differ; the two types themselves do not. The identity of types
// on cycles of references is the largest one these rules allow, found by
// refining a partition of the types until each class holds the same shapes
// of the same classes (Microsoft Graph's chat message, whose replies are
// chat messages, is one type whichever tool sends it). An alias enum keeps
// constants of its own names. A tool's Args and Result and the types
// Sharing keeps per tool (PerTool, Except) are never aliases, and are
// never aliased to.
func aliasTypes(pkg *Package, s Sharing) {
	if s.PerTool {
		return
	}
	a := &aliaser{class: map[*Type]int{}, except: map[string]bool{}}
	for _, e := range s.Except {
		a.except[e] = true
	}
	var types []*Type
	for _, t := range pkg.Types {
		if a.eligible(t) {
			types = append(types, t)
			a.class[t] = 0
		}
	}
	// Refine until the number of classes stops growing: each round splits
	// the classes whose members' shapes, read with the classes of the round
	// before, differ. A class is never merged again, so at most len(types)
	// rounds run; schemas nest a few levels, and two or three do.
	var b bytes.Buffer
	for n := 1; ; {
		ids := map[string]int{}
		next := make(map[*Type]int, len(types))
		for _, t := range types {
			b.Reset()
			b.WriteString(strconv.Itoa(a.class[t]))
			a.write(&b, t, true)
			// Looking a []byte up converted to a string allocates nothing;
			// only a new shape is kept as a string.
			id, ok := ids[string(b.Bytes())]
			if !ok {
				id = len(ids)
				ids[string(b.Bytes())] = id
			}
			next[t] = id
		}
		a.class = next
		if len(ids) == n {
			break
		}
		n = len(ids)
	}
	first := map[int]*Type{}
	for _, t := range types {
		c := a.class[t]
		if f, ok := first[c]; ok {
			t.AliasOf = f
			continue
		}
		first[c] = t
	}
}

// aliaser holds the classes of identical named types while aliasTypes
// refines them.
type aliaser struct {
	class  map[*Type]int
	except map[string]bool
}

// eligible reports whether t may be an alias or be aliased to.
func (a *aliaser) eligible(t *Type) bool {
	if t.Kind != Struct && t.Kind != Enum || !t.IsNamed() || t.origin == "" {
		return false
	}
	if len(a.except) == 0 {
		return true
	}
	for _, e := range []string{t.local, OverrideKey(t.tool, t.Pointer), OverrideKey(t.tool, strings.TrimSuffix(t.Pointer, "/items"))} {
		if a.except[e] {
			return false
		}
	}
	return true
}

// key returns what stands for the named type t in the shape of a type
// that refers to it: the class of t, or its name, which is unique, when t
// can be no alias.
func (a *aliaser) key(t *Type) string {
	if c, ok := a.class[t]; ok {
		return "class " + strconv.Itoa(c)
	}
	return uniquePrefix + t.Name
}

// write appends the shape of t to b, leaving out the description of a
// named type when top is set: an alias keeps its own doc comment.
func (a *aliaser) write(b *bytes.Buffer, t *Type, top bool) {
	q := func(s string) { writeQuoted(b, s) }
	b.WriteString("{")
	b.WriteString(strconv.Itoa(int(t.Kind)))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(int(t.Base)))
	b.WriteByte(' ')
	q(t.GoType)
	if t.Closed {
		b.WriteString(" closed")
	}
	if t.OneOf {
		b.WriteString(" oneOf")
	}
	if !top {
		q(t.Doc)
	}
	if t.Default != nil {
		q("default " + t.Default.String())
	}
	if t.Const != nil {
		q("const " + t.Const.String())
	}
	writeConstraints(b, &t.Constraints)
	for _, v := range t.Values {
		q("value " + v.Value.String())
	}
	sub := func(label string, x *Type) {
		if x == nil {
			return
		}
		b.WriteString(label)
		if x.IsNamed() {
			q(a.key(x))
		} else {
			a.write(b, x, false)
		}
	}
	sub(" elem ", t.Elem)
	sub(" extra ", t.Extra)
	for _, f := range t.Fields {
		b.WriteString(" field ")
		q(f.JSONName)
		q(f.GoName)
		q(f.Doc)
		if f.Required {
			b.WriteString(" required")
			if (f.Type.Kind == Struct || f.Type.Kind == Union) && f.Type.Recursive {
				// A pointer in Go, where a value of an identical type
				// that is not recursive is not (see the emitter's
				// fieldPointer).
				b.WriteString(" pointer")
			}
		}
		sub(" ", f.Type)
	}
	for _, br := range t.Branches {
		b.WriteString(" branch ")
		q(br.GoName)
		for _, k := range br.Kinds {
			b.WriteString(strconv.Itoa(int(k)))
		}
		sub(" ", br.Type)
	}
	b.WriteString("}")
}
