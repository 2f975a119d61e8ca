package openai

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
)

// ValidName reports whether the OpenAI API accepts name as a function name as it
// is. Other names are rewritten: each disallowed character (such as the dot
// in light.turn_on) becomes '_', and a name that is too long, or taken, ends
// in '_' and six hex digits of a hash of the MCP name.
func ValidName(name string) bool { return toolname.OpenAI.Valid(name) }

// Options tune FunctionDefinitions. A nil *Options means the zero value.
type Options struct {
	// Strict declares each tool in strict mode when its schema allows it:
	// every object closed (additionalProperties false) with all its
	// properties required, optional properties made nullable, oneOf turned
	// into anyOf, and keywords strict mode rejects moved into descriptions.
	// A tool whose schema strict mode cannot express (a free-form object, a
	// value of any type, allOf below the top level, a tuple, a required
	// name that properties does not declare, a top-level union whose
	// branches declare properties of their own, enums beyond
	// strict mode's documented size limits) is declared with Strict set
	// to false instead. The handler removes the nulls a
	// strict model sends for properties it leaves out.
	Strict bool
	// Search, when set, puts a Toolset in deferred mode (see
	// runtime.ToolSearch): a request declares the pinned tools and those
	// the model found, not every tool, and MaxTools bounds what one
	// request declares rather than the whole list. With Native set, only
	// the Responses API can carry the toolset (see Responses). Function
	// definitions ignore it.
	Search *runtime.ToolSearch
}

// FunctionDefinitions returns one function definition per MCP tool, in the
// order of tools, and a map from each declared name to the MCP tool name.
//
// Names the API rejects are rewritten (see ValidName). The parameters are
// the server's schema, except at the top level, which must be a plain
// object: a top-level $ref is inlined, allOf branches are merged, and an
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
func FunctionDefinitions(tools []runtime.Tool, opts *Options) ([]shared.FunctionDefinitionParam, map[string]string, error) {
	defs, names, _, err := definitions(tools, opts)
	return defs, names, err
}

func definitions(tools []runtime.Tool, opts *Options) ([]shared.FunctionDefinitionParam, map[string]string, []bool, error) {
	if opts == nil {
		opts = &Options{}
	}
	decls, reverse, err := provschema.Declare("OpenAI", tools, toolname.OpenAI)
	if err != nil {
		return nil, nil, nil, err
	}
	defs := make([]shared.FunctionDefinitionParam, len(decls))
	strict := make([]bool, len(decls))
	for i, decl := range decls {
		d := shared.FunctionDefinitionParam{Name: decl.Name, Description: openai.String(decl.Description)}
		params := decl.Root
		if opts.Strict {
			if s, reason := provschema.StrictDecl(decl); reason == "" {
				params, strict[i] = s, true
				d.Strict = openai.Bool(true)
			} else {
				d.Strict = openai.Bool(false)
			}
		}
		d.Parameters = parameters(params)
		defs[i] = d
	}
	return defs, reverse, strict, nil
}

// parameters turns a schema object into FunctionParameters whose values
// are raw JSON, so that nested key order survives encoding.
func parameters(n *jsontree.Node) shared.FunctionParameters {
	p := make(shared.FunctionParameters, len(n.Members))
	for _, m := range n.Members {
		p[m.Key] = json.RawMessage(m.Value.String())
	}
	return p
}
