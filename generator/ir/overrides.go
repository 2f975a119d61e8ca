package ir

import (
	"fmt"
	"go/token"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// Override changes how one property is generated. It is keyed by the tool
// name and the JSON pointer of the property's schema within the tool,
// joined by "#": "HassSetVolume#/inputSchema/properties/volume_level". The
// pointer escapes "~" and "/" in property names as ~0 and ~1, and a
// property of a $defs schema is reached through $defs.
type Override struct {
	// GoName replaces the field's name; it must be an exported Go
	// identifier not used by another field of the struct, nor the name
	// another property's field would have (unless that property has a
	// GoName too), so that an override never renames another field.
	GoName string
	// GoType replaces int64 for an integer property: int, int8, int16,
	// int32, int64, uint, uint8, uint16, uint32 or uint64. Types narrower
	// than 64 bits need the schema's minimum and maximum to fit in them,
	// and unsigned types a minimum of at least 0, so that every value the
	// schema accepts decodes and both validators still agree.
	GoType string
}

// OverrideKey returns the key of an override of the property at pointer in
// tool.
func OverrideKey(tool, pointer string) string { return tool + "#" + pointer }

// OverrideError is an override that cannot be applied: its property does
// not exist, or what it asks for does not fit the property.
type OverrideError struct {
	Key string
	Msg string
}

func (e *OverrideError) Error() string { return fmt.Sprintf("override %s: %s", e.Key, e.Msg) }

// integerRanges are the Go types an integer property may be given, with
// the values they hold; nil bounds mean "as int64 holds".
var integerRanges = map[string][2]*float64{
	"int": {}, "int64": {}, "uint": {ptrTo(0), nil}, "uint64": {ptrTo(0), nil},
	"int8": {ptrTo(math.MinInt8), ptrTo(math.MaxInt8)}, "int16": {ptrTo(math.MinInt16), ptrTo(math.MaxInt16)},
	"int32": {ptrTo(math.MinInt32), ptrTo(math.MaxInt32)}, "uint8": {ptrTo(0), ptrTo(math.MaxUint8)},
	"uint16": {ptrTo(0), ptrTo(math.MaxUint16)}, "uint32": {ptrTo(0), ptrTo(math.MaxUint32)},
}

func ptrTo(f float64) *float64 { return &f }

// BuildOptions is Build with the limits, overrides, sharing and reserved
// identifiers of opts; the identifiers of every part (Declared) are always
// reserved. An override whose property the tool list does not have is an
// *OverrideError.
func BuildOptions(tools []snapshot.Tool, opts Options) (*Package, error) {
	for _, k := range sortedKeys(opts.Overrides) {
		o := opts.Overrides[k]
		if !strings.Contains(k, "#/") {
			return nil, &OverrideError{Key: k, Msg: "want the tool name, \"#\" and a JSON pointer such as /inputSchema/properties/x"}
		}
		if o.GoName != "" {
			r, _ := utf8.DecodeRuneInString(o.GoName)
			if !token.IsIdentifier(o.GoName) || !unicode.IsUpper(r) {
				return nil, &OverrideError{Key: k, Msg: fmt.Sprintf("Go name %q is not an exported Go identifier", o.GoName)}
			}
		}
		if _, ok := integerRanges[o.GoType]; o.GoType != "" && !ok {
			return nil, &OverrideError{Key: k, Msg: fmt.Sprintf("Go type %q is not one of int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64", o.GoType)}
		}
		if o.GoName == "" && o.GoType == "" {
			return nil, &OverrideError{Key: k, Msg: "the override sets neither a Go name nor a Go type"}
		}
	}
	used := map[string]bool{}
	pkg, unshared, err := buildPackage(opts.Context, tools, opts.Limits, opts.Overrides, reservedIdentifiers(opts.Reserved), opts.Sharing, opts.Strict, used)
	if err != nil {
		return nil, err
	}
	if len(unshared) > 0 && !opts.KeepUnusedOverrides {
		return nil, &PerToolTypeError{Entry: unshared[0]}
	}
	for _, k := range sortedKeys(opts.Overrides) {
		if !used[k] && !opts.KeepUnusedOverrides {
			tool, ptr, _ := strings.Cut(k, "#")
			return nil, &OverrideError{Key: k, Msg: fmt.Sprintf("tool %q has no property at %s", tool, ptr)}
		}
	}
	return pkg, nil
}

func sortedKeys(m map[string]Override) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// override returns the override of the property at ptr, if any, and marks
// it used.
func (c *converter) override(ptr string) (Override, bool) {
	if len(c.overrides) == 0 {
		return Override{}, false
	}
	k := OverrideKey(c.tool, ptr)
	o, ok := c.overrides[k]
	if ok {
		c.usedOverrides[k] = true
	}
	return o, ok
}

// withGoType returns a copy of the integer type ft (possibly nullable) whose
// Go type is goType, after checking that every value the schema allows fits
// in it.
func (c *converter) withGoType(ft *Type, goType, ptr string) (*Type, error) {
	key := OverrideKey(c.tool, ptr)
	if ft.Kind == Nullable {
		elem, err := c.withGoType(ft.Elem, goType, ptr)
		if err != nil {
			return nil, err
		}
		cp := *ft
		cp.Elem = elem
		return &cp, nil
	}
	if ft.Kind != Int || ft.IsNamed() {
		return nil, &OverrideError{Key: key, Msg: fmt.Sprintf("a Go type can only be given to an integer property, not to this %s", kindWord(ft.Kind))}
	}
	r := integerRanges[goType]
	check := func(limit *float64, b *Bound, lower bool) error {
		if limit == nil {
			return nil
		}
		word := "maximum"
		if lower {
			word = "minimum"
		}
		if b == nil {
			return &OverrideError{Key: key, Msg: fmt.Sprintf("%s needs the schema to set a %s of at %s %s", goType, word, map[bool]string{true: "least", false: "most"}[lower], strconv.FormatFloat(*limit, 'f', -1, 64))}
		}
		f, err := strconv.ParseFloat(b.Lit, 64)
		if err != nil || (lower && f < *limit) || (!lower && f > *limit) {
			return &OverrideError{Key: key, Msg: fmt.Sprintf("the schema's %s %s does not fit in %s", word, b.Lit, goType)}
		}
		return nil
	}
	if err := check(r[0], ft.Minimum, true); err != nil {
		return nil, err
	}
	if err := check(r[1], ft.Maximum, false); err != nil {
		return nil, err
	}
	cp := *ft
	cp.GoType = goType
	return &cp, nil
}
