package mcpimpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// Invalid returns a *runtime.ValidationError at pointer (a JSON pointer relative to
// the value being validated) with a one-line reason.
//
// It is kept out of line: generated Validate methods call it at thousands
// of places, each on the path of an invalid value only, and inlining the
// allocation at each of them costs the compiler more than it saves at run
// time.
//
//go:noinline
func Invalid(pointer, reason string) error {
	return &runtime.ValidationError{Pointer: pointer, Reason: reason}
}

// Within prefixes the pointer of a *runtime.ValidationError with reference tokens:
// strings (escaped as RFC 6901 asks) and ints (array indexes). Other errors
// are returned unchanged.
func Within(err error, tokens ...any) error {
	ve, ok := err.(*runtime.ValidationError)
	if !ok {
		return err
	}
	ve.Pointer = Pointer(tokens...) + ve.Pointer
	return ve
}

// WithinName is Within with one token, a property name. Like WithinItem,
// it spares the many call sites in generated code Within's variadic
// arguments, and is kept out of line, as it runs only for invalid values.
//
//go:noinline
func WithinName(err error, name string) error {
	return Within(err, name)
}

// WithinItem is Within with two tokens: a property name and an index into
// the array that property holds.
//
//go:noinline
func WithinItem(err error, name string, i int) error {
	return Within(err, name, i)
}

// Pointer builds a JSON pointer from reference tokens, as Within does.
func Pointer(tokens ...any) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		switch t := t.(type) {
		case string:
			b.WriteString(jsontree.EscapeToken(t))
		case int:
			b.WriteString(strconv.Itoa(t))
		default:
			fmt.Fprint(&b, t)
		}
	}
	return b.String()
}

// ForTool names the tool in a *runtime.ValidationError that names none.
//
// It stays out of line: a generated package calls it at hundreds of sites
// (the ms365 package at 790), all but the tools' UnmarshalJSON on the path
// of an invalid value, and inlining even its check for nil there cost
// about 9% of the package's compile CPU.
//
//go:noinline
func ForTool(err error, tool string) error {
	if err == nil {
		return nil
	}
	if ve, ok := err.(*runtime.ValidationError); ok && ve.Tool == "" {
		ve.Tool = tool
	}
	return err
}

// ForResult is ForTool for the errors of a tool's Result type: it also marks
// them as errors of the structured result the server sent, not of
// arguments (runtime.ValidationError.Result).
func ForResult(err error, tool string) error {
	if ve, ok := err.(*runtime.ValidationError); ok {
		ve.Result = true
	}
	return ForTool(err, tool)
}

// AsTool names the tool in a *runtime.ValidationError, in place of the
// tool it names: the Validate of a tool's Args whose fields and checks are
// those of another tool's Args calls that one's, whose errors name the
// other tool.
func AsTool(err error, tool string) error {
	if err == nil {
		return nil
	}
	return asTool(err, tool)
}

//go:noinline
func asTool(err error, tool string) error {
	if ve, ok := err.(*runtime.ValidationError); ok {
		ve.Tool = tool
	}
	return err
}

// EncodeExtra adds the members of extra to the encoded JSON object base,
// after its own members.
func EncodeExtra[T any](base []byte, extra map[string]T) ([]byte, error) {
	if len(extra) == 0 {
		return base, nil
	}
	add, err := json.Marshal(extra)
	if err != nil {
		return nil, err
	}
	base = bytes.TrimSpace(base)
	if len(base) < 2 || base[0] != '{' {
		return nil, fmt.Errorf("encoding extra properties: %s is not an object", base)
	}
	out := make([]byte, 0, len(base)+len(add))
	out = append(out, base[:len(base)-1]...)
	if len(base) > 2 {
		out = append(out, ',')
	}
	return append(out, add[1:]...), nil
}

