package mcpimpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime/internal/integral"
)

// A generated struct describes its members with struct tags, which
// DecodeObject reads once per type: the json tag names a member, and a
// member without omitempty or omitzero is required. The mcpgen tag adds
// what the json tag cannot say:
//
//	mcpgen:"nullable"      the member may be null
//	mcpgen:"nonnullelems"  the member is an array or object whose elements must not be null,
//	                       nor those of the arrays and objects in it, at any depth
//	mcpgen:"nonnullelems=LEVELS"
//	                       only the elements at the levels marked 1 in LEVELS must not be
//	                       null: "01" refuses [[null]] and allows [null]; levels past
//	                       its end may be null
//
// The levels of elements are those of the member's Go type: each slice or
// map in it, down to an element that is neither or that decodes itself. A
// pointer or json.RawMessage element may be null at any level. The Extra
// field takes the flag of the map it is, and a union branch (see
// DecodeTaggedUnion) that of its value.
//
// A field named Extra tagged json:"-" holds the members that are not
// fields, for a schema whose additionalProperties has one.

// TagKey is the struct tag key of the flags above.
const TagKey = "mcpgen"

// objectShape describes the members of a generated struct.
type objectShape struct {
	fields []fieldShape
	// plain is the struct's type without its methods: encoding/json
	// decodes into it without calling UnmarshalJSON again.
	plain reflect.Type
	// extra is the index of the Extra field, or -1.
	extra int
	// extraNulls is the nonnullelems flag of the Extra field.
	extraNulls elemNulls
	err        error
}

// fieldShape is one member of an objectShape.
type fieldShape struct {
	name     string
	folded   string // name as foldName folds it
	index    int    // of the field in the struct
	typ      reflect.Type
	required bool
	nullable bool
	nonNull  elemNulls
	// nested is set when the member can hold objects that no UnmarshalJSON
	// of their own checks (see checkValue).
	nested bool
	// recursive is set when the member can hold values of a type that
	// refers to itself, whose nesting is bounded (see checkValue).
	recursive bool
}

var objectShapes sync.Map // reflect.Type of the struct → *objectShape

// shapeOf returns the shape of the generated struct type t.
func shapeOf(t reflect.Type) *objectShape {
	if s, ok := objectShapes.Load(t); ok {
		return s.(*objectShape)
	}
	s, _ := objectShapes.LoadOrStore(t, newObjectShape(t))
	return s.(*objectShape)
}

func newObjectShape(t reflect.Type) *objectShape {
	s := &objectShape{extra: -1}
	fields := make([]reflect.StructField, t.NumField())
	for i := range fields {
		f := t.Field(i)
		fields[i] = reflect.StructField{Name: f.Name, PkgPath: f.PkgPath, Type: f.Type, Tag: f.Tag}
		if !f.IsExported() {
			continue // the blank DoNotCompare field, which is no member
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			if f.Name == "Extra" && f.Type.Kind() == reflect.Map {
				s.extra = i
				s.extraNulls = parseElemNulls(f.Tag.Get(TagKey))
			}
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		flags := "," + f.Tag.Get(TagKey) + ","
		s.fields = append(s.fields, fieldShape{
			name:      name,
			folded:    foldName(name),
			index:     i,
			typ:       f.Type,
			nested:    parentChecked(f.Type),
			recursive: recursive(f.Type),
			required:  !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,"),
			nullable:  strings.Contains(flags, ",nullable,"),
			nonNull:   parseElemNulls(f.Tag.Get(TagKey)),
		})
	}
	s.plain = reflect.StructOf(fields)
	// The two types have the same fields in the same order, so the same
	// layout; check it rather than trust it.
	if s.plain.Size() != t.Size() {
		s.err = fmt.Errorf("decoding %s: its fields do not lay out as a plain struct", t)
		return s
	}
	for i := range fields {
		if s.plain.Field(i).Offset != t.Field(i).Offset {
			s.err = fmt.Errorf("decoding %s: its fields do not lay out as a plain struct", t)
		}
	}
	return s
}

// DecodeObject decodes the JSON object data into v, a pointer to a
// generated struct, after checking its members against the struct's tags:
// required members are present, only nullable members (and elements) are
// null, and, if closed, there is no member the struct does not name. A
// struct with an Extra field gets the other members there instead.
// encoding/json would otherwise accept those payloads silently. An object
// that repeats a key, at any depth, is refused as runtime.Schema refuses it:
// encoding/json would check every value given, and merge the objects and
// maps given twice into one that none of them was. A value of a recursive
// type nested more than 128 arrays and objects deep is refused, since each
// level is checked apart (see runtime.MaxRecursiveNesting). Every error is a
// *runtime.ValidationError with the JSON pointer of the value that failed.
func DecodeObject(data []byte, v any, closed bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("decoding an object into %T: not a pointer to a struct", v)
	}
	s := shapeOf(rv.Type().Elem())
	if s.err != nil {
		return s.err
	}
	bounded := selfReferent(rv.Type().Elem())
	if bounded {
		if err := checkNesting(data); err != nil {
			return err
		}
	}
	if dup, ok := jsontree.CheckUniqueKeys(data).(*jsontree.DuplicateKeyError); ok {
		return Invalid(dup.Pointer, dup.Error())
	}
	folded := false
	members, err := checkMembers(data, s, closed && s.extra < 0, &folded)
	if err != nil {
		return err
	}
	if err := s.checkNested(members, rv.Type().Elem(), &folded, bounded); err != nil {
		return err
	}
	if folded {
		data = exactMembers(data, rv.Type().Elem())
	}
	plain := reflect.NewAt(s.plain, rv.UnsafePointer()).Interface()
	if err := integral.Unmarshal(data, plain); err != nil {
		return decodeError(data, plain, err)
	}
	if s.extra >= 0 {
		return decodeExtra(members, s, rv.Elem().Field(s.extra))
	}
	return nil
}

