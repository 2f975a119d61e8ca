package main

import (
	"encoding/json"
	"fmt"
)

// syntheticTools returns a tools/list result of n tools whose schemas mix
// the constructs real servers send, in the proportions of the survey of 85
// servers and 2,897 tools in ../shared/docs/design.md: mostly described
// strings, numbers with bounds and defaults, booleans and nullable type
// lists; an enum in about a third of the tools (some with values that
// collide as identifiers), anyOf in about one in eight, and rarer $ref into
// $defs, const-tagged oneOf unions, allOf, const, nested objects, maps and
// multi-type lists; names that are not Go identifiers or are Go keywords;
// annotations and titles; and an output schema on one tool in sixteen. The
// result depends on n alone.
func syntheticTools(n int) []byte {
	tools := make([]map[string]any, n)
	for i := range tools {
		tools[i] = syntheticTool(i)
	}
	data, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		panic(err) // maps of plain values always encode
	}
	return data
}

// kindWeights are how often each of propertyKinds is drawn, per thousand
// properties; a tool has 6.5 properties on average.
var kindWeights = []int{
	300, // described string
	120, // bounded integer with a default
	50,  // string enum
	180, // nullable string, as a type list
	80,  // boolean with a default
	60,  // array of strings
	40,  // anyOf with null
	40,  // string with a pattern
	5,   // $ref into $defs
	30,  // array of objects
	10,  // map of numbers
	30,  // open nested object
	3,   // const-tagged oneOf
	6,   // const
	5,   // multi-type list with null
	2,   // allOf of two numeric constraints
	5,   // anyOf object or string
	34,  // string with a format
}

// pickKind draws a property kind for property j of tool i.
func pickKind(i, j int) int {
	h := uint32(i)*2654435761 ^ uint32(j+1)*2246822519
	h ^= h >> 15
	h *= 2654435761
	h ^= h >> 13
	r := int(h % 1000)
	for k, w := range kindWeights {
		if r < w {
			return k
		}
		r -= w
	}
	return 0
}

// propertyKinds are the property schemas tools draw from, most common first.
var propertyKinds = []func(i int) any{
	func(i int) any {
		return obj("type", "string", "description", fmt.Sprintf("The `name` of thing %d.", i))
	},
	func(i int) any { return obj("type", "integer", "minimum", 0, "maximum", 100+i%7, "default", 10) },
	func(i int) any {
		return obj("type", "string", "enum", []string{"asc", "desc", "Y", "y", "5m", "*/*", "-timestamp", "timestamp"})
	},
	func(i int) any {
		return obj("type", []string{"string", "null"}, "description", "Nullable, as a type list.")
	},
	func(i int) any { return obj("type", "boolean", "default", i%2 == 0) },
	func(i int) any {
		return obj("type", "array", "minItems", 1, "items", obj("type", "string", "minLength", 1, "maxLength", 64))
	},
	func(i int) any {
		return obj("anyOf", []any{obj("type", "string", "format", "date-time"), obj("type", "null")})
	},
	func(i int) any { return obj("type", "string", "pattern", "^[a-z][a-z0-9_]*$", "maxLength", 128) },
	func(i int) any { return obj("$ref", "#/$defs/Filter", "description", "A filter, by reference.") },
	func(i int) any {
		return obj("type", "array", "maxItems", 50, "items", obj("type", "object",
			"properties", obj("id", obj("type", "string"), "weight", obj("type", "number", "exclusiveMinimum", 0)),
			"required", []string{"id"}, "additionalProperties", false))
	},
	func(i int) any { return obj("type", "object", "additionalProperties", obj("type", "number")) },
	func(i int) any {
		return obj("type", "object", "properties", obj(
			"street", obj("type", "string"), "zip", obj("type", "string", "pattern", "^[0-9]{5}$"),
			"geo", obj("type", "object", "properties", obj("lat", obj("type", "number", "minimum", -90, "maximum", 90), "lon", obj("type", "number")))),
			"additionalProperties", true)
	},
	func(i int) any {
		return obj("oneOf", []any{
			obj("type", "object", "properties", obj("type", obj("const", "text"), "text", obj("type", "string")), "required", []string{"type", "text"}),
			obj("type", "object", "properties", obj("type", obj("const", "image"), "url", obj("type", "string", "format", "uri")), "required", []string{"type", "url"}),
		})
	},
	func(i int) any { return obj("const", "v1") },
	func(i int) any { return obj("type", []string{"string", "number", "boolean", "null"}) },
	func(i int) any {
		return obj("allOf", []any{obj("type", "integer", "minimum", 0), obj("type", "number", "maximum", 50)})
	},
	func(i int) any {
		return obj("anyOf", []any{obj("type", "object", "properties", obj("q", obj("type", "string"))), obj("type", "string")})
	},
	func(i int) any {
		return obj("type", "string", "format", "email", "description", "Ends a comment: */ and goes on.")
	},
}

// propertyNames mix plain names, snake and camel twins, Go keywords and
// names that are not identifiers.
var propertyNames = []string{"query", "limit", "order", "type", "range", "order_by", "orderBy", "auth-method", "page.size", "func", "$filter", "{{userName}}", "items", "properties", "default", "select", "map", "go", "id", "tags"}

func syntheticTool(i int) map[string]any {
	nprops := 3 + i%8
	props := make([]any, 0, 2*nprops)
	var required []string
	usesRef := false
	seen := map[string]bool{}
	for j := range nprops {
		name := propertyNames[(i+j*7)%len(propertyNames)]
		if seen[name] {
			name = fmt.Sprintf("%s_%d", name, j)
		}
		seen[name] = true
		k := pickKind(i, j)
		if k == 8 {
			usesRef = true
		}
		props = append(props, name, propertyKinds[k](i+j))
		if j%3 == 0 {
			required = append(required, name)
		}
	}
	schema := map[string]any{"type": "object", "properties": obj(props...), "required": required}
	switch i % 4 {
	case 0:
		schema["$schema"] = "http://json-schema.org/draft-07/schema#"
		schema["additionalProperties"] = false
	case 1:
		schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	case 2:
		schema["additionalProperties"] = true
	}
	if usesRef {
		schema["$defs"] = obj("Filter", obj("type", "object",
			"properties", obj("field", obj("type", "string"), "op", obj("type", "string", "enum", []string{"eq", "ne", "lt", "gt"}), "value", obj()),
			"required", []string{"field", "op"}))
	}
	name := fmt.Sprintf("tool_%d", i)
	switch i % 5 {
	case 1:
		name = fmt.Sprintf("get-item-%d", i)
	case 3:
		name = fmt.Sprintf("ns.list%dItems", i)
	}
	tool := map[string]any{
		"name":        name,
		"description": fmt.Sprintf("Tool %d does one thing well; pass `query` to narrow it down.", i),
		"inputSchema": schema,
	}
	if i%3 != 2 {
		tool["annotations"] = obj("readOnlyHint", i%2 == 0, "openWorldHint", false)
	}
	if i%2 == 0 {
		tool["title"] = fmt.Sprintf("Tool number %d", i)
	}
	if i%16 == 5 {
		tool["outputSchema"] = obj("type", "object",
			"properties", obj("count", obj("type", "integer"), "items", obj("type", "array", "items", obj("type", "string")), "(default)", obj("type", "string")),
			"required", []string{"count"})
	}
	return tool
}

// obj builds a JSON object from alternating keys and values.
func obj(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}
