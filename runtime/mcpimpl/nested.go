package mcpimpl

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/internal/integral"
)

// Generated object types nested in a tool's arguments have no
// UnmarshalJSON of their own unless they need one (a closed object, or one
// with Extra): one method for each of hundreds of types cost the compiler
// more than anything else those types have. The decoder of the value that
// holds them checks their members instead, as DecodeObject checks its own:
// checkValue below, before encoding/json decodes the whole value plainly.

// parentChecked reports whether values of t can hold objects of a struct
// type that has no UnmarshalJSON, which the decoder of the value holding
// them must check. It follows the elements of pointers, slices, arrays and
// maps, each of which has one; a chain of them that comes back to a type
// already followed (a slice of itself, from a schema's array of itself)
// reaches no struct.
func parentChecked(t reflect.Type) bool {
	if v, ok := parentCheckedTypes.Load(t); ok {
		return v.(bool)
	}
	v := false
	var followed []reflect.Type
	for e := t; !slices.Contains(followed, e); e = e.Elem() {
		followed = append(followed, e)
		if reflect.PointerTo(e).Implements(unmarshalerType) {
			break // it checks itself when decoded
		}
		if k := e.Kind(); k != reflect.Pointer && k != reflect.Slice && k != reflect.Array && k != reflect.Map {
			v = k == reflect.Struct
			break
		}
	}
	parentCheckedTypes.Store(t, v)
	return v
}

var parentCheckedTypes sync.Map // reflect.Type → bool

// checkValue checks data, the JSON of a value of type t, as the
// UnmarshalJSON of the generated object types in it would: required
// members present, null only where allowed. Anything encoding/json will
// refuse anyway is left to it, and to decodeError to locate. Unless bounded,
// set once a value around data has been, a value of a type that refers to
// itself is refused when it nests too deeply (see checkNesting), and so
// are those in data whose types do.
func checkValue(data []byte, t reflect.Type, folded *bool, bounded bool) error {
	if !parentChecked(t) && (bounded || !recursive(t) || reflect.PointerTo(t).Implements(unmarshalerType)) {
		return nil // nothing to check, or it checks itself when decoded
	}
	if !bounded && selfReferent(t) {
		if err := checkNesting(data); err != nil {
			return err
		}
		if !parentChecked(t) {
			return nil
		}
		bounded = true
	}
	k := JSONKind(data)
	switch t.Kind() {
	case reflect.Pointer:
		if k == KindNull {
			return nil
		}
		return checkValue(data, t.Elem(), folded, bounded)
	case reflect.Slice, reflect.Array:
		if k != KindArray {
			return nil
		}
		items, err := splitArray(data)
		if err != nil {
			return nil
		}
		for i, it := range items {
			if err := checkValue(it, t.Elem(), folded, bounded); err != nil {
				return Within(err, i)
			}
		}
	case reflect.Map:
		if k != KindObject {
			return nil
		}
		members, err := splitObject(data)
		if err != nil {
			return nil
		}
		for _, name := range sortedKeys(members) {
			if err := checkValue(members[name], t.Elem(), folded, bounded); err != nil {
				return Within(err, name)
			}
		}
	case reflect.Struct:
		s := shapeOf(t)
		if s.err != nil {
			return s.err
		}
		members, err := checkMembers(data, s, false, folded)
		if err != nil {
			return err
		}
		return s.checkNested(members, t, folded, bounded)
	}
	return nil
}

// checkNested checks the members of an object of type t, already checked
// against its shape s, that hold objects their own types do not check,
// and, unless bounded, values of types that refer to themselves.
func (s *objectShape) checkNested(members map[string]json.RawMessage, t reflect.Type, folded *bool, bounded bool) error {
	for i := range s.fields {
		f := &s.fields[i]
		if !f.nested && (bounded || !f.recursive) {
			continue
		}
		raw, ok := members[f.name]
		if !ok {
			continue
		}
		if err := checkValue(raw, t.Field(f.index).Type, folded, bounded); err != nil {
			return Within(err, f.name)
		}
	}
	return nil
}

// decodeChecked decodes data into v, a pointer, after checking the objects
// in it that their types do not check; errors are located as decodeError
// locates them.
func decodeChecked(data []byte, v any) error {
	t := reflect.TypeOf(v).Elem()
	folded := false
	if err := checkValue(data, t, &folded, false); err != nil {
		return err
	}
	if folded {
		data = exactMembers(data, t)
	}
	if err := integral.Unmarshal(data, v); err != nil {
		return decodeError(data, v, err)
	}
	return nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
