package anthropic

import (
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/mcpgen/mcpgen/runtime/internal/provider"
)

// searchParam is the declaration of the toolset's own search function.
var searchParam = anthropic.ToolParam{
	Name:        provider.SearchFunction,
	Description: anthropic.String(provider.SearchDescription),
	InputSchema: param.Override[anthropic.ToolInputSchemaParam](json.RawMessage(provider.SearchParameters)),
}

// nativeSearchName is the name under which Claude's BM25 tool search tool
// is declared, and which the model calls it by.
const nativeSearchName = "tool_search_tool_bm25"

// ownSearch reports whether the toolset declares its own search function:
// in deferred mode, without Claude's tool search.
func (ts *Toolset) ownSearch() bool { return ts.tools.Deferred() && !ts.native }

// deferredTools returns the declarations of a toolset in deferred mode.
//
// With Claude's tool search, every tool is sent on every request, the
// deferred ones with defer_loading, after the pinned ones and the search
// tool: the API keeps a deferred tool out of the model's context until the
// search returns a tool_reference to it, and expands that reference itself
// wherever the history holds it. The declarations are the same on every
// request, which keeps them cacheable.
//
// With the toolset's own search, the pinned tools come first, then
// search_tools, then the tools found so far, least recently found first,
// so that a new find changes only the end of the list.
func (ts *Toolset) deferredTools() []anthropic.ToolUnionParam {
	if ts.native {
		out := make([]anthropic.ToolUnionParam, 0, len(ts.params)+1)
		var deferred []anthropic.ToolUnionParam
		for i := range ts.params {
			p := ts.params[i]
			if ts.pinned[p.Name] {
				out = append(out, anthropic.ToolUnionParam{OfTool: &p})
				continue
			}
			p.DeferLoading = anthropic.Bool(true)
			deferred = append(deferred, anthropic.ToolUnionParam{OfTool: &p})
		}
		out = append(out, anthropic.ToolUnionParam{OfToolSearchToolBm25_20251119: &anthropic.ToolSearchToolBm25_20251119Param{
			Type: anthropic.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119,
		}})
		return append(out, deferred...)
	}
	declared := ts.tools.Declared()
	found := ts.tools.Found()
	isFound := make(map[string]bool, len(found))
	for _, n := range found {
		isFound[n] = true
	}
	out := make([]anthropic.ToolUnionParam, 0, len(declared)+1)
	for _, n := range declared {
		if !isFound[n] {
			out = append(out, ts.param(n))
		}
	}
	search := searchParam
	out = append(out, anthropic.ToolUnionParam{OfTool: &search})
	for _, n := range found {
		out = append(out, ts.param(n))
	}
	return out
}

// param returns the declaration of the tool declared as name, a copy that
// the caller may change.
func (ts *Toolset) param(name string) anthropic.ToolUnionParam {
	p := ts.params[ts.byName[name]]
	return anthropic.ToolUnionParam{OfTool: &p}
}

// handleSearch answers a call of the own search function: the tools found
// are declared from the next request on. Nothing reaches the server.
func (ts *Toolset) handleSearch(res anthropic.ToolResultBlockParam, block anthropic.ToolUseBlock) anthropic.ToolResultBlockParam {
	text, err := ts.tools.HandleSearch(block.Input)
	if err != nil {
		return withError(res, err.Error())
	}
	res.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: text}}}
	return res
}

// Found returns the MCP names of the tools found so far that stay
// declared, in the order they were found; nil unless the toolset is in
// deferred mode with its own search (Claude's tool search keeps what it
// found in the conversation's history).
func (ts *Toolset) Found() []string { return ts.tools.FoundTools() }

// ResetFound forgets the tools found so far, so that the next request
// declares only the pinned ones, as at the start of a conversation. It does
// nothing unless the toolset is in deferred mode with its own search; with
// Claude's tool search, what was found lives in the conversation's history.
func (ts *Toolset) ResetFound() { ts.tools.ResetFound() }
