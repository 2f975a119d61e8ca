package runtime

import "fmt"

// DefaultMaxFound is the number of found tools a toolset in deferred mode
// keeps declared when ToolSearch.MaxFound is zero.
const DefaultMaxFound = 32

// DefaultSearchResults is the number of tools one search returns at most
// when ToolSearch.Results is zero.
const DefaultSearchResults = 5

// ToolSearch puts a provider toolset in deferred mode, for servers with
// more tools than a model should see at once: only the pinned tools are
// declared on every request, and the model finds the others by searching
// for them. The tools a search returns are declared from the next request
// on and stay declared for the rest of the conversation, up to MaxFound of
// them.
//
// The search is mcpgen's own unless Native asks for the provider's: the
// toolset declares one more function, "search_tools", whose query is ranked
// with BM25 against each tool's name, title, description and parameter
// names; the toolset answers it without calling the server. A deferred tool
// that the model calls without having found it is run all the same, and is
// found from then on. Every call of a found tool is checked, confirmed and
// run exactly as a call of a pinned tool.
//
// What was found belongs to one conversation: use one toolset per
// conversation in deferred mode, or reset the found tools between
// conversations.
type ToolSearch struct {
	// Pinned are patterns over MCP tool names, with ToolFilter's syntax,
	// of the tools declared on every request. Every other tool of the
	// toolset is deferred: found by search. A pattern that matches no tool
	// is an error, as it is most likely a typo.
	Pinned []string
	// MaxFound bounds the found tools that stay declared for the rest of
	// the conversation; when a search finds more, the least recently found
	// are dropped. Zero means DefaultMaxFound.
	MaxFound int
	// Results is how many tools one search returns at most. Zero means
	// DefaultSearchResults. It is at most MaxFound.
	Results int
	// Native uses the provider's own search where it has one: Anthropic's
	// tool search tool (its BM25 variant) and the Responses API's
	// tool_search, both with defer_loading on the deferred tools. Gemini
	// has none and ignores it; OpenAI Chat Completions has none and
	// refuses it.
	Native bool
}

// Check reports a malformed pin pattern as a *ToolPatternError, and a
// negative MaxFound or Results.
func (s *ToolSearch) Check() error {
	for _, p := range s.Pinned {
		if err := (ToolFilter{Include: []string{p}}).Check(); err != nil {
			if pe, ok := err.(*ToolPatternError); ok {
				pe.Kind = "pinned"
			}
			return fmt.Errorf("tool search: %w", err)
		}
	}
	if s.MaxFound < 0 {
		return fmt.Errorf("tool search: MaxFound is %d, want 0 (the default) or more", s.MaxFound)
	}
	if s.Results < 0 {
		return fmt.Errorf("tool search: Results is %d, want 0 (the default) or more", s.Results)
	}
	return nil
}

// Limits returns MaxFound and Results with the defaults applied, Results
// being at most MaxFound.
func (s *ToolSearch) Limits() (maxFound, results int) {
	maxFound, results = s.MaxFound, s.Results
	if maxFound == 0 {
		maxFound = DefaultMaxFound
	}
	if results == 0 {
		results = DefaultSearchResults
	}
	return maxFound, min(results, maxFound)
}

// IsPinned reports whether the tool called name is pinned: whether one of
// the Pinned patterns matches it.
func (s *ToolSearch) IsPinned(name string) bool { return matchAny(s.Pinned, name) }
