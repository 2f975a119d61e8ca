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
// refuse anyway is left to it, and to decodeError to locate.
func checkValue(data []byte, t reflect.Type, folded *bool) error {
	if !parentChecked(t) {
		return nil
	}
	k := JSONKind(data)
	switch t.Kind() {
	case reflect.Pointer:
		if k == KindNull {
			return nil
		}
		return checkValue(data, t.Elem(), folded)
	case reflect.Slice, reflect.Array:
		if k != KindArray {
			return nil
		}
		items, err := splitArray(data)
		if err != nil {
			return nil
		}
		for i, it := range items {
			if err := checkValue(it, t.Elem(), folded); err != nil {
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
			if err := checkValue(members[name], t.Elem(), folded); err != nil {
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
		return s.checkNested(members, t, folded)
	}
	return nil
}

// checkNested checks the members of an object of type t, already checked
// against its shape s, that hold objects their own types do not check.
func (s *objectShape) checkNested(members map[string]json.RawMessage, t reflect.Type, folded *bool) error {
	for i := range s.fields {
		f := &s.fields[i]
		if !f.nested {
			continue
		}
		raw, ok := members[f.name]
		if !ok {
			continue
		}
		if err := checkValue(raw, t.Field(f.index).Type, folded); err != nil {
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
	if err := checkNesting(data, t); err != nil {
		return err
	}
	folded := false
	if err := checkValue(data, t, &folded); err != nil {
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
