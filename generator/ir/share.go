package ir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Sharing says which named types several uses may share. The zero value
// shares every type it can.
//
// Two named types other than a tool's Args and Result are one type when
// they have the same own name (the name without the struct they are a
// field of or the tool: "HassMediaNextDeviceClass" and
// "HassMediaPauseDeviceClass" are both DeviceClass) and the same shape: the
// same kind, enum values in the same order, fields with the same JSON and
// Go names, types, requiredness, descriptions and defaults, the same
// constraints, and the same types within, compared the same way. A type
// that several tools use takes its own name; one that a single tool uses
// at several places takes the tool's prefix and its own name; one used
// once keeps the name it had. Types that refer to themselves are never
// shared.
type Sharing struct {
	// PerTool turns sharing off: every tool gets its own types, named
	// with the tool's prefix.
	PerTool bool
	// Except lists types that stay per tool: by the name they would share
	// (DeviceClass), or by a use, given as the tool name, "#" and the JSON
	// pointer of the type's schema or of the array property it is the
	// items of ("HassTurnOn#/inputSchema/properties/device_class").
	Except []string
}

// PerToolTypeError is an entry of Sharing.Except that matches no type.
type PerToolTypeError struct {
	Entry string
}

func (e *PerToolTypeError) Error() string {
	return fmt.Sprintf("%s: no shared type has this name and no type is at this pointer, so it cannot be kept per tool", e.Entry)
}

// sharer computes the shape keys of named types.
type sharer struct {
	// keys holds the key of every named type visited; busy the types whose
	// key is being computed.
	keys map[*Type]string
	busy map[*Type]bool
	// cyclic are the types a cycle of references leads back to.
	cyclic map[*Type]bool
	// except are the names and uses Sharing.Except keeps per tool; used
	// records those that matched a type.
	except map[string]bool
	used   map[string]bool
	bufs   keyBufs
}

// keyBufs lends the buffers keys are written in, one for each key being
// computed at once (a key's computation computes those of the named types
// within it), so that every key reuses the memory of the ones before it.
type keyBufs struct{ free []*bytes.Buffer }

func (p *keyBufs) get() *bytes.Buffer {
	n := len(p.free)
	if n == 0 {
		return new(bytes.Buffer)
	}
	b := p.free[n-1]
	p.free = p.free[:n-1]
	b.Reset()
	return b
}

func (p *keyBufs) put(b *bytes.Buffer) { p.free = append(p.free, b) }

// uniquePrefix starts the key of a type that shares with no other.
const uniquePrefix = "unique "

// shareTypes merges the named types of pkg that are one type under s (see
// Sharing) into the first of them, in the order of pkg.Types, and returns
// the entries of s.Except that matched no type.
func shareTypes(pkg *Package, s Sharing) []string {
	if s.PerTool {
		return nil
	}
	sh := &sharer{keys: map[*Type]string{}, busy: map[*Type]bool{}, cyclic: map[*Type]bool{}, except: map[string]bool{}, used: map[string]bool{}}
	for _, e := range s.Except {
		sh.except[e] = true
	}
	groups := map[string][]*Type{}
	var order []string
	for _, t := range pkg.Types {
		k := sh.key(t)
		if strings.HasPrefix(k, uniquePrefix) {
			continue
		}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], t)
	}
	rep := map[*Type]*Type{}
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		first := g[0]
		var tools []string
		for _, t := range g {
			if t.Name != first.Name {
				// Uses at several places of one tool: the name keeps the
				// tool's prefix and drops what tells the places apart.
				first.Name = first.toolBase + first.local
			}
			if !slices.Contains(tools, t.tool) {
				tools = append(tools, t.tool)
			}
			first.inInput = first.inInput || t.inInput
			if t != first {
				rep[t] = first
			}
		}
		if len(tools) > 1 {
			slices.Sort(tools)
			first.SharedBy = tools
			first.origin = "shared " + k
		}
	}
	if len(rep) > 0 {
		replaceTypes(pkg, rep)
	}
	var unused []string
	for _, e := range s.Except {
		if !sh.used[e] {
			unused = append(unused, e)
		}
	}
	return unused
}

// replaceTypes points every reference to a key of rep at its value, and
// drops the keys from pkg.Types.
func replaceTypes(pkg *Package, rep map[*Type]*Type) {
	seen := map[*Type]bool{}
	swap := func(t **Type) {
		if r, ok := rep[*t]; ok {
			*t = r
		}
	}
	var walk func(t *Type)
	walk = func(t *Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		swap(&t.Elem)
		swap(&t.Extra)
		walk(t.Elem)
		walk(t.Extra)
		for _, f := range t.Fields {
			swap(&f.Type)
			walk(f.Type)
		}
		for _, b := range t.Branches {
			swap(&b.Type)
			walk(b.Type)
		}
	}
	kept := pkg.Types[:0]
	for _, t := range pkg.Types {
		if _, gone := rep[t]; !gone {
			kept = append(kept, t)
		}
	}
	pkg.Types = kept
	for _, t := range pkg.Types {
		walk(t)
	}
}

