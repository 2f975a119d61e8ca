package mcpimpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/integral"
)

// encoding/json reports a value of the wrong type as "json: cannot unmarshal
// number 50.5 into Go struct field plain.volume_level of type int64": it
// names the Go type generated code decodes through, and a nested type's
// UnmarshalJSON error comes out without the path to it. Generated code
// decodes with the helpers of helpers.go, which on failure decode the
// value again member by member to find the JSON pointer of the offending
// value and report it as a *runtime.ValidationError, as Validate does. Only the
// error path pays for that second decoding.

// decodeError returns err, the error of decoding data into v (a pointer),
// as a *runtime.ValidationError whose pointer, relative to data, names the value
// that failed.
func decodeError(data []byte, v any, err error) error {
	if err == nil {
		return nil
	}
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return asValidation(err)
	}
	if reflect.PointerTo(t.Elem()).Implements(unmarshalerType) {
		// A generated type's UnmarshalJSON located its own error.
		return asValidation(err)
	}
	if ve := locate(data, t.Elem()); ve != nil {
		return ve
	}
	return asValidation(err)
}

// locate decodes data into a new value of type t and returns nil when that
// succeeds, or a *runtime.ValidationError naming the first member, element or
// entry, in the order of t's fields, sorted keys or indexes, that fails.
// It goes as deep as data, which encoding/json has already accepted (it
// refuses nesting beyond 10000 levels).
func locate(data []byte, t reflect.Type) *runtime.ValidationError {
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		// A generated type locates its own errors.
		if err := integral.Unmarshal(data, reflect.New(t).Interface()); err != nil {
			return asValidation(err)
		}
		return nil
	}
	k := JSONKind(data)
	switch t.Kind() {
	case reflect.Pointer:
		if k == KindNull {
			return nil
		}
		return locate(data, t.Elem())
	case reflect.Struct:
		if k != KindObject {
			break
		}
		members, err := splitObject(data)
		if err != nil {
			break
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := jsonName(f)
			if name == "" {
				continue
			}
			key, raw, ok := member(members, name)
			if !ok {
				continue
			}
			if ve := locate(raw, f.Type); ve != nil {
				return within(ve, key)
			}
		}
		return nil
	case reflect.Slice:
		if k == KindNull || t.Elem().Kind() == reflect.Uint8 || k != KindArray {
			break
		}
		items, err := splitArray(data)
		if err != nil {
			break
		}
		for i, it := range items {
			if ve := locate(it, t.Elem()); ve != nil {
				return within(ve, i)
			}
		}
		return nil
	case reflect.Map:
		if k != KindObject {
			break
		}
		entries, err := splitObject(data)
		if err != nil {
			break
		}
		keys := make([]string, 0, len(entries))
		for key := range entries {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			if ve := locate(entries[key], t.Elem()); ve != nil {
				return within(ve, key)
			}
		}
		return nil
	}
	if err := integral.Unmarshal(data, reflect.New(t).Interface()); err != nil {
		return asValidation(err)
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func within(ve *runtime.ValidationError, token any) *runtime.ValidationError {
	ve.Pointer = Pointer(token) + ve.Pointer
	return ve
}

// jsonName is the member name encoding/json decodes the field from, or ""
// for a field it leaves alone.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name
	}
	return f.Name
}

// member finds the member encoding/json decodes a field named name from:
// the one of that name, or else one that matches it but for case.
func member(members map[string]json.RawMessage, name string) (string, json.RawMessage, bool) {
	if raw, ok := members[name]; ok {
		return name, raw, true
	}
	keys := make([]string, 0, len(members))
	for key := range members {
		if strings.EqualFold(key, name) {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return "", nil, false
	}
	sort.Strings(keys)
	return keys[0], members[keys[0]], true
}

// asValidation returns err as a *runtime.ValidationError at the root of the value
// that failed, with a reason that names JSON kinds rather than Go types.
func asValidation(err error) *runtime.ValidationError {
	var ve *runtime.ValidationError
	if errors.As(err, &ve) {
		return ve
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != nil {
		return &runtime.ValidationError{Reason: typeReason(te)}
	}
	return &runtime.ValidationError{Reason: strings.TrimPrefix(err.Error(), "json: ")}
}

// typeReason explains a value encoding/json could not store in a Go value
// of type te.Type.
func typeReason(te *json.UnmarshalTypeError) string {
	got, lit, isNum := te.Value, "", false
	if s, ok := strings.CutPrefix(te.Value, "number "); ok {
		got, lit, isNum = "number", s, true
	}
	switch te.Type.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := te.Type.Bits()
		return intReason(got, lit, isNum, fmt.Sprintf("from %d to %d", int64(-1)<<(bits-1), int64(1)<<(bits-1)-1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return intReason(got, lit, isNum, fmt.Sprintf("from 0 to %d", uint64(math.MaxUint64)>>(64-te.Type.Bits())))
	case reflect.Float32, reflect.Float64:
		if isNum {
			return fmt.Sprintf("must be a number within the range of a float%d, not %s", te.Type.Bits(), cutNumber(lit))
		}
		return "must be a number, not " + kindWord(got)
	case reflect.String:
		return "must be a string, not " + kindWord(got)
	case reflect.Bool:
		return "must be a boolean, not " + kindWord(got)
	case reflect.Slice, reflect.Array:
		return "must be an array, not " + kindWord(got)
	case reflect.Struct, reflect.Map:
		return "must be an object, not " + kindWord(got)
	}
	return "must not be " + kindWord(got)
}

// intReason explains a value that an integer field of the given range
// cannot hold.
func intReason(got, lit string, isNum bool, rng string) string {
	if !isNum {
		return "must be an integer, not " + kindWord(got)
	}
	if _, frac, ok := jsontree.Trunc(lit, 1000); ok && frac {
		return "must be an integer, not " + cutNumber(lit)
	}
	return "must be an integer " + rng + ", not " + cutNumber(lit)
}

// cutNumber returns the number literal lit, a server's text, cut to 64
// bytes: encoding/json gives it whole, a million digits when the server
// sent that many.
func cutNumber(lit string) string {
	if len(lit) > 64 {
		return lit[:64] + "…"
	}
	return lit
}

// kindWord names a JSON kind as encoding/json's UnmarshalTypeError.Value
// does ("number", "string", "bool", "array", "object") with its article.
func kindWord(v string) string {
	switch v {
	case "bool":
		return "a boolean"
	case "array", "object":
		return "an " + v
	case "number", "string":
		return "a " + v
	}
	return v
}
