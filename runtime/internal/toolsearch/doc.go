// Package toolsearch ranks the tools of a list against a search query with
// BM25, so that a toolset in deferred mode (runtime.ToolSearch) can declare
// the tools a model asks for instead of every tool. An Index is built once
// per tool list; it reads the tool's name, title, description and the names
// of its input parameters, and weighs a match in the name above one in the
// description.
package toolsearch