// checkMembers checks the members of the JSON object data against s and
// returns them. It sets *folded when a member that is no field's name
// matches one but for case, which encoding/json would decode into that
// field (see exactMembers).
func checkMembers(data []byte, s *objectShape, closed bool, folded *bool) (map[string]json.RawMessage, error) {
	if k := JSONKind(data); k != KindObject {
		return nil, Invalid("", "must be an object, not "+kindName(k))
	}
	members, err := splitObject(data)
	if err != nil {
		return nil, err
	}
	present := 0
	for i := range s.fields {
		f := &s.fields[i]
		v, ok := members[f.name]
		if !ok {
			if f.required {
				return nil, Invalid("", fmt.Sprintf("missing required property %q", f.name))
			}
			continue
		}
		present++
		k := JSONKind(v)
		if k == KindNull && !f.nullable {
			return nil, Invalid(Pointer(f.name), "must not be null")
		}
		if f.nonNull.set && (k == KindArray || k == KindObject) {
			if err := f.nonNull.check(v, f.typ); err != nil {
				return nil, Within(err, f.name)
			}
		}
	}
	if present < len(members) {
		for name := range members {
			if s.known(name) {
				continue
			}
			if closed {
				return nil, Invalid("", fmt.Sprintf("unknown property %q is not allowed", name))
			}
			if s.foldsToField(name) {
				*folded = true
			}
		}
	}
	return members, nil
}

// foldsToField reports whether name, which is no field's name, matches one
// but for case, as encoding/json matches names.
func (s *objectShape) foldsToField(name string) bool {
	folded := foldName(name)
	for i := range s.fields {
		if s.fields[i].folded == folded {
			return true
		}
	}
	return false
}

// foldName folds the case of name as encoding/json does when it matches
// a member to a field: each letter is mapped to its lower case, then to
// the upper case of that, so that "ſ" matches "s" and "İ" matches "i".
func foldName(name string) string {
	return strings.Map(func(r rune) rune { return unicode.ToUpper(unicode.ToLower(r)) }, name)
}

// exactMembers returns data, the JSON of a value of type t, without the
// members of its objects that are not their struct's fields. encoding/json
// decodes a member into the field whose name it matches but for case
// ("Name" into the field of "name") when no member has the field's exact
// name, or after it; JSON Schema, and the server, take such a member for
// another property. Dropped here, it goes only to Extra, if the struct has
// one, as every other member that is no field does.
func exactMembers(data []byte, t reflect.Type) []byte {
	switch t.Kind() {
	case reflect.Pointer:
		if JSONKind(data) == KindNull || !parentChecked(t.Elem()) {
			return data
		}
		return exactMembers(data, t.Elem())
	case reflect.Slice, reflect.Array:
		if !parentChecked(t.Elem()) || JSONKind(data) != KindArray {
			return data
		}
		items, err := splitArray(data)
		if err != nil {
			return data
		}
		for i := range items {
			items[i] = exactMembers(items[i], t.Elem())
		}
		return marshalOr(items, data)
	case reflect.Map:
		if !parentChecked(t.Elem()) || JSONKind(data) != KindObject {
			return data
		}
		members, err := splitObject(data)
		if err != nil {
			return data
		}
		for name, raw := range members {
			members[name] = exactMembers(raw, t.Elem())
		}
		return marshalOr(members, data)
	case reflect.Struct:
		s := shapeOf(t)
		if s.err != nil || JSONKind(data) != KindObject {
			return data
		}
		members, err := splitObject(data)
		if err != nil {
			return data
		}
		kept := make(map[string]json.RawMessage, len(members))
		for i := range s.fields {
			f := &s.fields[i]
			raw, ok := members[f.name]
			if !ok {
				continue
			}
			if f.nested {
				raw = exactMembers(raw, t.Field(f.index).Type)
			}
			kept[f.name] = raw
		}
		return marshalOr(kept, data)
	}
	return data
}

