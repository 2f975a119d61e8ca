package ir

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
)

// allOf merges the parts of an allOf (and a $ref with sibling keywords) into
// one schema and converts that.
func (c *converter) allOf(v *jsontree.Node, ptr, hint string) (*Type, error) {
	siblings := v.Clone()
	siblings.Delete("allOf")
	siblings.Delete("$ref")
	var parts []*jsontree.Node
	var ptrs []string
	if ref := v.Get("$ref"); ref != nil {
		parts = append(parts, &jsontree.Node{Kind: jsontree.Object, Members: []jsontree.Member{{Key: "$ref", Value: ref}}})
		ptrs = append(ptrs, ptr)
	}
	if all := v.Get("allOf"); all != nil {
		if all.Kind != jsontree.Array || len(all.Items) == 0 {
			return nil, c.errf(ptr+"/allOf", "allOf must be a non-empty array")
		}
		for i, it := range all.Items {
			parts = append(parts, it)
			ptrs = append(ptrs, ptr+"/allOf/"+strconv.Itoa(i))
		}
	}
	if len(parts) == 1 && isTrivial(siblings) {
		// allOf: [{$ref}] with a description beside it, a common way to
		// describe a reference: keep the referenced type.
		if ptrs[0] == ptr {
			return c.convNode(parts[0], ptr, hint)
		}
		return c.conv(parts[0], ptrs[0], hint)
	}
	merged := &jsontree.Node{Kind: jsontree.Object}
	if err := c.mergeInto(merged, v, ptr); err != nil {
		return nil, err
	}
	return c.convNode(merged, ptr, hint)
}

// mergeInto adds the constraints of src, found at ptr, to dst, which is a
// fresh object owned by the merge, with its $ref followed and its allOf
// folded in (see schema.Flattener: each $ref target is merged once, however
// many paths reach it).
func (c *converter) mergeInto(dst, src *jsontree.Node, ptr string) error {
	if c.flat == nil {
		c.flat = &schema.Flattener{Root: c.doc, Prefix: c.rootPtr, Budget: &c.budget, Merge: c.mergeKeywords, FalseBareCycles: true,
			Leaf: func(n *jsontree.Node, ptr string) (*jsontree.Node, error) {
				if n.Kind != jsontree.Bool {
					return nil, c.errf(ptr, "schema is a JSON %s, want an object or a boolean", n.Kind)
				}
				if !n.Bool {
					c.needRaw("false schema")
				}
				return &jsontree.Node{Kind: jsontree.Object}, nil
			}}
	}
	_, err := c.flat.MergeInto(dst, src, ptr)
	if err == nil {
		return nil
	}
	var fe *schema.FlattenError
	switch {
	case errors.As(err, &fe):
		return c.errf(fe.Pointer, "%s", fe.Msg)
	default:
		return c.stepsError(err)
	}
}

// mergeKeywords adds the keywords of src, a schema without $ref or allOf
// found at ptr, to dst, as allOf does (see schema.MergeKeyword). Values
// taken from src are never modified.
func (c *converter) mergeKeywords(dst, src *jsontree.Node, ptr string) error {
	if limitsOthers(dst, src) || limitsOthers(src, dst) {
		// One part's additionalProperties applies to the properties the
		// other part names and it does not, which the merged struct makes
		// fields: the tool's own schema checks them.
		c.needRaw("additionalProperties")
	}
	for _, m := range src.Members {
		k, val := m.Key, m.Value
		old := dst.Get(k)
		switch {
		case old == nil:
			dst.Set(k, val)
		case k == "pattern" || k == patternsKey:
			more := []*jsontree.Node{val}
			if k == patternsKey {
				more = val.Items
			}
			ps := dst.Get(patternsKey)
			if ps == nil {
				ps = &jsontree.Node{Kind: jsontree.Array}
			} else {
				ps = ps.Clone()
			}
			for _, p := range more {
				if !jsontree.Equal(dst.Get("pattern"), p) && !slices.ContainsFunc(ps.Items, func(x *jsontree.Node) bool { return jsontree.Equal(x, p) }) {
					ps.Items = append(ps.Items, p)
				}
			}
			if len(ps.Items) > 0 {
				dst.Set(patternsKey, ps)
			}
		default:
			merged, ok, err := schema.MergeKeyword(k, old, val)
			switch {
			case err != nil && k == "type":
				return c.errf(ptr+"/type", "allOf parts have types %s and %s, which no value satisfies", old, val)
			case err != nil:
				return c.errf(ptr+"/"+jsontree.EscapeToken(k), "allOf parts cannot be merged: %v", err)
			case ok:
				dst.Set(k, merged)
			case rawOnly[k]:
				// The tool's own schema checks every part; the Go type keeps the
				// first.
				c.needRaw(k)
			case handled[k]:
				return c.errf(ptr+"/"+jsontree.EscapeToken(k), "allOf parts disagree on %s (%s and %s), which cannot be merged into one Go type", k, old, val)
			}
		}
	}
	return nil
}

