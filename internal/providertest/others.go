package providertest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
)

var (
	anthropicName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
	openAIName    = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

// CheckAnthropic reports every way in which a JSON array of Anthropic tool
// declarations breaks the API's rules: names, unique names, an input_schema
// of type object with no anyOf, oneOf or allOf at its top level.
func CheckAnthropic(toolsJSON []byte) []error {
	var tools []struct {
		Name        string         `json:"name"`
		InputSchema map[string]any `json:"input_schema"`
	}
	if err := json.Unmarshal(toolsJSON, &tools); err != nil {
		return []error{fmt.Errorf("tools do not decode: %v", err)}
	}
	var errs []error
	seen := map[string]bool{}
	for i, t := range tools {
		at := fmt.Sprintf("tool %d (%s)", i, t.Name)
		if !anthropicName.MatchString(t.Name) {
			errs = append(errs, fmt.Errorf("%s: invalid name", at))
		}
		if seen[t.Name] {
			errs = append(errs, fmt.Errorf("%s: name declared twice", at))
		}
		seen[t.Name] = true
		if t.InputSchema == nil {
			errs = append(errs, fmt.Errorf("%s: no input_schema", at))
			continue
		}
		if t.InputSchema["type"] != "object" {
			errs = append(errs, fmt.Errorf("%s: input_schema type is %v, not object", at, t.InputSchema["type"]))
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf", "$ref", "not"} {
			if _, ok := t.InputSchema[k]; ok {
				errs = append(errs, fmt.Errorf("%s: input_schema has %s at its top level", at, k))
			}
		}
	}
	return errs
}

// strictKeys are the keywords OpenAI's strict mode accepts.
var strictKeys = []string{
	"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
	"description", "title", "$ref", "$defs", "definitions", "pattern", "format",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
}

// CheckOpenAI reports every way in which a JSON array of OpenAI function
// definitions breaks the API's rules: names, unique names, parameters of
// type object without a top-level union, and for definitions with strict
// set, the strict-mode rules: every object has additionalProperties false
// and lists all its properties in required, no oneOf, allOf or not, only
// the keywords strict mode accepts, and every schema typed (or a $ref,
// anyOf, enum or const).
func CheckOpenAI(defsJSON []byte) []error {
	var defs []struct {
		Name       string         `json:"name"`
		Strict     *bool          `json:"strict"`
		Parameters map[string]any `json:"parameters"`
	}
	if err := json.Unmarshal(defsJSON, &defs); err != nil {
		return []error{fmt.Errorf("definitions do not decode: %v", err)}
	}
	var errs []error
	seen := map[string]bool{}
	for i, d := range defs {
		at := fmt.Sprintf("function %d (%s)", i, d.Name)
		if !openAIName.MatchString(d.Name) {
			errs = append(errs, fmt.Errorf("%s: invalid name", at))
		}
		if seen[d.Name] {
			errs = append(errs, fmt.Errorf("%s: name declared twice", at))
		}
		seen[d.Name] = true
		if d.Parameters == nil {
			errs = append(errs, fmt.Errorf("%s: no parameters", at))
			continue
		}
		if d.Parameters["type"] != "object" {
			errs = append(errs, fmt.Errorf("%s: parameters type is %v, not object", at, d.Parameters["type"]))
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf", "$ref", "not"} {
			if _, ok := d.Parameters[k]; ok {
				errs = append(errs, fmt.Errorf("%s: parameters have %s at the top level", at, k))
			}
		}
		if d.Strict != nil && *d.Strict {
			errs = append(errs, checkStrict(at+": parameters", d.Parameters, true)...)
		}
	}
	return errs
}

func checkStrict(at string, v any, root bool) []error {
	s, ok := v.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("%s: schema is %T, not an object", at, v)}
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
	}
	for k := range s {
		if !slices.Contains(strictKeys, k) {
			fail("keyword %s is not allowed in strict mode", k)
		}
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if v, ok := s[k]; ok {
			if _, isNum := v.(float64); !isNum {
				fail("%s is %v, not a number", k, v)
			}
		}
	}
	_, hasType := s["type"]
	_, hasRef := s["$ref"]
	_, hasAnyOf := s["anyOf"]
	_, hasEnum := s["enum"]
	_, hasConst := s["const"]
	if !hasType && !hasRef && !hasAnyOf && !hasEnum && !hasConst {
		fail("schema has no type")
	}
	types := map[string]bool{}
	switch t := s["type"].(type) {
	case string:
		types[t] = true
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				types[str] = true
			}
		}
	}
	if types["object"] {
		props, _ := s["properties"].(map[string]any)
		if props == nil && !root {
			fail("object without properties")
		}
		if s["additionalProperties"] != false {
			fail("object without additionalProperties: false")
		}
		req, _ := s["required"].([]any)
		if len(req) != len(props) {
			fail("required lists %d names for %d properties", len(req), len(props))
		}
		for _, r := range req {
			if name, _ := r.(string); props[name] == nil {
				fail("required %v is not a property", r)
			}
		}
		for _, name := range sortedKeys(props) {
			errs = append(errs, checkStrict(at+".properties."+name, props[name], false)...)
		}
	}
	if types["array"] {
		if s["items"] == nil {
			fail("array without items")
		} else {
			errs = append(errs, checkStrict(at+".items", s["items"], false)...)
		}
	}
	if a, ok := s["anyOf"].([]any); ok {
		for i, b := range a {
			errs = append(errs, checkStrict(fmt.Sprintf("%s.anyOf[%d]", at, i), b, false)...)
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := s[key].(map[string]any); ok {
			for _, name := range sortedKeys(defs) {
				errs = append(errs, checkStrict(at+"."+key+"."+name, defs[name], false)...)
			}
		}
	}
	return errs
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