// marshalOr returns the JSON encoding of v, or data if v does not encode.
func marshalOr(v any, data []byte) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		return data
	}
	return out
}

// known reports whether name is a field of s.
func (s *objectShape) known(name string) bool {
	for i := range s.fields {
		if s.fields[i].name == name {
			return true
		}
	}
	return false
}

// decodeExtra decodes the members that are not fields of s into the map
// extra, which it leaves nil when there are none.
func decodeExtra(members map[string]json.RawMessage, s *objectShape, extra reflect.Value) error {
	var out reflect.Value
	for name, raw := range members {
		if s.known(name) {
			continue
		}
		if s.extraNulls.set {
			if err := checkElem(raw, extra.Type(), s.extraNulls.levels, 0); err != nil {
				return Within(err, name)
			}
		}
		v := reflect.New(extra.Type().Elem())
		if err := decodeChecked(raw, v.Interface()); err != nil {
			return Within(err, name)
		}
		if !out.IsValid() {
			out = reflect.MakeMap(extra.Type())
		}
		out.SetMapIndex(reflect.ValueOf(name), v.Elem())
	}
	if out.IsValid() {
		extra.Set(out)
	} else {
		extra.Set(reflect.Zero(extra.Type()))
	}
	return nil
}

// elemNulls is a nonnullelems flag: set when there is one, with the
// LEVELS of nonnullelems=LEVELS, or "" for every level.
type elemNulls struct {
	set    bool
	levels string
}

// parseElemNulls returns the nonnullelems flag among the comma-separated
// flags of an mcpgen tag.
func parseElemNulls(flags string) elemNulls {
	for _, f := range strings.Split(flags, ",") {
		if f == "nonnullelems" {
			return elemNulls{set: true}
		}
		if levels, ok := strings.CutPrefix(f, "nonnullelems="); ok {
			return elemNulls{set: true, levels: levels}
		}
	}
	return elemNulls{}
}

// check checks data, the JSON of a value of type t, against the flag.
func (n elemNulls) check(data []byte, t reflect.Type) error {
	if !n.set {
		return nil
	}
	return checkNoNullElems(data, t, n.levels, 0)
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	nullWord       = []byte("null")
)

// checkNoNullElems checks that data, the JSON of a value of type t, has no
// null element where levels, as in the nonnullelems tag, refuses one: at
// depth (0 for the elements of data itself) and below. It follows t rather
// than data, so that it stops where t's elements decode themselves. A value
// without the word null anywhere in it, the usual one, is not decoded.
func checkNoNullElems(data []byte, t reflect.Type, levels string, depth int) error {
	k := JSONKind(data)
	if (t.Kind() != reflect.Slice && t.Kind() != reflect.Map) || reflect.PointerTo(t).Implements(unmarshalerType) ||
		(k != KindArray && k != KindObject) || (levels != "" && depth >= len(levels)) || !bytes.Contains(data, nullWord) {
		return nil
	}
	if k == KindArray {
		items, err := splitArray(data)
		if err != nil {
			return err
		}
		for i, it := range items {
			if err := checkElem(it, t, levels, depth); err != nil {
				return Within(err, i)
			}
		}
		return nil
	}
	members, err := splitObject(data)
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(members) {
		if err := checkElem(members[name], t, levels, depth); err != nil {
			return Within(err, name)
		}
	}
	return nil
}

// checkElem checks v, an element at depth of a value of the slice or map
// type t, as checkNoNullElems does. A pointer or json.RawMessage element
// may be null; neither holds an array or object whose elements this checks.
func checkElem(v []byte, t reflect.Type, levels string, depth int) error {
	elem := t.Elem()
	if JSONKind(v) != KindNull {
		return checkNoNullElems(v, elem, levels, depth+1)
	}
	refused := levels == "" || (depth < len(levels) && levels[depth] == '1')
	if refused && elem.Kind() != reflect.Pointer && elem.Kind() != reflect.Interface && elem != rawMessageType {
		return Invalid("", "must not be null")
	}
	return nil
}
