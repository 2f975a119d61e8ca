package ir

import (
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// withSchemas returns tools with Input and Output parsed from the schema
// bytes where they are nil, as in a snapshot built with
// snapshot.FromRuntime. The caller's tools are not modified.
func withSchemas(tools []snapshot.Tool) ([]snapshot.Tool, error) {
	var out []snapshot.Tool
	for i := range tools {
		t := &tools[i]
		needIn := t.Input == nil
		needOut := t.Output == nil && len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null"
		if !needIn && !needOut {
			continue
		}
		if out == nil {
			out = append([]snapshot.Tool(nil), tools...)
		}
		c := &out[i]
		if needIn {
			if len(c.InputSchema) == 0 {
				return nil, fmt.Errorf("tool %q has no inputSchema", c.Name)
			}
			v, err := parseSchema(c.Name, "inputSchema", c.InputSchema)
			if err != nil {
				return nil, err
			}
			c.Input = v
		}
		if needOut {
			v, err := parseSchema(c.Name, "outputSchema", c.OutputSchema)
			if err != nil {
				return nil, err
			}
			c.Output = v
		}
	}
	if out == nil {
		return tools, nil
	}
	return out, nil
}

func parseSchema(tool, member string, raw []byte) (*jsontree.Node, error) {
	v, err := jsontree.Parse(raw)
	var de *jsontree.DuplicateKeyError
	if errors.As(err, &de) {
		return nil, &Error{Tool: tool, Pointer: "/" + member + de.Pointer, Msg: de.Error()}
	}
	if err != nil {
		return nil, fmt.Errorf("tool %q: %s: %w", tool, member, err)
	}
	if v.Kind != jsontree.Object {
		return nil, fmt.Errorf("tool %q: %s is a JSON %s, want an object", tool, member, v.Kind)
	}
	return v, nil
}