// excepted reports whether Sharing.Except keeps the named type t per tool,
// and records the entries that do.
func (sh *sharer) excepted(t *Type) bool {
	if len(sh.except) == 0 {
		return false
	}
	hit := false
	for _, e := range []string{t.local, OverrideKey(t.tool, t.Pointer), OverrideKey(t.tool, strings.TrimSuffix(t.Pointer, "/items"))} {
		if sh.except[e] {
			sh.used[e] = true
			hit = true
		}
	}
	return hit
}

// key returns the shape key of t: equal keys mean one Go type. The key of a
// named type that shares with no other starts with uniquePrefix and names
// it by its origin.
func (sh *sharer) key(t *Type) string {
	if !t.IsNamed() {
		var b bytes.Buffer
		sh.write(&b, t)
		return b.String()
	}
	if k, ok := sh.keys[t]; ok {
		return k
	}
	unique := uniquePrefix + t.Name + " " + t.origin
	if t.origin == "" || t.local == "" || t.Recursive || t.perTool || sh.excepted(t) {
		sh.keys[t] = unique
		return unique
	}
	if sh.busy[t] {
		// A cycle through types not marked recursive: t is not shared,
		// and the keys of the types on the way name it by its origin.
		sh.cyclic[t] = true
		return unique
	}
	sh.busy[t] = true
	b := sh.bufs.get()
	writeQuoted(b, t.local)
	sh.write(b, t)
	delete(sh.busy, t)
	var k string
	if sh.cyclic[t] {
		k = unique
	} else {
		// A digest keeps the keys of the types that contain t short,
		// however deep the nesting.
		sum := sha256.Sum256(b.Bytes())
		k = t.local + " " + hex.EncodeToString(sum[:])
	}
	sh.bufs.put(b)
	sh.keys[t] = k
	return k
}

// write appends the shape of t to b; named types within are written as
// their keys.
func (sh *sharer) write(b *bytes.Buffer, t *Type) {
	q := func(s string) { writeQuoted(b, s) }
	// As fmt.Fprintf(b, "{%d %d %q %t %t %t ", ...) writes it, in a
	// fraction of the time: the keys name the shared types' hashes.
	b.WriteByte('{')
	b.WriteString(strconv.Itoa(int(t.Kind)))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(int(t.Base)))
	b.WriteByte(' ')
	q(t.GoType)
	for _, f := range []bool{t.Closed, t.OneOf, t.Recursive} {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatBool(f))
	}
	b.WriteByte(' ')
	q(t.Doc)
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
			q(sh.key(x))
		} else {
			sh.write(b, x)
		}
	}
	sub(" elem ", t.Elem)
	sub(" extra ", t.Extra)
	for _, f := range t.Fields {
		b.WriteString(" field ")
		q(f.JSONName)
		q(f.GoName)
		q(f.Doc)
		b.WriteString(strconv.FormatBool(f.Required))
		sub(" ", f.Type)
	}
	for _, br := range t.Branches {
		b.WriteString(" branch ")
		q(br.GoName)
		fmt.Fprint(b, br.Kinds)
		sub(" ", br.Type)
	}
	b.WriteString("}")
}

// writeConstraints appends c to b as
// fmt.Fprintf(b, " [%s %s %q %s %s %s %s %s %s %q %q %q]", ...) writes it.
func writeConstraints(b *bytes.Buffer, c *Constraints) {
	bound := func(x *Bound) {
		if x == nil {
			b.WriteByte('-')
			return
		}
		b.WriteString(x.Lit)
		b.WriteByte('/')
		b.WriteString(strconv.FormatBool(x.Exclusive))
	}
	n := func(x *int64) {
		b.WriteByte(' ')
		if x == nil {
			b.WriteByte('-')
			return
		}
		b.WriteString(strconv.FormatInt(*x, 10))
	}
	list := func(l []string) {
		b.WriteString(" [")
		for i, s := range l {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeQuoted(b, s)
		}
		b.WriteByte(']')
	}
	b.WriteString(" [")
	bound(c.Minimum)
	b.WriteByte(' ')
	bound(c.Maximum)
	b.WriteByte(' ')
	writeQuoted(b, c.MultipleOf)
	for _, x := range []*int64{c.MinLength, c.MaxLength, c.MinItems, c.MaxItems, c.MinEntries, c.MaxEntries} {
		n(x)
	}
	list(c.Patterns)
	list(c.KeyPatterns)
	b.WriteByte(' ')
	writeQuoted(b, c.Format)
	b.WriteByte(']')
}

// writeQuoted appends s to b as strconv.Quote writes it. Most texts of the
// keys, descriptions among them, are printable ASCII without a quote or a
// backslash, which need no escapes: those are copied as they are.
func writeQuoted(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			var buf [64]byte
			b.Write(strconv.AppendQuote(buf[:0], s))
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}
