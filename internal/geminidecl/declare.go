// Package geminidecl converts MCP tools into Gemini function declarations:
// the names Gemini accepts, and each input schema in the typed form or the
// JSON Schema form. It is the one converter behind runtime/gemini, which
// turns its declarations into genai's types for programs, and behind the
// generator, which writes them into generated code as JSON (AppendJSON)
// without linking the Gemini SDK. The rules are documented on
// runtime/gemini.Declarations.
package geminidecl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/parallel"
	"github.com/mcpgen/mcpgen/internal/schema"
	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
)

// MaxFunctionDeclarations is the most function declarations one Gemini
// request may carry, as genai documents it on Tool.FunctionDeclarations
// (see runtime/gemini.MaxFunctionDeclarations).
const MaxFunctionDeclarations = 512

// Declaration is one function declaration: at most one of Parameters and
// ParametersJSONSchema is set, neither for a tool without parameters.
type Declaration struct {
	Name        string
	Description string
	// Parameters is the typed form (genai's Parameters).
	Parameters *Schema
	// ParametersJSONSchema is the server's schema, compacted, with a type
	// list at its root declared "object" (genai's ParametersJsonSchema).
	ParametersJSONSchema json.RawMessage
}

// nameRules are the function names Gemini accepts: a letter or '_', then
// letters, digits, '_', '.', ':' or '-', at most 64 characters (the API
// enforces 64, though the SDK documents 128).
var nameRules = toolname.Rules{
	MaxLen: 64,
	First:  func(c byte) bool { return toolname.IsLetter(c) || c == '_' },
	Rest: func(c byte) bool {
		return toolname.IsLetter(c) || toolname.IsDigit(c) || c == '_' || c == '.' || c == ':' || c == '-'
	},
	Prefix:   "_",
	Reserved: []string{toolname.SearchFunction},
}

// ValidName reports whether Gemini accepts name as a function name as it is.
func ValidName(name string) bool { return nameRules.Valid(name) }

