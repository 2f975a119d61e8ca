package generator

import (
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/internal/geminidecl"
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/runtime"
)

// Warning is something generation went on despite. Pattern is set when the
// warning is about one pattern of Config.Tools, Tool when it is about a
// tool left out.
type Warning struct {
	Msg     string
	Pattern *runtime.ToolPattern
	Tool    string
}

func (w Warning) String() string { return w.Msg }

// selectTools returns the snapshot holding only the tools f keeps, in file
// order, and warns about each pattern that matches no tool of the whole
// snapshot. It fails on a malformed pattern and when no tool is kept. The
// snapshot itself is not changed.
func selectTools(snap *snapshot.Snapshot, f runtime.ToolFilter, warn func(Warning)) (*snapshot.Snapshot, error) {
	if err := f.Check(); err != nil {
		return nil, fmt.Errorf("selecting tools: %w", err)
	}
	if f.IsZero() {
		return snap, nil
	}
	names := make([]string, len(snap.Tools))
	for i, t := range snap.Tools {
		names[i] = t.Name
	}
	for _, p := range f.Unused(names) {
		warn(Warning{Msg: fmt.Sprintf("%s pattern %q matches no tool", p.Kind, p.Pattern), Pattern: &p})
	}
	sel := *snap
	sel.Tools = nil
	for _, t := range snap.Tools {
		if f.Keep(t.Name) {
			sel.Tools = append(sel.Tools, t)
		}
	}
	if len(sel.Tools) == 0 {
		return nil, fmt.Errorf("selecting tools: the patterns keep none of the %d tools", len(snap.Tools))
	}
	return &sel, nil
}

// providerLimit is a provider's documented maximum of tools in one request.
type providerLimit struct {
	part, provider string
	max            int
	source         string
}

// providerLimits are the documented limits of the parts that declare tools;
// see the constants for the sources. Anthropic documents none.
var providerLimits = []providerLimit{
	{ir.PartGemini, "Gemini", geminidecl.MaxFunctionDeclarations, "https://pkg.go.dev/google.golang.org/genai@v1.77.0#Tool"},
	{ir.PartOpenAI, "OpenAI Chat Completions", provschema.OpenAIMaxTools, provschema.OpenAIMaxToolsSource},
}

// warnLimits warns for each emitted provider part whose n declarations are
// more than one request to that provider may carry. In deferred mode (a
// package with pinned globs) one request declares the pinned tools, the
// found ones and the search function, so only the pinned tools are counted.
func warnLimits(parts []string, n int, pinned []string, snap *snapshot.Snapshot, warn func(Warning)) {
	if parts == nil {
		parts = ir.DefaultParts
	}
	what := "declares"
	if len(pinned) > 0 {
		f := runtime.ToolFilter{Include: pinned}
		n = 0
		for _, t := range snap.Tools {
			if f.Keep(t.Name) {
				n++
			}
		}
		what = "pins"
	}
	for _, l := range providerLimits {
		if slices.Contains(parts, l.part) && n > l.max {
			warn(Warning{Msg: fmt.Sprintf("the %s part %s %d tools, more than the %d one %s request may carry (%s): its toolset will refuse them; select fewer tools", l.part, what, n, l.max, l.provider, l.source)})
		}
	}
}