// limitsOthers reports whether the additionalProperties (or
// patternProperties) of a, one part of an allOf, constrain a property that
// b, another part, names and a does not. Merged into one struct, such a
// property would be a field checked by b's schema alone.
func limitsOthers(a, b *jsontree.Node) bool {
	addl := a.Get("additionalProperties")
	if (addl == nil || isTrivial(addl)) && a.Get("patternProperties") == nil {
		return false
	}
	names := b.Get("properties")
	if names == nil || names.Kind != jsontree.Object {
		return false
	}
	own := a.Get("properties")
	for _, m := range names.Members {
		if own == nil || own.Kind != jsontree.Object || own.Get(m.Key) == nil {
			return true
		}
	}
	return false
}

func typeSet(v *jsontree.Node) []string { return schema.Types(v) }

// deref follows bare $refs (see isBareRef).
func (c *converter) deref(v *jsontree.Node) *jsontree.Node {
	return schema.FollowBare(c.doc, v, isBareRef)
}

// isNullSchema reports a schema that only accepts null.
func (c *converter) isNullSchema(v *jsontree.Node) bool {
	return schema.OnlyNull(c.deref(v))
}

// union converts anyOf or oneOf. Null branches make the result nullable; a
// single other branch is used as it is; several become a union type.
func (c *converter) union(v *jsontree.Node, ptr, hint string) (*Type, error) {
	key := "anyOf"
	if v.Has("oneOf") {
		if v.Has("anyOf") {
			return nil, c.errf(ptr, "anyOf and oneOf on the same schema cannot be mapped to one Go type")
		}
		key = "oneOf"
	}
	list := v.Get(key)
	if list.Kind != jsontree.Array || len(list.Items) == 0 {
		return nil, c.errf(ptr+"/"+key, "%s must be a non-empty array", key)
	}
	siblings := v.Clone()
	siblings.Delete(key)
	distribute := !isTrivial(siblings)
	if distribute && onlyRequired(list.Items) {
		// "One of these properties is required": the shape is the object
		// beside the anyOf; the tool's own schema checks which are present.
		c.needRaw(key + " of required")
		return c.convNode(siblings, ptr, hint)
	}
	var branches []*jsontree.Node
	var ptrs []string
	nullable := false
	for i, b := range list.Items {
		bp := ptr + "/" + key + "/" + strconv.Itoa(i)
		if distribute {
			merged := &jsontree.Node{Kind: jsontree.Object}
			if err := c.mergeInto(merged, siblings, ptr); err != nil {
				return nil, err
			}
			if err := c.mergeInto(merged, b, bp); err != nil {
				return nil, err
			}
			b = merged
		}
		if c.isNullSchema(b) {
			nullable = true
			continue
		}
		if isTrivial(c.deref(b)) {
			return &Type{Kind: Raw, Pointer: ptr, Doc: description(v)}, nil
		}
		branches = append(branches, b)
		ptrs = append(ptrs, bp)
	}
	if key == "oneOf" && nullable && len(branches) > 0 {
		// null matches the null branch only if no other branch accepts it,
		// which the Go mapping cannot tell apart: let the schema decide.
		for _, b := range branches {
			if acceptsNull(c.deref(b)) {
				c.needRaw("oneOf")
			}
		}
	}
	var t *Type
	switch len(branches) {
	case 0:
		c.needRaw("type null")
		return &Type{Kind: Raw, Pointer: ptr}, nil
	case 1:
		var err error
		if t, err = c.conv(branches[0], ptrs[0], hint); err != nil {
			return nil, err
		}
	default:
		u := c.named(&Type{Kind: Union, Pointer: ptr, OneOf: key == "oneOf", Doc: description(v), Default: v.Get("default")}, hint)
		fields := NewNamer(reservedFields...)
		// Branches have no names of their own: a branch type is named
		// after the union and its field. Branches that would have one
		// name (two strings) add what tells them apart, their format,
		// enum or pattern (StringURI, StringEnum), where no other of them
		// has the same; the others give XObject and XObject2 for the
		// fields Object and Object2.
		suffixes := make([]string, len(branches))
		seen := map[string]int{}
		for i, b := range branches {
			suffixes[i] = c.branchSuffix(b)
			seen[suffixes[i]]++
		}
		detailed := make([]string, len(branches))
		for i, b := range branches {
			if detailed[i] = suffixes[i]; seen[suffixes[i]] > 1 {
				detailed[i] += c.branchDetail(b)
			}
			seen[detailed[i]+"\x00"]++
		}
		for i := range branches {
			if seen[detailed[i]+"\x00"] == 1 {
				suffixes[i] = detailed[i]
			}
		}
		for i, b := range branches {
			goName := fields.Take(suffixes[i])
			bt, err := c.conv(b, ptrs[i], hint+goName)
			if err != nil {
				return nil, err
			}
			if bt.Kind == Nullable {
				// A branch that accepts null makes the union nullable.
				bt, nullable = bt.Elem, true
			}
			u.Branches = append(u.Branches, &Branch{GoName: goName, Type: bt, Kinds: bt.JSONKinds()})
		}
		t = u
	}
	if nullable && t.Kind != Nullable {
		t = &Type{Kind: Nullable, Elem: t, Pointer: ptr}
	}
	return t, nil
}

