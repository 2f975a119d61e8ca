package toolname

// isAPIChar reports whether c may appear in an Anthropic tool name or an
// OpenAI function name: ^[a-zA-Z0-9_-]+$.
func isAPIChar(c byte) bool { return IsLetter(c) || IsDigit(c) || c == '_' || c == '-' }

// Anthropic are the tool names the Anthropic API accepts: ^[a-zA-Z0-9_-]{1,128}$.
// A rewritten name takes neither mcpgen's search function's name nor that
// of Claude's tool search tool.
var Anthropic = Rules{MaxLen: 128, First: isAPIChar, Rest: isAPIChar, Prefix: "_", Reserved: []string{SearchFunction, "tool_search_tool_bm25"}}

// OpenAI are the function names the OpenAI API accepts: ^[a-zA-Z0-9_-]{1,64}$.
// A rewritten name takes neither mcpgen's search function's name nor that
// of the Responses API's tool search.
var OpenAI = Rules{MaxLen: 64, First: isAPIChar, Rest: isAPIChar, Prefix: "_", Reserved: []string{SearchFunction, "tool_search"}}

// SearchFunction is the name of the search function a toolset in deferred
// mode declares (runtime/internal/provider.SearchFunction).
const SearchFunction = "search_tools"
