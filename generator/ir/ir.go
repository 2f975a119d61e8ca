// Package ir turns the JSON Schemas of a tool list into the types mcpgen
// generates: named structs, enums, constants and unions, with the
// constraints their Validate methods check.
//
// # Mapping
//
// An object with properties becomes a struct whose fields follow the order of
// the properties. A required property is a value field; an optional one is a
// pointer (slices, maps and raw JSON are left nil instead). A nullable value
// (a type list with "null", or anyOf with a {"type":"null"} branch) is a
// pointer too; when it is optional, nil means absent, so an explicit null is
// never sent. String, integer, number and boolean enums become named types
// with one constant per value; a const becomes an empty struct type that
// encodes as its value. anyOf and oneOf become union structs with one
// pointer per branch, decoded by JSON kind and then by whichever branch
// decodes and validates (so required keys and const discriminators choose
// between object branches); for oneOf exactly one branch must match. allOf
// is merged into one schema; parts that cannot be merged are an error.
// $ref, $defs and definitions become named types, recursion going through
// pointers. additionalProperties with a schema becomes a map, or an Extra map
// beside the fields of a struct; patternProperties with a single pattern
// becomes a map whose keys are checked, and beside properties an Extra map
// of JSON values, which the tool's own schema checks. The empty schema, true, and a
// property without a type become json.RawMessage.
//
// # What Validate leaves to the server's own schema
//
// Some keywords have no faithful Go shape: not, if/then/else,
// dependentRequired, dependentSchemas, dependencies, propertyNames,
// unevaluatedProperties, unevaluatedItems, contains, uniqueItems,
// prefixItems, minProperties/maxProperties on structs, counts (minLength,
// maxItems and the like) beyond math.MaxInt32, multipleOf on
// numbers that are not integers, enums and consts mixing JSON kinds, number
// enums with a value beyond 2^53 (which a float64 cannot compare exactly), type
// "null" on its own, false schemas, and anyOf or oneOf whose branches only
// list required properties (the object beside them keeps its struct). The
// generated type keeps the base shape, and a tool that uses any of them has
// RawChecks set: its generated Validate then also checks the encoded value
// against the tool's own schema with the runtime's JSON Schema validator, so
// that the two validators agree on every value the struct can hold. The
// raw check sees the value as the struct encodes it: an open object without
// an Extra map drops the members it does not describe, and a number is a
// float64, so a keyword about undescribed members (propertyNames,
// minProperties, dependentRequired naming one) or a bound a float64 cannot
// tell apart judges the value without them. RawChecks names the keywords
// involved.
package ir

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// Kind is the Go shape of a Type.
type Kind int

// The kinds of types.
const (
	// Raw is json.RawMessage: any JSON value.
	Raw Kind = iota
	Bool
	Int    // int64
	Number // float64
	String
	// Struct is a named struct with Fields, and an Extra map when Extra is
	// set.
	Struct
	// Slice is []Elem.
	Slice
	// Map is map[string]Elem.
	Map
	// Enum is a named type of kind Base with one constant per value.
	Enum
	// Const is a named empty struct that encodes as the value Const.
	Const
	// Union is a named struct with one pointer field per branch.
	Union
	// Nullable is a value of type Elem or JSON null.
	Nullable
)