func acceptsNull(v *jsontree.Node) bool {
	if v.Kind != jsontree.Object {
		return true
	}
	t := v.Get("type")
	return t == nil || slices.Contains(typeSet(t), "null")
}

// branchDetail is what a union branch adds to its name when another branch
// has the same one: its format ("URI", "DateTime"), then "Enum" for an
// enum, "Pattern" for a pattern, or "".
func (c *converter) branchDetail(b *jsontree.Node) string {
	if isBareRef(b) {
		return ""
	}
	b = c.deref(b)
	if f, ok := b.Get("format").StringValue(); ok {
		return Exported(f, "")
	}
	if e := b.Get("enum"); e != nil && e.Kind == jsontree.Array {
		return "Enum"
	}
	if b.Has("pattern") {
		return "Pattern"
	}
	return ""
}

// branchSuffix names a union branch: after the referenced definition, its
// title, its const discriminator, or its JSON type.
func (c *converter) branchSuffix(b *jsontree.Node) string {
	if isBareRef(b) {
		return Exported(lastToken(b.Get("$ref").Str), "Value")
	}
	b = c.deref(b)
	if b.Kind != jsontree.Object {
		return "Value"
	}
	if t := b.Get("title"); t != nil && t.Kind == jsontree.String {
		if s := Exported(t.Str, ""); s != "" {
			return s
		}
	}
	if props := b.Get("properties"); props != nil && props.Kind == jsontree.Object {
		for _, m := range props.Members {
			if cv := m.Value.Get("const"); cv != nil && cv.Kind == jsontree.String {
				if s := Exported(cv.Str, ""); s != "" {
					return s
				}
			}
		}
	}
	if cv := b.Get("const"); cv != nil && cv.Kind != jsontree.Object && cv.Kind != jsontree.Array {
		if s := Exported(scalarText(cv), ""); s != "" {
			return s
		}
	}
	if t := b.Get("type"); t != nil {
		name := ""
		for _, s := range typeSet(t) {
			if s != "null" && name == "" {
				name = s
			}
		}
		switch name {
		case "string":
			return "String"
		case "integer":
			return "Int"
		case "number":
			return "Number"
		case "boolean":
			return "Bool"
		case "array":
			return "Array"
		case "object":
			return "Object"
		}
	}
	if e := b.Get("enum"); e != nil && e.Kind == jsontree.Array && len(e.Items) > 0 {
		switch e.Items[0].Kind {
		case jsontree.String:
			return "String"
		case jsontree.Number:
			return "Number"
		case jsontree.Bool:
			return "Bool"
		}
	}
	return "Value"
}

func scalarText(v *jsontree.Node) string {
	switch v.Kind {
	case jsontree.String, jsontree.Number:
		return v.Str
	case jsontree.Bool:
		return strconv.FormatBool(v.Bool)
	}
	return "null"
}