// ConstMatches reports whether the JSON value data equals the JSON value
// want, as JSON Schema compares them (numbers by their exact value, objects
// in any key order).
func ConstMatches(data []byte, want string) bool {
	var a, b any
	da := json.NewDecoder(bytes.NewReader(data))
	da.UseNumber()
	db := json.NewDecoder(strings.NewReader(want))
	db.UseNumber()
	if da.Decode(&a) != nil || db.Decode(&b) != nil {
		return false
	}
	return jsonEqual(a, b)
}

func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == b {
			return true
		}
		c, ok := jsontree.CompareNumbers(string(a), string(b))
		return ok && c == 0
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// JSON kinds, as JSONKind reports them.
const (
	KindInvalid byte = iota
	KindNull
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

// JSONKind returns the kind of the JSON value data from its first byte.
func JSONKind(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case 'n':
			return KindNull
		case 't', 'f':
			return KindBool
		case '"':
			return KindString
		case '[':
			return KindArray
		case '{':
			return KindObject
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return KindNumber
		}
		return KindInvalid
	}
	return KindInvalid
}

func kindName(k byte) string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "a boolean"
	case KindNumber:
		return "a number"
	case KindString:
		return "a string"
	case KindArray:
		return "an array"
	case KindObject:
		return "an object"
	}
	return "invalid JSON"
}

var formatSchemas sync.Map // format name → *Schema

// CheckFormat reports whether s is valid in the string format named, as the
// JSON Schema validator asserts formats. Unknown formats accept every
// string.
func CheckFormat(format, s string) bool {
	v, ok := formatSchemas.Load(format)
	if !ok {
		raw, _ := json.Marshal(map[string]string{"type": "string", "format": format})
		v, _ = formatSchemas.LoadOrStore(format, runtime.NewSchema("format "+format, raw))
	}
	return v.(*runtime.Schema).ValidateValue(s) == nil
}

// ValidateEncoded encodes v as JSON and validates it against s. Generated
// Validate methods call it for tools whose schemas use keywords without a
// Go counterpart.
func ValidateEncoded(s *runtime.Schema, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.Validate(data)
}

// DecodeValid decodes data into v and validates it.
func DecodeValid[T any, P interface {
	*T
	Validate() error
}](data []byte, v P) error {
	if err := decodeChecked(data, v); err != nil {
		return err
	}
	return v.Validate()
}

// UnionBranch is one branch of a generated union, for DecodeUnion.
type UnionBranch struct {
	// Kinds are the JSON kinds the branch accepts.
	Kinds []byte
	// Decode decodes data into the branch's value and validates it.
	Decode func(data []byte) error
	// Set stores the decoded value in the union.
	Set func()
	// typ is the type of the branch's value, set by Decoded.
	typ reflect.Type
	// check is the code of the branch's check, set by Decoded, and
	// nonNull the levels of NonNullElems: with typ, they tell unions
	// apart in what DecodeUnion remembers.
	check   uintptr
	nonNull string
}

// NonNullElems returns b refusing, before it decodes, a null element of
// the arrays and maps in the branch's value where levels does, as the
// LEVELS of a mcpgen:"nonnullelems=LEVELS" tag, or at every level when
// levels is "". b must come from Decoded.
func (b UnionBranch) NonNullElems(levels string) UnionBranch {
	decode, t := b.Decode, b.typ
	if t == nil {
		return b
	}
	b.nonNull = "=" + levels
	b.Decode = func(data []byte) error {
		if err := checkNoNullElems(data, t, levels, 0); err != nil {
			return err
		}
		return decode(data)
	}
	return b
}

