package provider

import (
	"context"
	"iter"
	"maps"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// An Entry is one tool of a toolset: the MCP tool and the schema its
// arguments are validated against.
type Entry struct {
	// Name is the name the tool is declared under.
	Name string
	Tool runtime.Tool
	// Schema is nil when the tool has no input schema.
	Schema *runtime.Schema
}

// Tools are the tools of one toolset, by the name the provider's model
// knows them by and by their MCP name, with the confirmation their calls
// need. In deferred mode (Defer) it also keeps the tools the model found.
// It is safe for concurrent use once Confirm and Defer have been called.
type Tools struct {
	caller   runtime.Caller
	hook     runtime.ToolRunHook // nil when the caller has none
	byName   map[string]*Entry   // by declared name
	declared map[string]string   // MCP name → declared name
	order    []string            // declared names, in the order of the tools
	confirm  *toolcall.Confirmer // nil when no call needs consent
	deferred *deferral           // nil when every tool is declared
}

// NewTools returns the toolset of tools, declared under the names of
// names (declared name → MCP name), whose calls go through caller.
func NewTools(caller runtime.Caller, tools []runtime.Tool, names map[string]string) *Tools {
	ts := &Tools{caller: caller, hook: runtime.ToolRunHookOf(caller), byName: make(map[string]*Entry, len(tools)), declared: make(map[string]string, len(tools))}
	byMCP := make(map[string]runtime.Tool, len(tools))
	for _, t := range tools {
		byMCP[t.Name] = t
	}
	for declared, mcpName := range names {
		t := byMCP[mcpName]
		e := &Entry{Name: declared, Tool: t}
		if len(strings.TrimSpace(string(t.InputSchema))) > 0 {
			e.Schema = runtime.NewSchema(t.Name, t.InputSchema)
		}
		ts.byName[declared] = e
		ts.declared[mcpName] = declared
	}
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		if d, ok := ts.declared[t.Name]; ok && !seen[d] {
			seen[d] = true
			ts.order = append(ts.order, d)
		}
	}
	return ts
}

// Lookup returns the entry of a declared name.
func (ts *Tools) Lookup(declared string) (*Entry, bool) {
	e, ok := ts.byName[declared]
	return e, ok
}

// Entries returns every entry with its declared name, in no order.
func (ts *Tools) Entries() iter.Seq2[string, *Entry] { return maps.All(ts.byName) }

// MCPName returns the MCP tool name behind a declared name.
func (ts *Tools) MCPName(declared string) (string, bool) {
	e, ok := ts.byName[declared]
	if !ok {
		return "", false
	}
	return e.Tool.Name, true
}

// DeclaredName returns the name a tool is declared under.
func (ts *Tools) DeclaredName(mcpName string) (string, bool) {
	d, ok := ts.declared[mcpName]
	return d, ok
}

// Unknown returns the message for a call of a name that is not declared,
// kind being what the provider calls a tool ("tool", "function"); it lists
// the declared names.
func (ts *Tools) Unknown(kind, name string) string {
	if ts.deferred != nil {
		return toolcall.UnknownTool(kind, name, ts.Declared()) + "; search for other tools with " + ts.deferred.search.Name
	}
	names := make([]string, 0, len(ts.byName))
	for n := range ts.byName {
		names = append(names, n)
	}
	return toolcall.UnknownTool(kind, name, names)
}

// Confirm makes the toolset ask c.Ask before it runs a call that c's
// policy covers; a nil c asks nothing. It returns an error when c has no
// Ask or names a tool the toolset does not have; the toolset is then
// unchanged.
func (ts *Tools) Confirm(c *runtime.Confirmation) error {
	names := make([]string, 0, len(ts.byName))
	for _, e := range ts.byName {
		names = append(names, e.Tool.Name)
	}
	cf, err := toolcall.NewConfirmer(c, names)
	if err != nil {
		return err
	}
	ts.confirm = cf
	return nil
}

// ShareConfirmTurn makes ts ask its confirmation questions in turn with
// from's, one at a time across both toolsets: a toolset that takes over
// from another while a question of the other waits for the user does not
// ask a second one beside it. It does nothing unless both have a
// confirmation. Call it after Confirm and before ts is used.
func (ts *Tools) ShareConfirmTurn(from *Tools) {
	if from != nil {
		ts.confirm.ShareTurn(from.confirm)
	}
}

// Run runs a call of e with args (see toolcall.Run), asking for the user's
// confirmation when the call needs it. Images whose MIME type attach
// accepts are returned in the outcome. The caller's ToolRunHook, if any,
// sees the run. In deferred mode with the toolset's own search, a call of a
// tool not found yet marks it found.
func (ts *Tools) Run(ctx context.Context, e *Entry, args []byte, attach func(mimeType string) bool) toolcall.Outcome {
	if ts.deferred != nil && !ts.deferred.search.Native {
		ts.deferred.markFound(e.Name)
	}
	if ts.hook == nil {
		return toolcall.Run(ctx, ts.caller, e.Tool.Name, e.Schema, args, attach, ts.confirm.Gate(e.Tool))
	}
	ctx, done := ts.hook(ctx, e.Tool.Name)
	out := toolcall.Run(ctx, ts.caller, e.Tool.Name, e.Schema, args, attach, ts.confirm.Gate(e.Tool))
	done(runtime.ToolRunOutcome{Called: out.Called, IsError: out.ToolError, Error: out.Error})
	return out
}
