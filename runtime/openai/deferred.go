package openai

import (
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
)

// deferTools puts the toolset in deferred mode with s, and checks that one
// request stays within MaxTools.
func (ts *Toolset) deferTools(s *runtime.ToolSearch) error {
	search := provider.OwnSearch
	if s != nil && s.Native {
		search = provider.Searcher{Name: "tool_search", What: "the Responses API's tool search", Native: true}
	}
	if err := ts.tools.Defer(s, search); err != nil {
		return fmt.Errorf("openai toolset: %w", err)
	}
	if n := ts.tools.MaxDeclared() + 1; n > MaxTools {
		return &runtime.TooManyToolsError{Provider: "openai", Tools: n, Limit: MaxTools, Source: limitSource, Deferred: true}
	}
	ts.search = s
	return nil
}

// native reports whether the toolset is in deferred mode with the
// provider's own search.
func (ts *Toolset) native() bool { return ts.search != nil && ts.search.Native }

// Found returns the MCP names of the tools found so far that stay
// declared, in the order they were found; nil unless the toolset is in
// deferred mode with mcpgen's own search (the Responses API's tool_search
// keeps what it found in the conversation's history).
func (ts *Toolset) Found() []string { return ts.tools.FoundTools() }

// ResetFound forgets the tools found so far, as for a new conversation:
// the next request declares the pinned tools only. It does nothing unless
// the toolset is in deferred mode.
func (ts *Toolset) ResetFound() { ts.tools.ResetFound() }

// searchDefinition declares mcpgen's own search function. Its parameters
// are a constant object, which always parses.
var searchDefinition = func() shared.FunctionDefinitionParam {
	d := shared.FunctionDefinitionParam{Name: provider.SearchFunction, Description: openai.String(provider.SearchDescription)}
	if n, err := jsontree.Parse(provider.SearchParameters); err == nil {
		d.Parameters = parameters(n)
	}
	return d
}()

// requestDefinitions returns the definitions of the next request with
// mcpgen's own search: every tool, or in deferred mode the declared ones
// and the search function.
func (ts *Toolset) requestDefinitions() []shared.FunctionDefinitionParam {
	if ts.search == nil {
		return ts.defs
	}
	names := ts.tools.Declared()
	out := make([]shared.FunctionDefinitionParam, 0, len(names)+1)
	for _, name := range names {
		out = append(out, ts.defs[ts.index[name]])
	}
	return append(out, searchDefinition)
}

// nativeTools returns the tools of a Responses request with the API's own
// search: the pinned functions, every other function with defer_loading
// set, in the order of the tools, and the tool_search tool, executed by
// the API.
func (ts *Toolset) nativeTools() []responses.ToolUnionParam {
	out := make([]responses.ToolUnionParam, 0, len(ts.defs)+1)
	for _, d := range ts.defs {
		t := responsesFunction(d)
		if mcpName, _ := ts.tools.MCPName(d.Name); !ts.search.IsPinned(mcpName) {
			t.OfFunction.DeferLoading = openai.Bool(true)
		}
		out = append(out, t)
	}
	return append(out, responses.ToolUnionParam{OfToolSearch: &responses.ToolSearchToolParam{Execution: responses.ToolSearchToolExecutionServer}})
}
