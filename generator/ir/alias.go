package ir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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
// two enums are identical when their values are, in the same order. An
// alias enum keeps constants of its own names. A tool's
// Args and Result, recursive types and the types Sharing keeps per tool
// (PerTool, Except) are never aliases, and are never aliased to.
func aliasTypes(pkg *Package, s Sharing) {
	if s.PerTool {
		return
	}
	a := &aliaser{keys: map[*Type]string{}, busy: map[*Type]bool{}, except: map[string]bool{}}
	for _, e := range s.Except {
		a.except[e] = true
	}
	first := map[string]*Type{}
	for _, t := range pkg.Types {
		if !a.eligible(t) {
			continue
		}
		k := a.key(t)
		if strings.HasPrefix(k, uniquePrefix) {
			continue
		}
		if f, ok := first[k]; ok {
			t.AliasOf = f
			continue
		}
		first[k] = t
	}
}

// aliaser computes the keys under which named structs are identical.
type aliaser struct {
	keys   map[*Type]string
	busy   map[*Type]bool
	except map[string]bool
	bufs   keyBufs
}

// eligible reports whether t may be an alias or be aliased to.
func (a *aliaser) eligible(t *Type) bool {
	if t.Kind != Struct && t.Kind != Enum || !t.IsNamed() || t.origin == "" || t.Recursive {
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

// key returns the key of the named type t: equal keys mean identical
// types. A type that can be no alias is keyed by its name, which is
// unique; so is a struct on a cycle of references.
func (a *aliaser) key(t *Type) string {
	if k, ok := a.keys[t]; ok {
		return k
	}
	unique := uniquePrefix + t.Name
	if !a.eligible(t) || a.busy[t] {
		return unique
	}
	a.busy[t] = true
	b := a.bufs.get()
	a.write(b, t, true)
	delete(a.busy, t)
	sum := sha256.Sum256(b.Bytes())
	k := hex.EncodeToString(sum[:])
	if bytes.Contains(b.Bytes(), []byte(strconv.Quote(unique))) {
		// The struct refers back to itself through other types.
		k = unique
	}
	a.bufs.put(b)
	a.keys[t] = k
	return k
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
