package provschema

import (
	"fmt"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
)

// A Decl is the part of a provider's tool declaration that needs no SDK:
// the declared name, the description and the input schema's root.
type Decl struct {
	// Name is the name the provider accepts (see toolname.Assign).
	Name string
	// Description is the tool's description, or a sentence made from its
	// title or name, followed by the note Root made, if any.
	Description string
	// Root is the input schema as Root returns it.
	Root *jsontree.Node
	// Union holds the branches of the top-level anyOf and oneOf that Root
	// removed into the description.
	Union []*jsontree.Node
}

// Declare returns one Decl per tool, in the order of tools, and a map from
// each declared name back to the MCP tool name. provider names the API in
// errors. runtime/anthropic and runtime/openai build their SDK values from
// it, and the generator checks in the name map, so both agree without the
// generator depending on either SDK.
func Declare(provider string, tools []runtime.Tool, rules toolname.Rules) ([]Decl, map[string]string, error) {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	declared, err := toolname.Assign(names, rules)
	if err != nil {
		return nil, nil, fmt.Errorf("declaring tools for %s: %w", provider, err)
	}
	decls := make([]Decl, len(tools))
	reverse := make(map[string]string, len(tools))
	for i, t := range tools {
		root, note, union, err := rootAndUnion(t.Name, t.InputSchema)
		if err != nil {
			return nil, nil, err
		}
		desc := toolname.Describe(t)
		if note != "" {
			desc += "\n\n" + note
		}
		decls[i] = Decl{Name: declared[i], Description: desc, Root: root, Union: union}
		reverse[declared[i]] = t.Name
	}
	return decls, reverse, nil
}
