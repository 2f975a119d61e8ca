package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
)

// ValidName reports whether the Anthropic API accepts name as a tool name as it
// is. Other names are rewritten: each disallowed character (such as the dot
// in light.turn_on) becomes '_', and a name that is too long, or taken, ends
// in '_' and six hex digits of a hash of the MCP name.
func ValidName(name string) bool { return toolname.Anthropic.Valid(name) }

// ToolParams returns one tool declaration per MCP tool, in the order of
// tools, and a map from each declared name to the MCP tool name.
//
// Names the API rejects are rewritten (see ValidName). The input schema is
// the server's, except at its top level, where the API takes no anyOf, oneOf
// or allOf: a top-level $ref is inlined, allOf branches are merged, and an
// anyOf or oneOf moves into the description (the handler still validates
// against the server's schema). An empty description becomes the title, or
// a sentence made from the name.
//
// The error names the tool and the JSON pointer of what cannot be declared:
// an input schema that is not an object or is malformed, a top-level $ref
// that does not resolve, a number beyond the range of a float64 (such as
// 1e400), which the API cannot read, a $ref that is not a URI reference
// (a malformed %-escape), which no validator of the tool's arguments
// compiles.
func ToolParams(tools []runtime.Tool) ([]anthropic.ToolParam, map[string]string, error) {
	decls, reverse, err := provschema.Declare("Anthropic", tools, toolname.Anthropic)
	if err != nil {
		return nil, nil, err
	}
	params := make([]anthropic.ToolParam, len(decls))
	for i, d := range decls {
		schema, err := inputSchema(d.Root)
		if err != nil {
			return nil, nil, fmt.Errorf("declaring %s for Anthropic: %w", tools[i].Name, err)
		}
		params[i] = anthropic.ToolParam{
			Name:        d.Name,
			Description: anthropic.String(d.Description),
			InputSchema: schema,
		}
	}
	return params, reverse, nil
}

// inputSchema returns root as the tool's input_schema with its exact bytes:
// "type", "properties" and "required" first, then the other keywords in the
// server's order. The SDK would marshal other keywords from a map, in a
// different order on every run, which breaks prompt caching (it needs
// byte-identical tool definitions) and golden tests.
func inputSchema(root *jsontree.Node) (anthropic.ToolInputSchemaParam, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object"`)
	if p := root.Get("properties"); p != nil {
		b.WriteString(`,"properties":`)
		b.WriteString(p.String())
	}
	if req := provschema.Required(root); len(req) > 0 {
		enc, err := json.Marshal(req)
		if err != nil {
			return anthropic.ToolInputSchemaParam{}, err
		}
		b.WriteString(`,"required":`)
		b.Write(enc)
	}
	for _, m := range root.Members {
		switch m.Key {
		case "type", "properties", "required":
			continue
		}
		key, err := json.Marshal(m.Key)
		if err != nil {
			return anthropic.ToolInputSchemaParam{}, err
		}
		b.WriteByte(',')
		b.Write(key)
		b.WriteByte(':')
		b.WriteString(m.Value.String())
	}
	b.WriteByte('}')
	return param.Override[anthropic.ToolInputSchemaParam](json.RawMessage(b.Bytes())), nil
}
