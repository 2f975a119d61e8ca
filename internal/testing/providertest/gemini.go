// Package providertest holds checkers for the tool declarations mcpgen hands
// to model providers. Each checker encodes a provider's documented limits,
// so tests over any corpus of tools can assert that every declaration would
// be accepted.
package providertest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"google.golang.org/genai"
)

var (
	geminiFuncName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$`)
	geminiParamName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
)

// Fields the typed Gemini Schema may carry, by type. The list is narrower
// than the genai.Schema struct: it holds what the Gemini API accepts in
// function declarations.
var geminiFields = map[genai.Type][]string{
	genai.TypeString:  {"enum", "format", "minLength", "maxLength"},
	genai.TypeInteger: {"minimum", "maximum"},
	genai.TypeNumber:  {"minimum", "maximum"},
	genai.TypeBoolean: {},
	genai.TypeArray:   {"items", "minItems", "maxItems"},
	genai.TypeObject:  {"properties", "propertyOrdering", "required", "minProperties", "maxProperties"},
}

// CheckGemini reports every way in which decls break the Gemini API's rules
// for function declarations: names, non-empty descriptions, one parameters
// form at most, and in the typed form the fields allowed per type,
// string-only enums without empty values, typed anyOf branches, arrays
// with items and objects with properties. It returns nil when all is well.
func CheckGemini(decls []*genai.FunctionDeclaration) []error {
	var errs []error
	seen := map[string]bool{}
	for i, d := range decls {
		if d == nil {
			errs = append(errs, fmt.Errorf("declaration %d is nil", i))
			continue
		}
		at := d.Name
		if !geminiFuncName.MatchString(d.Name) {
			errs = append(errs, fmt.Errorf("%s: invalid function name %q", at, d.Name))
		}
		if seen[d.Name] {
			errs = append(errs, fmt.Errorf("%s: function name declared twice", at))
		}
		seen[d.Name] = true
		if strings.TrimSpace(d.Description) == "" {
			errs = append(errs, fmt.Errorf("%s: empty description", at))
		}
		if d.Parameters != nil && d.ParametersJsonSchema != nil {
			errs = append(errs, fmt.Errorf("%s: both Parameters and ParametersJsonSchema are set", at))
		}
		if d.ParametersJsonSchema != nil {
			errs = append(errs, checkJSONSchemaParams(at, d.ParametersJsonSchema)...)
		}
		if d.Parameters != nil {
			if d.Parameters.Type != genai.TypeObject {
				errs = append(errs, fmt.Errorf("%s: parameters: type is %q, not OBJECT", at, d.Parameters.Type))
			}
			errs = append(errs, checkGeminiSchema(at+": parameters", d.Parameters)...)
		}
	}
	return errs
}

func checkJSONSchemaParams(at string, v any) []error {
	b, err := json.Marshal(v)
	if err != nil {
		return []error{fmt.Errorf("%s: parametersJsonSchema does not marshal: %v", at, err)}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return []error{fmt.Errorf("%s: parametersJsonSchema is not a JSON object", at)}
	}
	if t, ok := m["type"]; ok && t != "object" {
		return []error{fmt.Errorf("%s: parametersJsonSchema type is %v, not object", at, t)}
	}
	return nil
}

func checkGeminiSchema(at string, s *genai.Schema) []error {
	if s == nil {
		return []error{fmt.Errorf("%s: nil schema", at)}
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
	}
	keys := schemaKeys(s)
	common := []string{"type", "description", "nullable", "title"}
	if len(s.AnyOf) > 0 {
		for _, k := range keys {
			if !slices.Contains([]string{"anyOf", "description", "nullable", "title"}, k) {
				fail("field %s beside anyOf", k)
			}
		}
		for i, b := range s.AnyOf {
			if b == nil || b.Type == "" {
				fail("anyOf branch %d has no type", i)
				continue
			}
			errs = append(errs, checkGeminiSchema(fmt.Sprintf("%s.anyOf[%d]", at, i), b)...)
		}
		return errs
	}
	allowed, ok := geminiFields[s.Type]
	if !ok {
		fail("type %q is not allowed", s.Type)
		return errs
	}
	for _, k := range keys {
		if !slices.Contains(common, k) && !slices.Contains(allowed, k) {
			fail("field %s is not allowed on %s", k, s.Type)
		}
	}
	if s.Format != "" && s.Format != "date-time" && s.Format != "enum" {
		fail("format %q is not allowed", s.Format)
	}
	for i, v := range s.Enum {
		if v == "" {
			fail("enum value %d is empty", i)
		}
	}
	switch s.Type {
	case genai.TypeArray:
		if s.Items == nil {
			fail("ARRAY without items")
		} else {
			errs = append(errs, checkGeminiSchema(at+".items", s.Items)...)
		}
	case genai.TypeObject:
		if len(s.Properties) == 0 {
			fail("OBJECT without properties")
		}
		names := make([]string, 0, len(s.Properties))
		for name := range s.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		if len(s.PropertyOrdering) > 0 {
			ord := slices.Clone(s.PropertyOrdering)
			sort.Strings(ord)
			if !slices.Equal(ord, names) {
				fail("propertyOrdering %v does not list the properties %v", s.PropertyOrdering, names)
			}
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				fail("required %q is not a property", r)
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(s.Required)))) != len(s.Required) {
			fail("required lists a property twice")
		}
		for _, name := range names {
			if !geminiParamName.MatchString(name) {
				fail("invalid parameter name %q", name)
			}
			errs = append(errs, checkGeminiSchema(at+".properties."+name, s.Properties[name])...)
		}
	}
	return errs
}

// schemaKeys returns the JSON keys a schema encodes, without its children's.
func schemaKeys(s *genai.Schema) []string {
	b, err := json.Marshal(s)
	if err != nil {
		return []string{"<unmarshalable>"}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return []string{"<not an object>"}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