// enum converts an enum of strings, integers, numbers or booleans into a
// named type with one constant per value.
func (c *converter) enum(v *jsontree.Node, ptr, hint string) (*Type, error) {
	e := v.Get("enum")
	if e.Kind != jsontree.Array {
		return nil, c.errf(ptr+"/enum", "enum is a JSON %s, want an array", e.Kind)
	}
	var vals []*jsontree.Node
	nullable := false
	for _, it := range e.Items {
		if it.Kind == jsontree.Null {
			nullable = true
			continue
		}
		if !slices.ContainsFunc(vals, func(x *jsontree.Node) bool { return jsontree.Equal(x, it) }) {
			vals = append(vals, it)
		}
	}
	raw := func() (*Type, error) {
		c.needRaw("enum")
		return &Type{Kind: Raw, Pointer: ptr, Doc: description(v)}, nil
	}
	if len(vals) == 0 {
		return raw()
	}
	kind := vals[0].Kind
	// integral: every value is an integer an int64 holds exactly; exactFloat:
	// a float64 tells every value apart from its neighbours, which it
	// cannot do for integers beyond 2^53.
	integral, exactFloat := true, true
	for _, x := range vals {
		if x.Kind != kind {
			return raw()
		}
		if x.Kind == jsontree.Number {
			if _, ok := jsontree.Int64(x.Str); !ok {
				integral = false
			}
			if f, err := strconv.ParseFloat(x.Str, 64); err != nil || math.Abs(f) >= 1<<53 {
				exactFloat = false
			}
		}
	}
	typ := ""
	if t := v.Get("type"); t != nil {
		set := typeSet(t)
		// A null the type does not allow fails the type, listed or not.
		nullable = nullable && slices.Contains(set, "null")
		if len(set) == 1 || (len(set) == 2 && slices.Contains(set, "null")) {
			for _, s := range set {
				if s != "null" {
					typ = s
				}
			}
		} else {
			return raw()
		}
	}
	var base Kind
	switch {
	case kind == jsontree.String && (typ == "" || typ == "string"):
		base = String
	case kind == jsontree.Bool && (typ == "" || typ == "boolean"):
		base = Bool
	case kind == jsontree.Number && typ == "number" && exactFloat:
		base = Number
	case kind == jsontree.Number && integral && (typ == "" || typ == "integer"):
		base = Int
	case kind == jsontree.Number && typ == "" && exactFloat:
		base = Number
	default:
		return raw()
	}
	for _, k := range v.Keys() {
		if isAssertion(k) && k != "type" && k != "enum" {
			c.needRaw("enum")
		}
	}
	t := c.named(&Type{Kind: Enum, Base: base, Pointer: ptr, Doc: description(v), Default: v.Get("default")}, hint)
	for _, x := range vals {
		val := x
		if base == Int {
			n, _ := jsontree.Int64(x.Str)
			val = &jsontree.Node{Kind: jsontree.Number, Str: strconv.FormatInt(n, 10)}
		}
		text := scalarText(val)
		suffix := valueName(text)
		rank := spellingRank(text, suffix)
		if suffix == "" {
			suffix, rank = "Value", 2
		}
		t.Values = append(t.Values, &EnumValue{Value: val, suffix: suffix, rank: rank})
	}
	if nullable {
		return &Type{Kind: Nullable, Elem: t, Pointer: ptr}, nil
	}
	return t, nil
}

// constant converts a const into a named empty struct that encodes as the
// value.
func (c *converter) constant(v *jsontree.Node, ptr, hint string) (*Type, error) {
	cv := v.Get("const")
	if cv.Kind == jsontree.Null {
		c.needRaw("const null")
		return &Type{Kind: Raw, Pointer: ptr, Doc: description(v)}, nil
	}
	for _, k := range v.Keys() {
		if isAssertion(k) && k != "const" && k != "type" {
			c.needRaw("const")
		}
	}
	if t := v.Get("type"); t != nil {
		ok := false
		for _, s := range typeSet(t) {
			switch {
			case s == cv.Kind.String(), s == "integer" && cv.Kind == jsontree.Number, s == "number" && cv.Kind == jsontree.Number:
				ok = true
			}
		}
		if !ok {
			c.needRaw("const")
		}
	}
	return c.named(&Type{Kind: Const, Const: cv, Pointer: ptr, Doc: description(v)}, hint), nil
}

// onlyRequired reports branches that only list required properties.
func onlyRequired(branches []*jsontree.Node) bool {
	for _, b := range branches {
		if b.Kind != jsontree.Object || !b.Has("required") {
			return false
		}
		for _, k := range b.Keys() {
			if k != "required" && isAssertion(k) {
				return false
			}
		}
	}
	return true
}
