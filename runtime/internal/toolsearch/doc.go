// Package toolsearch ranks the tools of a list against a search query with
// BM25F (BM25 over several weighted fields), so that a toolset in deferred
// mode (runtime.ToolSearch) can declare the tools a model asks for instead
// of every tool. An Index is built once per tool list; it reads the tool's
// name, title, description and the names of its input parameters, and
// weighs a match in the name above one in the description. Words are
// lowercased, split at case changes and lightly stemmed; a query also looks,
// at a lower weight, for the few words APIs use where people say another
// ("show" → "list", "get"). testdata/queries.tsv is the table of realistic
// queries the ranking is measured on.
package toolsearch