// Type is one Go type of the generated package.
type Type struct {
	Kind Kind
	// Name is the Go name of named types: structs, enums, consts, unions,
	// and slices or maps that refer to themselves.
	Name string
	// Doc is the description the schema gave, or "".
	Doc string
	// Pointer is where the schema is, as a JSON pointer within the tool
	// ("/inputSchema/properties/x").
	Pointer string
	// Elem is the element of a slice or map, or the value of a Nullable.
	Elem *Type
	// Fields are the fields of a struct, in property order.
	Fields []*Field
	// Extra is the type of the properties a struct allows beyond its fields
	// (additionalProperties with a schema), or nil.
	Extra *Type
	// Closed reports additionalProperties: false on a struct.
	Closed bool
	// Base is the kind of an enum's values: String, Int, Number or Bool.
	Base Kind
	// Values are the values of an enum, in schema order.
	Values []*EnumValue
	// Const is the value of a Const type.
	Const *jsontree.Node
	// Branches are the branches of a union, in schema order.
	Branches []*Branch
	// OneOf reports a union that must match exactly one branch.
	OneOf bool
	// Recursive reports a named type that refers to itself; fields of that
	// type are pointers.
	Recursive bool
	// Default is the schema's default value, or nil; it only documents.
	Default *jsontree.Node
	// GoType, when set, is the Go type of an integer instead of int64: a
	// property override asked for it.
	GoType string
	Constraints

	// origin identifies a named type other than a tool's Args or Result
	// (the tool name and the pointer) while its name is resolved; a shared
	// type's origin is derived from its shape instead.
	origin string
	// tool is the tool whose schema the named type was converted from, and
	// toolBase the prefix of the names of its types there. local is the
	// part of the name it asks for that names it without the struct it is
	// in or the tool ("HassMediaNextDeviceClass" → "DeviceClass"), or ""
	// when there is none.
	tool, toolBase, local string
	// perTool reports a type whose own name is generic (see genericNames)
	// and which is a field of a tool's root type: it is never shared, so
	// that it keeps the tool's prefix.
	perTool bool
	// inInput reports a type an input schema uses (for a shared type, one
	// of its uses), which ranks ahead of output types for its name.
	inInput bool
	// SharedBy lists, sorted, the tools whose schemas use a type shared
	// across tools (see share.go); it is nil for a type of one tool.
	SharedBy []string
	// AliasOf, when set, is the earlier named struct or enum this one is
	// identical to apart from its name and description (see alias.go): the
	// type is declared as an alias of that one, and has no methods of its
	// own; an enum keeps its constants.
	AliasOf *Type
}

// Constraints are the checks a generated Validate makes on a value.
type Constraints struct {
	Minimum, Maximum *Bound
	// MultipleOf is the literal of an integer multipleOf, or "".
	MultipleOf           string
	MinLength, MaxLength *int64
	MinItems, MaxItems   *int64
	// MinEntries and MaxEntries bound the size of a map.
	MinEntries, MaxEntries *int64
	// Patterns must all match a string; KeyPatterns must all match the keys
	// of a map.
	Patterns    []string
	KeyPatterns []string
	// Format is the string format the runtime checks, or "".
	Format string
}

// Bound is a numeric limit, given as the schema's literal.
type Bound struct {
	Lit       string
	Exclusive bool
}

// IntLimit returns the least integer a lower bound allows, or the greatest
// one an upper bound allows, computed exactly from the literal (a float64
// would round 9007199254740993 to its neighbour). When that integer has
// more than 20 digits, n is nil and beyond is -1 (below any Go integer) or
// +1 (above).
func (b *Bound) IntLimit(lower bool) (n *big.Int, beyond int) {
	neg := strings.HasPrefix(b.Lit, "-")
	n, frac, ok := jsontree.Trunc(b.Lit, 20)
	if !ok {
		if neg {
			return nil, -1
		}
		return nil, 1
	}
	// n is rounded toward zero: one away from it is the floor of a
	// negative value and the ceiling of a positive one.
	floor, ceil := n, n
	if frac && neg {
		floor = new(big.Int).Sub(n, big.NewInt(1))
	}
	if frac && !neg {
		ceil = new(big.Int).Add(n, big.NewInt(1))
	}
	one := big.NewInt(1)
	switch {
	case lower && b.Exclusive:
		return new(big.Int).Add(floor, one), 0
	case lower:
		return ceil, 0
	case b.Exclusive:
		return new(big.Int).Sub(ceil, one), 0
	}
	return floor, 0
}

// Field is one field of a struct.
type Field struct {
	// JSONName is the property name; GoName the field name.
	JSONName string
	GoName   string
	Doc      string
	Type     *Type
	Required bool
}

// EnumValue is one constant of an enum.
type EnumValue struct {
	GoName string
	Value  *jsontree.Node

	// suffix is what the constant's name adds to its type's name, and
	// rank how closely it spells the value, until the name is resolved.
	suffix string
	rank   int
}

