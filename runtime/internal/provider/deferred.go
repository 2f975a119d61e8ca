package provider

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/toolsearch"
)

// deferral is the deferred state of a Tools: which tools are pinned, the
// search index over the others, and the tools found so far.
// A Searcher is the tool a model in deferred mode searches with: mcpgen's
// own search function (OwnSearch), or a provider's native search tool.
// No server tool may be declared under its Name, and a call of an unknown
// tool is told to search with it.
type Searcher struct {
	Name string // the name the model calls it by
	What string // what it is, for errors: "the search function"
	// Native is set for a provider's search, which keeps what it found in
	// the conversation: the toolset then marks nothing found.
	Native bool
}

// OwnSearch is mcpgen's own search function, which the toolset answers.
var OwnSearch = Searcher{Name: SearchFunction, What: "the search function"}

type deferral struct {
	search   Searcher
	pinned   []string // declared names, in the order of the tools
	isPinned map[string]bool
	index    *toolsearch.Index
	indexed  []string // declared names of the deferred tools, by index position
	maxFound int
	results  int

	mu    sync.Mutex
	found []string          // declared names, in the order they were found
	used  map[string]uint64 // declared name → tick of the last time it was found
	tick  uint64
}

// Defer puts the toolset in deferred mode (see runtime.ToolSearch): only the
// tools s pins, and those found since, are declared. It indexes the other
// tools for Search. It fails, leaving the toolset unchanged, when s is
// malformed, when a pin pattern matches no tool, or when a tool is declared
// under SearchFunction's name. A nil s changes nothing. Call it once, before
// the toolset is used.
func (ts *Tools) Defer(s *runtime.ToolSearch, search Searcher) error {
	if s == nil {
		return nil
	}
	if err := s.Check(); err != nil {
		return err
	}
	mcpNames := make([]string, len(ts.order))
	for i, d := range ts.order {
		mcpNames[i] = ts.byName[d].Tool.Name
	}
	for _, p := range s.Pinned {
		one := &runtime.ToolSearch{Pinned: []string{p}}
		if !slices.ContainsFunc(mcpNames, one.IsPinned) {
			return fmt.Errorf("tool search: pinned pattern %s matches none of the %d tools", strconv.Quote(p), len(mcpNames))
		}
	}
	if e, ok := ts.byName[search.Name]; ok {
		return fmt.Errorf("tool search: tool %s is declared as %s, the name of %s; leave it out with runtime.ToolFilter", e.Tool.Name, search.Name, search.What)
	}
	d := &deferral{search: search, isPinned: map[string]bool{}, used: map[string]uint64{}}
	d.maxFound, d.results = s.Limits()
	var deferred []runtime.Tool
	for _, name := range ts.order {
		e := ts.byName[name]
		if s.IsPinned(e.Tool.Name) {
			d.pinned = append(d.pinned, name)
			d.isPinned[name] = true
			continue
		}
		d.indexed = append(d.indexed, name)
		deferred = append(deferred, e.Tool)
	}
	d.index = toolsearch.New(deferred)
	ts.deferred = d
	return nil
}

// Deferred reports whether the toolset is in deferred mode.
func (ts *Tools) Deferred() bool { return ts.deferred != nil }

// MaxDeclared returns the most names Declared may return: every tool, or
// in deferred mode the pinned tools and the most found ones, not counting
// the search function.
func (ts *Tools) MaxDeclared() int {
	if ts.deferred == nil {
		return len(ts.order)
	}
	return len(ts.deferred.pinned) + min(ts.deferred.maxFound, len(ts.deferred.indexed))
}

// Declared returns the declared names of the tools to declare on the next
// request: without deferral every tool, in the order of the tools; in
// deferred mode the pinned tools, in that order, then the found ones, in
// the order they were found, so that the declarations of one request start
// with those of the one before (which keeps a provider's prompt cache) but
// for the tools dropped. The search function is not among them.
func (ts *Tools) Declared() []string {
	d := ts.deferred
	if d == nil {
		return slices.Clone(ts.order)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return append(slices.Clone(d.pinned), d.found...)
}

// FoundTools returns the MCP names of the tools found so far that are
// still declared, in the order they were found; nil without deferral. It
// is what each provider's Toolset.Found returns.
func (ts *Tools) FoundTools() []string {
	var out []string
	for _, d := range ts.Found() {
		if e, ok := ts.byName[d]; ok {
			out = append(out, e.Tool.Name)
		}
	}
	return out
}

// Found returns the declared names of the tools found so far that are
// still declared, in the order they were found; nil without deferral.
func (ts *Tools) Found() []string {
	d := ts.deferred
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.found)
}

// ResetFound forgets the tools found so far, as for a new conversation.
func (ts *Tools) ResetFound() {
	d := ts.deferred
	if d == nil {
		return
	}
	d.mu.Lock()
	d.found = nil
	clear(d.used)
	d.mu.Unlock()
}

// Search returns the deferred tools that best match query, best first, at
// most the ToolSearch's Results of them, and marks them found: they are
// declared from the next request on. Pinned tools are not searched: they are
// declared already. Without deferral it returns nil.
func (ts *Tools) Search(query string) []*Entry {
	d := ts.deferred
	if d == nil {
		return nil
	}
	hits := d.index.Search(query, d.results)
	out := make([]*Entry, len(hits))
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = d.indexed[h]
		out[i] = ts.byName[names[i]]
	}
	d.markFound(names...)
	return out
}

// KeepFound marks found, in ts, the tools found in from that ts has too: a toolset built from a new listing of the
// server's tools keeps what the conversation found, less the tools that are
// gone. It does nothing unless both are deferred.
func (ts *Tools) KeepFound(from *Tools) {
	if ts.deferred == nil || from == nil || from.deferred == nil {
		return
	}
	for _, name := range from.Found() {
		mcpName := from.byName[name].Tool.Name
		if d, ok := ts.declared[mcpName]; ok {
			ts.deferred.markFound(d)
		}
	}
}

// markFound makes the tools declared as names, best first, the most
// recently found ones, the first of them the most recent of all: the new
// ones join the found tools in that order, then the least recently found
// are dropped while there are more than maxFound. Pinned tools are declared
// already and are not marked.
func (d *deferral) markFound(names ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, name := range names {
		if d.isPinned[name] {
			continue
		}
		if _, ok := d.used[name]; !ok {
			d.found = append(d.found, name)
		}
		d.used[name] = d.tick + uint64(len(names)-i)
	}
	d.tick += uint64(len(names))
	for len(d.found) > d.maxFound {
		oldest := 0
		for i, n := range d.found {
			if d.used[n] < d.used[d.found[oldest]] {
				oldest = i
			}
		}
		delete(d.used, d.found[oldest])
		d.found = slices.Delete(d.found, oldest, oldest+1)
	}
}