// Declare returns one declaration per tool, in the order of tools, and a
// map from each declared function name to the MCP tool name. With
// jsonSchema set, every tool is declared in the JSON Schema form.
//
// inputs, when not nil, holds each tool's input schema as jsontree.Parse
// read it (nil for a tool without one), which Declare then uses instead of
// parsing InputSchema again. Parse accepts a subset of what the parse of
// Declare accepts and gives the same tree, apart from nesting depth, which
// Declare checks.
func Declare(tools []runtime.Tool, inputs []*jsontree.Node, jsonSchema bool) ([]*Declaration, map[string]string, error) {
	if inputs != nil && len(inputs) != len(tools) {
		return nil, nil, fmt.Errorf("declaring tools for Gemini: %d parsed input schemas for %d tools", len(inputs), len(tools))
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	declared, err := toolname.Assign(names, nameRules)
	if err != nil {
		return nil, nil, fmt.Errorf("declaring tools for Gemini: %w", err)
	}
	decls := make([]*Declaration, len(tools))
	errs := make([]error, len(tools))
	eachTool(len(tools), func(i int) {
		t := tools[i]
		d := &Declaration{Name: declared[i], Description: toolname.Describe(t)}
		var input *jsontree.Node
		if inputs != nil {
			input = inputs[i]
		}
		errs[i] = setParameters(d, t, input, jsonSchema)
		decls[i] = d
	})
	reverse := make(map[string]string, len(tools))
	for i, t := range tools {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		reverse[declared[i]] = t.Name
	}
	return decls, reverse, nil
}

// ParallelTools is the number of tools from which Declare converts them on
// every processor: a server of hundreds of tools with large schemas takes
// a good part of a second on one.
const ParallelTools = 64

// eachTool calls f for 0 ≤ i < n, on every processor when n reaches
// ParallelTools. Each call must touch only its own index's data.
func eachTool(n int, f func(i int)) {
	if n < ParallelTools {
		for i := range n {
			f(i)
		}
		return
	}
	parallel.For(n, f)
}

// setParameters fills Parameters or ParametersJSONSchema. input is the
// parsed input schema, or nil to parse t's.
func setParameters(d *Declaration, t runtime.Tool, input *jsontree.Node, jsonSchema bool) error {
	raw := bytes.TrimSpace(t.InputSchema)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	root := input
	if root == nil || deeper(root, jsontree.MaxDepth-2) {
		var err error
		if root, err = jsontree.ParseUnique(raw); err != nil {
			return fmt.Errorf("tool %s: reading input schema: %w", t.Name, err)
		}
	}
	if ptr, lit, ok := jsontree.BeyondFloat64(root); ok {
		return fmt.Errorf("tool %s: input schema at %s: the number %s is beyond the range of a float64, which Gemini reads JSON numbers as", t.Name, pointerText(ptr), lit)
	}
	if ptr, err := schema.InvalidRef(root); err != nil {
		return fmt.Errorf("tool %s: input schema at %s: %v", t.Name, pointerText(ptr), err)
	}
	parsed := root
	root = schema.StaticRefs(root)
	c := &converter{tool: t.Name, root: root, maxText: len(raw) + maxExtraText}
	var refs []string
	flat, err := c.flatten(root, nil, &refs)
	if err != nil {
		return err
	}
	// Below the root, a loop of bare $refs is a schema no value passes,
	// left out like false; at the root, it left no arguments valid, and
	// the flatten above refused it, as provschema.Root does.
	c.flat.FalseBareCycles = true
	// A type that names no type (an object, a number, []) is not object
	// either.
	if typ := flat.Get("type"); typ != nil && !slices.Contains(schema.Types(typ), "object") {
		return fmt.Errorf("tool %s: input schema at (root): type is %s, not object", t.Name, typ.String())
	}
	if !hasParameters(flat) {
		return nil
	}
	if jsonSchema {
		d.ParametersJSONSchema = jsonSchemaForm(raw, parsed)
		return nil
	}
	s, pr, err := c.convert(root, nil, 0)
	if err != nil {
		return err
	}
	if pr == nil && len(s.AnyOf) > 0 {
		c.fallbackf(nil, "a union at the top level has no typed form")
	}
	if hasKeySchema(flat) && (pr != nil || len(s.Properties) == 0) {
		c.fallbackf(nil, "an object whose keys are not declared has no typed form")
	}
	if c.fallback != "" {
		d.ParametersJSONSchema = jsonSchemaForm(raw, parsed)
		return nil
	}
	if pr != nil || s.Type != TypeObject || len(s.Properties) == 0 {
		return nil
	}
	s.Nullable = false
	d.Parameters = s
	return nil
}

// jsonSchemaForm returns the JSON Schema form of the input schema raw,
// parsed as root: raw compacted. A root whose type is a list, which holds
// "object" (setParameters checked it), gets type "object" instead, as the
// typed form takes it: Gemini takes parameters that describe an object.
func jsonSchemaForm(raw []byte, root *jsontree.Node) json.RawMessage {
	if t := root.Get("type"); t != nil && t.Kind != jsontree.String {
		out := root.Without()
		out.Set("type", &jsontree.Node{Kind: jsontree.String, Str: "object"})
		return json.RawMessage(out.String())
	}
	return jsontree.AppendCompact(make([]byte, 0, len(raw)), raw)
}

// deeper reports whether n nests more than limit arrays and objects. It
// is asked with a limit a little below ParseUnique's, so that a tree near
// that limit is parsed again and ParseUnique decides.
func deeper(n *jsontree.Node, limit int) bool {
	if limit < 0 {
		return true
	}
	for _, it := range n.Items {
		if deeper(it, limit-1) {
			return true
		}
	}
	for _, m := range n.Members {
		if deeper(m.Value, limit-1) {
			return true
		}
	}
	return false
}

// hasParameters reports whether a flattened root schema declares any
// parameter: properties, a union, a schema for other keys, or a required
// name.
func hasParameters(flat *jsontree.Node) bool {
	if p := flat.Get("properties"); p != nil && p.Kind == jsontree.Object && len(p.Members) > 0 {
		return true
	}
	if flat.Has("anyOf") || flat.Has("oneOf") {
		return true
	}
	if r := flat.Get("required"); r != nil && r.Kind == jsontree.Array && len(r.Items) > 0 {
		return true
	}
	return hasKeySchema(flat)
}

// hasKeySchema reports whether an object schema has a schema for keys it
// does not declare: a non-empty additionalProperties schema, or
// patternProperties.
func hasKeySchema(n *jsontree.Node) bool {
	if ap := n.Get("additionalProperties"); ap != nil && ap.Kind == jsontree.Object && len(ap.Members) > 0 {
		return true
	}
	pp := n.Get("patternProperties")
	return pp != nil && pp.Kind == jsontree.Object && len(pp.Members) > 0
}