// Branch is one branch of a union.
type Branch struct {
	// GoName is the union's field for this branch.
	GoName string
	Type   *Type
	// Kinds are the JSON kinds the branch can decode.
	Kinds []jsontree.Kind
}

// Tool is one tool with its generated types.
type Tool struct {
	Name        string
	Title       string
	Description string
	// Source is the tool as the snapshot lists it, exact bytes included:
	// what the generated package keeps of the server's own words, and
	// what the provider declarations are computed from.
	Source runtime.Tool
	// GoName is the tool's Go name, used for the Client method; the types
	// are GoName+"Args" and GoName+"Result".
	GoName string
	// Args is the type of the arguments, always named; Result is the type
	// of the structured result, or nil without an output schema.
	Args, Result *Type
	// RawChecks lists the keywords of the input schema that only the
	// tool's own schema checks (see the package doc); ResultRawChecks does
	// the same for the output schema.
	RawChecks, ResultRawChecks []string
}

// Package is the IR of a whole tool list.
type Package struct {
	// Tools are sorted by name.
	Tools []*Tool
	// Types are every named type, in the order they were named.
	Types []*Type
	// Skipped are the tools left out because no call of them can succeed,
	// each with why, in name order; Options.Strict refuses them instead.
	Skipped []*Error
	// Prompts and Templates are the server's prompts and resource
	// templates, sorted by name (see AddListings).
	Prompts   []*Prompt
	Templates []*Template
	// names and methods are the scopes of package-level identifiers and of
	// Client methods, kept for AddListings.
	names, methods *scope
	// steps counts the conversions and allOf merge steps the build took.
	steps int
	// fieldNames caches Exported(key, "Field") of the property names
	// converted, which large servers repeat thousands of times.
	fieldNames map[string]string
	// patterns remembers the error of each pattern compiled so far, nil
	// for those that compile: schemas repeat the same patterns many times.
	patterns map[string]error
}

// Error is a schema construct the generator cannot map, or a tool no call
// of which can succeed.
type Error struct {
	Tool    string
	Pointer string
	Msg     string
	// Uncallable reports a tool no call of which can ever succeed (see
	// uncallable.go): the meta-schema rejects one of its schemas, or no
	// arguments or no result satisfy them. Build leaves such a tool out,
	// unless Options.Strict.
	Uncallable bool

	// limit reports a schema over the Limits, which stops the build even
	// when the tool is uncallable too.
	limit bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("tool %q: %s: %s", e.Tool, e.Pointer, e.Msg)
}

// IsNamed reports whether t is emitted as its own type declaration.
func (t *Type) IsNamed() bool { return t.Name != "" }

// Underlying returns t without Nullable wrappers.
func (t *Type) Underlying() *Type {
	for t.Kind == Nullable {
		t = t.Elem
	}
	return t
}

// NilAble reports whether the Go type of t has a nil value of its own, so
// that an optional or nullable field of it needs no pointer.
func (t *Type) NilAble() bool {
	switch t.Kind {
	case Raw, Slice, Map:
		return true
	}
	return false
}

// JSONKinds returns the JSON kinds a value of t can take.
func (t *Type) JSONKinds() []jsontree.Kind {
	switch t.Kind {
	case Bool:
		return []jsontree.Kind{jsontree.Bool}
	case Int, Number:
		return []jsontree.Kind{jsontree.Number}
	case String:
		return []jsontree.Kind{jsontree.String}
	case Struct, Map:
		return []jsontree.Kind{jsontree.Object}
	case Slice:
		return []jsontree.Kind{jsontree.Array}
	case Enum:
		return (&Type{Kind: t.Base}).JSONKinds()
	case Const:
		return []jsontree.Kind{t.Const.Kind}
	case Nullable:
		return append(t.Elem.JSONKinds(), jsontree.Null)
	case Union:
		var out []jsontree.Kind
		seen := map[jsontree.Kind]bool{}
		for _, b := range t.Branches {
			for _, k := range b.Kinds {
				if !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
		return out
	}
	return []jsontree.Kind{jsontree.Null, jsontree.Bool, jsontree.Number, jsontree.String, jsontree.Array, jsontree.Object}
}
