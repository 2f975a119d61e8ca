package geminidecl

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// AppendJSON appends d as JSON to b, byte for byte as encoding/json, with
// HTML escaping off, encodes the genai.FunctionDeclaration runtime/gemini
// makes of it: the members in genai's field order, the properties of an
// object sorted by name, numbers and strings as encoding/json writes them.
// TestAppendJSONIsEncodingJSON, in runtime/gemini, holds it to that over
// the corpus of testdata/servers.
func (d *Declaration) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	b = appendStringMember(b, &first, "description", d.Description)
	b = appendStringMember(b, &first, "name", d.Name)
	if d.Parameters != nil {
		b = appendKey(b, &first, "parameters")
		b = d.Parameters.appendJSON(b)
	}
	if d.ParametersJSONSchema != nil {
		b = appendKey(b, &first, "parametersJsonSchema")
		// Declare compacted it already.
		b = append(b, d.ParametersJSONSchema...)
	}
	return append(b, '}')
}

func (s *Schema) appendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	if len(s.AnyOf) > 0 {
		b = appendKey(b, &first, "anyOf")
		b = append(b, '[')
		for i, a := range s.AnyOf {
			if i > 0 {
				b = append(b, ',')
			}
			b = a.appendJSON(b)
		}
		b = append(b, ']')
	}
	b = appendStringMember(b, &first, "description", s.Description)
	if len(s.Enum) > 0 {
		b = appendKey(b, &first, "enum")
		b = appendStrings(b, s.Enum)
	}
	b = appendStringMember(b, &first, "format", s.Format)
	if s.Items != nil {
		b = appendKey(b, &first, "items")
		b = s.Items.appendJSON(b)
	}
	b = appendIntMember(b, &first, "maxItems", s.MaxItems)
	b = appendIntMember(b, &first, "maxLength", s.MaxLength)
	b = appendIntMember(b, &first, "maxProperties", s.MaxProperties)
	b = appendFloatMember(b, &first, "maximum", s.Maximum)
	b = appendIntMember(b, &first, "minItems", s.MinItems)
	b = appendIntMember(b, &first, "minLength", s.MinLength)
	b = appendIntMember(b, &first, "minProperties", s.MinProperties)
	b = appendFloatMember(b, &first, "minimum", s.Minimum)
	if s.Nullable {
		b = appendKey(b, &first, "nullable")
		b = append(b, "true"...)
	}
	if len(s.Properties) > 0 {
		// encoding/json writes a map's keys sorted.
		sorted := s.Properties
		if !slices.IsSortedFunc(sorted, compareProperties) {
			sorted = slices.Clone(sorted)
			slices.SortFunc(sorted, compareProperties)
		}
		b = appendKey(b, &first, "properties")
		b = append(b, '{')
		for i, p := range sorted {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontree.AppendString(b, p.Name)
			b = append(b, ':')
			b = p.Schema.appendJSON(b)
		}
		b = append(b, '}')
		b = appendKey(b, &first, "propertyOrdering")
		b = append(b, '[')
		for i, p := range s.Properties {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontree.AppendString(b, p.Name)
		}
		b = append(b, ']')
	}
	if len(s.Required) > 0 {
		b = appendKey(b, &first, "required")
		b = appendStrings(b, s.Required)
	}
	b = appendStringMember(b, &first, "type", s.Type)
	return append(b, '}')
}

func compareProperties(a, b Property) int { return strings.Compare(a.Name, b.Name) }

// appendKey appends a member's key and colon, after a comma unless it is
// the first member.
func appendKey(b []byte, first *bool, key string) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendStringMember appends the member key: v unless v is empty, as
// omitempty leaves it out.
func appendStringMember(b []byte, first *bool, key, v string) []byte {
	if v == "" {
		return b
	}
	return jsontree.AppendString(appendKey(b, first, key), v)
}

func appendIntMember(b []byte, first *bool, key string, v *int64) []byte {
	if v == nil {
		return b
	}
	return strconv.AppendInt(appendKey(b, first, key), *v, 10)
}

func appendFloatMember(b []byte, first *bool, key string, v *float64) []byte {
	if v == nil {
		return b
	}
	return appendFloat(appendKey(b, first, key), *v)
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontree.AppendString(b, s)
	}
	return append(b, ']')
}

// appendFloat writes f as encoding/json does: like %g, but in plain
// notation from 1e-6 up to 1e21, and with exponents not padded to two
// digits. f is finite: it was read from JSON.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
