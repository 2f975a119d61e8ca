package config

import (
	"go.yaml.in/yaml/v3"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/runtime"
)

// Tools selects the tools a server's package declares, by their MCP names,
// with the rules of runtime.ToolFilter: include first (every tool when
// Include is empty), then exclude.
//
//	tools:
//	  include: ["Hass*"]
//	  exclude: ["HassCancel*"]
type Tools struct {
	Include, Exclude []Pattern
}

// Pattern is one glob of a tools selection, with the line it is on.
type Pattern struct {
	Glob string
	Line int
}

// Filter returns the selection as the generator and the runtime take it.
func (t Tools) Filter() runtime.ToolFilter {
	var f runtime.ToolFilter
	for _, p := range t.Include {
		f.Include = append(f.Include, p.Glob)
	}
	for _, p := range t.Exclude {
		f.Exclude = append(f.Exclude, p.Glob)
	}
	return f
}

// Line returns the line of the pattern glob of kind ("include" or
// "exclude"), or 0.
func (t Tools) Line(kind, glob string) int {
	list := t.Include
	if kind == "exclude" {
		list = t.Exclude
	}
	for _, p := range list {
		if p.Glob == glob {
			return p.Line
		}
	}
	return 0
}

// parseTools reads the tools mapping of server name.
func parseTools(name string, v *yaml.Node, str func(*yaml.Node, string) (string, error), fail func(int, string, ...any) error) (Tools, error) {
	var t Tools
	if v.Kind != yaml.MappingNode {
		return t, fail(v.Line, "server %s: tools must be a mapping with include and/or exclude, each a list of tool name patterns", name)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, list := v.Content[i], v.Content[i+1]
		var dst *[]Pattern
		switch k.Value {
		case "include":
			dst = &t.Include
		case "exclude":
			dst = &t.Exclude
		default:
			return t, fail(k.Line, "server %s: tools: unknown key %q (want include or exclude)", name, k.Value)
		}
		if list.Kind != yaml.SequenceNode {
			return t, fail(list.Line, "server %s: tools: %s must be a list of tool name patterns, such as [\"Hass*\"]", name, k.Value)
		}
		for _, n := range list.Content {
			glob, err := str(n, "tools: each pattern of "+k.Value)
			if err != nil {
				return t, err
			}
			f := runtime.ToolFilter{Include: []string{glob}}
			if k.Value == "exclude" {
				f = runtime.ToolFilter{Exclude: []string{glob}}
			}
			if err := f.Check(); err != nil {
				return t, fail(n.Line, "server %s: tools: %v", name, err)
			}
			*dst = append(*dst, Pattern{Glob: glob, Line: n.Line})
		}
	}
	if len(t.Include) == 0 && len(t.Exclude) == 0 {
		return t, fail(v.Line, "server %s: tools names no pattern: give include and/or exclude, or leave tools out to keep every tool", name)
	}
	return t, nil
}

// parsePinned reads the pinned list of server name: globs with
// runtime.ToolFilter's syntax.
func parsePinned(name string, v *yaml.Node, str func(*yaml.Node, string) (string, error), fail func(int, string, ...any) error) ([]Pattern, error) {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return nil, fail(v.Line, "server %s: pinned must be a list of tool name patterns, such as [\"send-mail\", \"list-*\"]", name)
	}
	var out []Pattern
	for _, n := range v.Content {
		glob, err := str(n, "each pattern of pinned")
		if err != nil {
			return nil, err
		}
		if err := ir.CheckPinned([]string{glob}); err != nil {
			return nil, fail(n.Line, "server %s: %v", name, err)
		}
		out = append(out, Pattern{Glob: glob, Line: n.Line})
	}
	return out, nil
}

// PinnedGlobs returns the globs of the server's pinned list, or nil when
// its package is not in deferred mode.
func (s *Server) PinnedGlobs() []string {
	var out []string
	for _, p := range s.Pinned {
		out = append(out, p.Glob)
	}
	return out
}
