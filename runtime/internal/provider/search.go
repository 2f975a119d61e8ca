package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/internal/textcut"
	"github.com/mcpgen/mcpgen/internal/toolname"
)

// SearchFunction is the name under which a toolset in deferred mode
// declares its own search function. No rewritten tool name takes it (see
// toolname.Rules.Reserved).
const SearchFunction = toolname.SearchFunction

// SearchDescription is the search function's description.
const SearchDescription = "Search the tools that are not declared yet. Call it when none of the declared tools fits the task. " +
	"Describe in a few words what you want to do, such as \"send an email\" or \"turn off a light\". " +
	"The tools found are declared from your next turn on, and you call them directly by name."

// SearchQueryDescription is the description of the search function's one
// parameter, "query".
const SearchQueryDescription = "What the tool should do, in a few words."

// SearchParameters is the JSON Schema of the search function's arguments:
// one required string, "query".
var SearchParameters = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":` +
	quote(SearchQueryDescription) + `}},"required":["query"]}`)

// maxQueryBytes bounds the query a search reads; the rest is ignored.
const maxQueryBytes = 1024

// maxResultDescription and maxResultTitle bound the description and the
// title of each tool in a search's result, in bytes.
const (
	maxResultDescription = 200
	maxResultTitle       = 100
)

// searchHit is one tool in a search's result.
type searchHit struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// searchResult is what the search function answers.
type searchResult struct {
	Query   string      `json:"query"`
	Tools   []searchHit `json:"tools"`
	Message string      `json:"message"`
}

// SearchQuery reads the query out of the search function's arguments, a
// JSON object. The error is a message for the model: arguments that are not
// an object, or a query that is missing, not a string, or blank.
func SearchQuery(args []byte) (string, error) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(args, &v); err != nil || v == nil {
		return "", fmt.Errorf("the arguments of %s must be a JSON object with a string \"query\"", SearchFunction)
	}
	raw, ok := v["query"]
	if !ok {
		return "", fmt.Errorf("%s needs a \"query\": a few words on what the tool should do", SearchFunction)
	}
	var q string
	if err := json.Unmarshal(raw, &q); err != nil {
		return "", fmt.Errorf("the \"query\" of %s must be a string", SearchFunction)
	}
	q = strings.TrimSpace(q)
	if q == "" {
		return "", fmt.Errorf("the \"query\" of %s is empty: say in a few words what the tool should do", SearchFunction)
	}
	if len(q) > maxQueryBytes {
		q = textcut.Prefix(q, maxQueryBytes)
	}
	return q, nil
}

// HandleSearch answers a call of the search function with args: it runs
// the search (see Search), which declares the tools found from the next
// request on, and returns the result for the model, a JSON text naming each
// tool found with its title and the start of its description. The error is
// a message for the model about malformed arguments. Nothing reaches the
// server, and the caller's ToolRunHook does not see the call.
func (ts *Tools) HandleSearch(args []byte) (string, error) {
	q, err := SearchQuery(args)
	if err != nil {
		return "", err
	}
	return ts.SearchText(q), nil
}

// SearchText runs a search for query and returns its result for the model.
func (ts *Tools) SearchText(query string) string {
	entries := ts.Search(query)
	r := searchResult{Query: query, Tools: make([]searchHit, len(entries))}
	for i, e := range entries {
		r.Tools[i] = searchHit{Name: e.Name, Title: oneLine(e.Tool.Title, maxResultTitle), Description: oneLine(e.Tool.Description, maxResultDescription)}
	}
	if len(entries) == 0 {
		r.Message = "No tool matches this query. Try other words, or fewer of them."
	} else {
		noun := "tools"
		if len(entries) == 1 {
			noun = "tool"
		}
		r.Message = fmt.Sprintf("Found %d %s. They are declared from your next turn on: call them by name.", len(entries), noun)
	}
	b, err := json.Marshal(r)
	if err != nil {
		// A struct of strings always encodes; this is only a fallback.
		return r.Message
	}
	return string(b)
}

// oneLine returns the first max bytes of text, its whitespace runs folded
// into single spaces, ending in "…" when cut.
func oneLine(text string, max int) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= max {
		return text
	}
	return strings.TrimSpace(textcut.Prefix(text, max)) + "…"
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
