package provider

import (
	"context"
	"fmt"
	"sync"
)

// Meanings keeps a conversation's function names meaning the tools the
// model was told they mean, when the toolset changes under it.
//
// A provider rewrites the MCP names it refuses (a/b is declared a_b), and a
// new toolset built after the server's tool list changed may give a
// rewritten name to another tool (the server now lists a tool named a_b,
// and a/b becomes a_b with a hash). A model that goes on with the
// conversation calls a_b meaning a/b. Meanings refuses the first call of
// each such name, saying what the name means now, so that no call runs a
// tool the model did not mean; a call after the refusal is made knowing.
//
// A nil *Meanings refuses nothing. Meanings is safe for concurrent use.
type Meanings struct {
	tools *Tools
	mu    sync.Mutex
	// shifted holds the declared names of tools that named another MCP
	// tool before, with that tool's MCP name, until the first call of
	// each.
	shifted map[string]string
}

// NewMeanings returns the meanings of the names ts declares, taking over
// from prev, those of the toolset the conversation used before (nil for
// the first). A name of ts refuses its first call when it named another
// MCP tool in prev, or in a toolset before prev whose shift no call has
// met yet while prev declared the name. A name prev did not declare starts
// afresh.
func NewMeanings(prev *Meanings, ts *Tools) *Meanings {
	m := &Meanings{tools: ts}
	if prev == nil || ts == nil {
		return m
	}
	prev.mu.Lock()
	defer prev.mu.Unlock()
	for declared, e := range ts.Entries() {
		was, ok := prev.shifted[declared]
		if !ok && prev.tools != nil {
			was, ok = prev.tools.MCPName(declared)
		}
		if ok && was != e.Tool.Name {
			if m.shifted == nil {
				m.shifted = map[string]string{}
			}
			m.shifted[declared] = was
		}
	}
	return m
}

// Tools returns the toolset whose names m keeps; nil for a nil m.
func (m *Meanings) Tools() *Tools {
	if m == nil {
		return nil
	}
	return m.tools
}

// Refusal reports whether the call of a declared name must be refused
// because the name named another tool before, with the reason to give the
// model. It reports each shifted name once.
func (m *Meanings) Refusal(declared string) (string, bool) {
	if m == nil {
		return "", false
	}
	m.mu.Lock()
	was, ok := m.shifted[declared]
	delete(m.shifted, declared)
	m.mu.Unlock()
	if !ok {
		return "", false
	}
	why := fmt.Sprintf("the tool list changed, and %s names another tool than before (call it again to run that tool)", declared)
	if now, ok := m.tools.DeclaredName(was); ok {
		why += fmt.Sprintf("; the tool it named is now %s", now)
	}
	return why, true
}

// Guard returns handle with the calls that m refuses (see Refusal)
// answered by refuse instead, without running them.
func Guard[C, R any](m *Meanings, name func(C) string, refuse func(C, string) R, handle func(context.Context, C) R) func(context.Context, C) R {
	return func(ctx context.Context, c C) R {
		if why, ok := m.Refusal(name(c)); ok {
			return refuse(c, why)
		}
		return handle(ctx, c)
	}
}
