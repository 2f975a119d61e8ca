package anthropic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/runtime"
)

// ms365Pinned are the three tools the budget pins.
var ms365Pinned = []string{"send-mail", "list-mail-messages", "list-calendar-events"}

// toolsBytes returns the size of the tools member of a request that
// declares tools.
func toolsBytes(t *testing.T, tools []anthropic.ToolUnionParam) int {
	t.Helper()
	b, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestDeferredBudgetMS365 measures the declarations one request carries
// over the 344 tools of the ms365 server, in bytes of the serialized tools
// array (Anthropic publishes no tokenizer for Claude), with three tools
// pinned.
//
// With the toolset's own search, a request before any search must carry
// at most a tenth of the bytes of the full set; the bytes after one search
// (five tools found) are logged too. With Claude's tool search every tool
// goes on the wire, the deferred ones with defer_loading, so the request
// is larger than the full set; what enters the model's context is the
// pinned tools, the search tool and the tools a search returns, counted
// here with the five tools the own search finds for the same query.
func TestDeferredBudgetMS365(t *testing.T) {
	tools, err := providertest.LoadTools("../../testdata/servers/ms365.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 344 {
		t.Fatalf("%d tools, want the 344 of ms365", len(tools))
	}
	full, err := NewToolset(&fakeCaller{}, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	fullBytes := toolsBytes(t, full.Tools())

	own, err := NewToolset(&fakeCaller{}, tools, &Options{Search: &runtime.ToolSearch{Pinned: ms365Pinned}})
	if err != nil {
		t.Fatal(err)
	}
	ownFirstTools := own.Tools()
	ownFirst := toolsBytes(t, ownFirstTools)
	const query = "list my calendar events tomorrow"
	res := own.Handle(context.Background(), anthropic.ToolUseBlock{ID: "toolu_q", Name: "search_tools", Input: json.RawMessage(`{"query":"` + query + `"}`)})
	if res.IsError.Value {
		t.Fatalf("search: %+v", res)
	}
	ownAfter := own.Tools()
	if n := len(ownAfter); n != len(ms365Pinned)+1+runtime.DefaultSearchResults {
		t.Fatalf("after one search the request declares %d tools, want %d", n, len(ms365Pinned)+1+runtime.DefaultSearchResults)
	}
	ownAfterBytes := toolsBytes(t, ownAfter)

	native, err := NewToolset(&fakeCaller{}, tools, &Options{Search: &runtime.ToolSearch{Pinned: ms365Pinned, Native: true}})
	if err != nil {
		t.Fatal(err)
	}
	nativeTools := native.Tools()
	wireBytes := toolsBytes(t, nativeTools)
	// In context: everything not sent with defer_loading, and the tools
	// found, which the own search's request declares after the search.
	var inContext []anthropic.ToolUnionParam
	for _, u := range nativeTools {
		if u.OfTool == nil || !u.OfTool.DeferLoading.Value {
			inContext = append(inContext, u)
		}
	}
	contextFirst := toolsBytes(t, inContext)
	inContext = append(inContext, ownAfter[len(ms365Pinned)+1:]...)
	contextBytes := toolsBytes(t, inContext)

	// Every request follows the API's rules for custom tools, the search
	// function included; the tool search tool is a server tool of its own.
	var custom []anthropic.ToolUnionParam
	for _, u := range nativeTools {
		if u.OfTool != nil {
			custom = append(custom, u)
		}
	}
	for name, req := range map[string][]anthropic.ToolUnionParam{"own, first": ownFirstTools, "own, after a search": ownAfter, "native": custom} {
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range providertest.CheckAnthropic(b) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := len(nativeTools) - len(custom); n != 1 {
		t.Errorf("native: %d server tools, want the tool search tool alone", n)
	}

	pct := func(n int) float64 { return 100 * float64(n) / float64(fullBytes) }
	t.Logf("anthropic, ms365 (344 tools), 3 pinned: full set %d bytes", fullBytes)
	t.Logf("anthropic own search: first request %d bytes (%.1f%%), after one search (+5 found) %d bytes (%.1f%%)", ownFirst, pct(ownFirst), ownAfterBytes, pct(ownAfterBytes))
	t.Logf("anthropic native tool search: on the wire %d bytes (%.1f%%) on every request; in the model's context: pinned + search tool %d bytes (%.1f%%), after one search (+5 found) %d bytes (%.1f%%)", wireBytes, pct(wireBytes), contextFirst, pct(contextFirst), contextBytes, pct(contextBytes))
	if ownFirst*10 > fullBytes {
		t.Errorf("own search: the first request carries %d bytes, more than a tenth of the full set's %d", ownFirst, fullBytes)
	}
	if contextBytes*10 > fullBytes {
		t.Errorf("native search: %d bytes enter the context, more than a tenth of the full set's %d", contextBytes, fullBytes)
	}
}