// DecodeUnion decodes data into the first branch, in order, that accepts its
// JSON kind and decodes and validates without error. With oneOf, every
// branch is tried and exactly one must succeed. The error is the first
// branch's error when none succeeds.
func DecodeUnion(data []byte, oneOf bool, branches []UnionBranch) error {
	id, known := branchTypes(branches)
	kinds := make([][]byte, 0, maxKeyedBranches)
	for i := range branches {
		kinds = append(kinds, branches[i].Kinds)
	}
	several := known && takers(JSONKind(data), kinds) > 1
	return decodeRemembered(data, id, oneOf, several, func(i int) bool {
		if b := &branches[i]; b.Decode(data) == nil {
			b.Set()
			return true
		}
		return false
	}, func() (int, error) { return decodeBranches(data, oneOf, branches) })
}

// maxKeyedBranches is the number of branches up to which DecodeUnion
// remembers outcomes (see unionmemo.go): the key holds their types.
const maxKeyedBranches = 8

// branchesID tells unions apart in what DecodeUnion remembers.
type branchesID struct {
	types   [maxKeyedBranches]reflect.Type
	checks  [maxKeyedBranches]uintptr
	nonNull [maxKeyedBranches]string
}

// branchTypes returns what tells the union of branches apart, and whether
// all of it is known: each branch's type, check and NonNullElems.
func branchTypes(branches []UnionBranch) (id branchesID, ok bool) {
	if len(branches) > maxKeyedBranches {
		return id, false
	}
	for i := range branches {
		if branches[i].typ == nil {
			return id, false
		}
		id.types[i], id.checks[i], id.nonNull[i] = branches[i].typ, branches[i].check, branches[i].nonNull
	}
	return id, true
}

// decodeBranches is DecodeUnion's search of the branches; it returns the
// index of the branch set, or -1.
func decodeBranches(data []byte, oneOf bool, branches []UnionBranch) (int, error) {
	k := JSONKind(data)
	var first error
	n, set := 0, -1
	tried := false
	for i := range branches {
		b := &branches[i]
		if !bytes.Contains(b.Kinds, []byte{k}) {
			continue
		}
		tried = true
		if err := b.Decode(data); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if n == 0 {
			b.Set()
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
		for _, b := range branches {
			names = appendKindNames(names, b.Kinds)
		}
		return -1, kindError(k, names)
	}
	return -1, first
}

// appendKindNames appends the names of kinds that names lacks.
func appendKindNames(names []string, kinds []byte) []string {
	for _, k := range kinds {
		if name := kindName(k); !containsString(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// kindError reports a value of kind k that no branch of a union accepts:
// names are the kinds its branches accept.
func kindError(k byte, names []string) error {
	return Invalid("", "must be "+strings.Join(names, " or ")+", not "+kindName(k))
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Decoded returns a UnionBranch for DecodeUnion that decodes into a new T,
// checks it with check unless check is nil, and stores it in *dst.
func Decoded[T any](dst **T, check func(*T) error, kinds ...byte) UnionBranch {
	v := new(T)
	b := UnionBranch{
		Kinds: kinds,
		Decode: func(data []byte) error {
			if err := decodeChecked(data, v); err != nil {
				return err
			}
			if check != nil {
				return check(v)
			}
			return nil
		},
		Set: func() { *dst = v },
		typ: reflect.TypeFor[T](),
	}
	if check != nil {
		b.check = reflect.ValueOf(check).Pointer()
	}
	return b
}

// MustCompilePattern is runtime.CompilePattern for the patterns a package
// was generated from, which the generator has compiled already. It panics
// otherwise.
func MustCompilePattern(p string) runtime.Pattern {
	re, err := runtime.CompilePattern(p)
	if err != nil {
		panic(err)
	}
	return re
}

// Matcher is a compiled pattern of a generated package: a *regexp.Regexp,
// or a runtime.Pattern for an ECMA-262 pattern Go's syntax lacks.
type Matcher interface {
	MatchString(s string) bool
}

// Match reports whether s matches p. Generated Validate methods call it
// rather than p.MatchString, which the compiler would inline at every
// pattern check of a package: one call costs a few nanoseconds next to the
// match itself.
//
//go:noinline
func Match(p Matcher, s string) bool { return p.MatchString(s) }
