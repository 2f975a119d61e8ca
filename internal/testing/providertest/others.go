package providertest

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/schema"
)

var (
	anthropicName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
	openAIName    = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

// declaration is one tool of a provider's list: its name and its schema
// (nil when absent).
type declaration struct {
	name   string
	schema *jsontree.Node
	strict bool
}

// declarations reads a JSON array of tool declarations, taking each one's
// schema from the member schemaKey.
func declarations(data []byte, schemaKey string) ([]declaration, error) {
	list, err := jsontree.Parse(data)
	if err != nil {
		return nil, err
	}
	if list.Kind != jsontree.Array {
		return nil, fmt.Errorf("the declarations are a JSON %s, not an array", list.Kind)
	}
	out := make([]declaration, 0, len(list.Items))
	for i, it := range list.Items {
		if it.Kind != jsontree.Object {
			return nil, fmt.Errorf("declaration %d is a JSON %s, not an object", i, it.Kind)
		}
		name, _ := it.Get("name").StringValue()
		d := declaration{name: name, schema: it.Get(schemaKey)}
		if d.schema != nil && d.schema.Kind == jsontree.Null {
			d.schema = nil
		}
		if st := it.Get("strict"); st != nil && st.Kind == jsontree.Bool {
			d.strict = st.Bool
		}
		out = append(out, d)
	}
	return out, nil
}

// checkTop reports a top-level schema that is not of type object or that
// has a union, reference or not at its top level.
func checkTop(at, what string, s *jsontree.Node) []error {
	var errs []error
	switch t := s.Get("type"); {
	case t == nil:
		errs = append(errs, fmt.Errorf("%s: %s has no type, not object", at, what))
	case t.Kind != jsontree.String || t.Str != "object":
		errs = append(errs, fmt.Errorf("%s: %s type is %s, not object", at, what, t))
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "$ref", "not"} {
		if s.Has(k) {
			errs = append(errs, fmt.Errorf("%s: %s has %s at its top level", at, what, k))
		}
	}
	return errs
}

// CheckAnthropic reports every way in which a JSON array of Anthropic tool
// declarations breaks the API's rules: names, unique names, an input_schema
// of type object with no anyOf, oneOf or allOf at its top level.
func CheckAnthropic(toolsJSON []byte) []error {
	tools, err := declarations(toolsJSON, "input_schema")
	if err != nil {
		return []error{fmt.Errorf("tools do not decode: %v", err)}
	}
	var errs []error
	seen := map[string]bool{}
	for i, t := range tools {
		at := fmt.Sprintf("tool %d (%s)", i, t.name)
		if !anthropicName.MatchString(t.name) {
			errs = append(errs, fmt.Errorf("%s: invalid name", at))
		}
		if seen[t.name] {
			errs = append(errs, fmt.Errorf("%s: name declared twice", at))
		}
		seen[t.name] = true
		if t.schema == nil || t.schema.Kind != jsontree.Object {
			errs = append(errs, fmt.Errorf("%s: no input_schema", at))
			continue
		}
		errs = append(errs, checkTop(at, "input_schema", t.schema)...)
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
	defs, err := declarations(defsJSON, "parameters")
	if err != nil {
		return []error{fmt.Errorf("definitions do not decode: %v", err)}
	}
	var errs []error
	seen := map[string]bool{}
	for i, d := range defs {
		at := fmt.Sprintf("function %d (%s)", i, d.name)
		if !openAIName.MatchString(d.name) {
			errs = append(errs, fmt.Errorf("%s: invalid name", at))
		}
		if seen[d.name] {
			errs = append(errs, fmt.Errorf("%s: name declared twice", at))
		}
		seen[d.name] = true
		if d.schema == nil || d.schema.Kind != jsontree.Object {
			errs = append(errs, fmt.Errorf("%s: no parameters", at))
			continue
		}
		errs = append(errs, checkTop(at, "parameters", d.schema)...)
		if d.strict {
			errs = append(errs, checkStrict(at+": parameters", d.schema, true)...)
		}
	}
	return errs
}

func checkStrict(at string, s *jsontree.Node, root bool) []error {
	if s.Kind != jsontree.Object {
		return []error{fmt.Errorf("%s: schema is a JSON %s, not an object", at, s.Kind)}
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
	}
	for _, k := range s.Keys() {
		if !slices.Contains(strictKeys, k) {
			fail("keyword %s is not allowed in strict mode", k)
		}
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if v := s.Get(k); v != nil && v.Kind != jsontree.Number {
			fail("%s is %s, not a number", k, v)
		}
	}
	if !s.Has("type") && !s.Has("$ref") && !s.Has("anyOf") && !s.Has("enum") && !s.Has("const") {
		fail("schema has no type")
	}
	types := schema.Types(s.Get("type"))
	if slices.Contains(types, "object") {
		props := s.Get("properties")
		if props == nil || props.Kind != jsontree.Object {
			if !root {
				fail("object without properties")
			}
			props = &jsontree.Node{Kind: jsontree.Object}
		}
		if ap := s.Get("additionalProperties"); ap == nil || ap.Kind != jsontree.Bool || ap.Bool {
			fail("object without additionalProperties: false")
		}
		var req []*jsontree.Node
		if r := s.Get("required"); r != nil && r.Kind == jsontree.Array {
			req = r.Items
		}
		if len(req) != len(props.Members) {
			fail("required lists %d names for %d properties", len(req), len(props.Members))
		}
		for _, r := range req {
			if name, _ := r.StringValue(); props.Get(name) == nil {
				fail("required %s is not a property", r)
			}
		}
		for _, m := range props.Members {
			errs = append(errs, checkStrict(at+".properties."+m.Key, m.Value, false)...)
		}
	}
	if slices.Contains(types, "array") {
		if items := s.Get("items"); items == nil {
			fail("array without items")
		} else {
			errs = append(errs, checkStrict(at+".items", items, false)...)
		}
	}
	if a := s.Get("anyOf"); a != nil && a.Kind == jsontree.Array {
		for i, b := range a.Items {
			errs = append(errs, checkStrict(fmt.Sprintf("%s.anyOf[%d]", at, i), b, false)...)
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs := s.Get(key); defs != nil && defs.Kind == jsontree.Object {
			for _, m := range defs.Members {
				errs = append(errs, checkStrict(at+"."+key+"."+m.Key, m.Value, false)...)
			}
		}
	}
	return errs
}
