package mcpimpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// A generated union is a struct with one pointer field per branch, in
// schema order, each tagged with the JSON kinds the branch accepts:
//
//	String *NameString `mcpgen:"string"`
//	Number *float64    `mcpgen:"number"`
//
// The kinds are null, boolean, number, string, array and object. A
// branch whose value is an array or map may add a nonnullelems flag, as a
// struct member does (see TagKey): the elements it refuses null for are
// those of the branch's value.

// unionShape describes the branches of a generated union.
type unionShape struct {
	kinds [][]byte
	nulls []elemNulls
	err   error
}

var unionShapes sync.Map // reflect.Type of the struct → *unionShape

var kindsByName = map[string]byte{
	"null": KindNull, "boolean": KindBool, "number": KindNumber,
	"string": KindString, "array": KindArray, "object": KindObject,
}

func unionShapeOf(t reflect.Type) *unionShape {
	if s, ok := unionShapes.Load(t); ok {
		return s.(*unionShape)
	}
	s := &unionShape{kinds: make([][]byte, t.NumField()), nulls: make([]elemNulls, t.NumField())}
	for i := range s.kinds {
		f := t.Field(i)
		if !f.IsExported() {
			continue // the blank DoNotCompare field, which is no branch
		}
		if f.Type.Kind() != reflect.Pointer {
			s.err = fmt.Errorf("decoding %s: branch %s is not a pointer", t, f.Name)
			break
		}
		s.nulls[i] = parseElemNulls(f.Tag.Get(TagKey))
		for _, name := range strings.Split(f.Tag.Get(TagKey), ",") {
			if strings.HasPrefix(name, "nonnullelems") {
				continue
			}
			k, ok := kindsByName[name]
			if !ok {
				s.err = fmt.Errorf("decoding %s: branch %s accepts the unknown JSON kind %q", t, f.Name, name)
				break
			}
			s.kinds[i] = append(s.kinds[i], k)
		}
	}
	v, _ := unionShapes.LoadOrStore(t, s)
	return v.(*unionShape)
}

// validator is a generated type with a Validate method.
type validator interface{ Validate() error }

// DecodeTaggedUnion decodes data into u, a pointer to a generated union,
// as DecodeUnion does: into the first branch, in order, that accepts the
// JSON kind of data and decodes and validates (with the Validate method of
// the branch's type, if it has one) without error. The union is replaced:
// only that branch is set.
func DecodeTaggedUnion(data []byte, u any, oneOf bool) error {
	rv := reflect.ValueOf(u)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("decoding a union into %T: not a pointer to a struct", u)
	}
	s := unionShapeOf(rv.Elem().Type())
	if s.err != nil {
		return s.err
	}
	several := takers(JSONKind(data), s.kinds) > 1
	return decodeRemembered(data, rv.Elem().Type(), oneOf, several, func(i int) bool {
		v := reflect.New(rv.Elem().Field(i).Type().Elem())
		if decodeBranch(data, v.Interface()) != nil {
			return false
		}
		rv.Elem().SetZero()
		rv.Elem().Field(i).Set(v)
		return true
	}, func() (int, error) { return decodeTaggedBranches(data, rv, s, oneOf) })
}

// decodeTaggedBranches is DecodeTaggedUnion's search of the branches of
// rv's union, of shape s; it returns the index of the branch set, or -1.
func decodeTaggedBranches(data []byte, rv reflect.Value, s *unionShape, oneOf bool) (int, error) {
	k := JSONKind(data)
	var first error
	n, set := 0, -1
	tried := false
	for i, kinds := range s.kinds {
		if !bytes.Contains(kinds, []byte{k}) {
			continue
		}
		tried = true
		v := reflect.New(rv.Elem().Field(i).Type().Elem())
		err := s.nulls[i].check(data, v.Type().Elem())
		if err == nil {
			err = decodeBranch(data, v.Interface())
		}
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if n == 0 {
			rv.Elem().SetZero()
			rv.Elem().Field(i).Set(v)
			set = i
		}
		n++
		if !oneOf {
			return set, nil
		}
	}
	switch {
	case n == 1:
		return set, nil
	case n > 1:
		return -1, Invalid("", "matches more than one branch of oneOf")
	case !tried:
		var names []string
		for _, kinds := range s.kinds {
			names = appendKindNames(names, kinds)
		}
		return -1, kindError(k, names)
	}
	return -1, first
}

// decodeBranch decodes data into p, a pointer to a new value of a branch's
// type, and validates it if the type has a Validate method.
func decodeBranch(data []byte, p any) error {
	if err := decodeChecked(data, p); err != nil {
		return err
	}
	if c, ok := p.(validator); ok {
		return c.Validate()
	}
	return nil
}

// EncodeUnion encodes the branch of the generated union u (a struct or a
// pointer to one) that is set, or null when none is.
func EncodeUnion(u any) ([]byte, error) {
	rv := reflect.Indirect(reflect.ValueOf(u))
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("encoding a union from %T: not a struct", u)
	}
	for i := range rv.NumField() {
		if f := rv.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			return json.Marshal(f.Interface())
		}
	}
	return []byte("null"), nil
}
