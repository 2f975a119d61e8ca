package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	openaisdk "github.com/openai/openai-go/v3"
	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"google.golang.org/genai"

	mcprt "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/anthropic"
	"github.com/mcpgen/mcpgen/runtime/gemini"
	"github.com/mcpgen/mcpgen/runtime/openai"
)

// budgetServer is the snapshot the declaration budget is measured on, from
// the root of the checkout, and budgetPinned the tools pinned in deferred
// mode.
const budgetServer = "testdata/servers/ms365.json"

var budgetPinned = []string{"send-mail", "list-mail-messages", "list-calendar-events"}

// budgetSearch is the query of the search the third row runs.
const budgetSearch = "schedule a meeting"

// budgetEncoding is the tokenizer the token counts use: OpenAI's o200k_base,
// the encoding of its current models. Gemini and Claude tokenize otherwise;
// the counts compare the modes, they are not any API's bill.
const budgetEncoding = "o200k_base"

// maxDeferredShare is the target for what one request in deferred mode
// declares, as a share of the bytes of the whole set.
const maxDeferredShare = 0.10

// budgetRow is the declarations of one request of one provider in one mode.
type budgetRow struct {
	provider, mode string
	declared       int // functions declared
	bytes, tokens  int
	share          float64 // of the provider's full set, in bytes
}

// budgetProvider measures the declarations of one provider: all tools,
// deferred mode's first request, and the request after one search.
type budgetProvider struct {
	name    string
	measure func(tools []mcprt.Tool) (full, first, searched []json.RawMessage, err error)
}

// budgetProviders are the providers measured.
var budgetProviders = []budgetProvider{{"gemini", measureGemini}, {"claude", measureAnthropic}, {"openai", measureOpenAI}}

// benchBudget measures, over the ms365 snapshot, the declarations one
// request sends with every tool declared and in deferred mode.
func benchBudget(cfg config) ([]budgetRow, error) {
	log.Printf("budget: declarations per request over %s", budgetServer)
	tools, err := loadSnapshotTools(filepath.Join(cfg.root, filepath.FromSlash(budgetServer)))
	if err != nil {
		return nil, err
	}
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(budgetEncoding)
	if err != nil {
		return nil, fmt.Errorf("loading the %s tokenizer: %w", budgetEncoding, err)
	}
	var rows []budgetRow
	for _, p := range budgetProviders {
		full, first, searched, err := p.measure(tools)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		fullBytes := 0
		for i, m := range []struct {
			mode  string
			decls []json.RawMessage
		}{
			{fmt.Sprintf("all %d tools", len(tools)), full},
			{fmt.Sprintf("deferred, %d pinned", len(budgetPinned)), first},
			{fmt.Sprintf("deferred, after a search for %q", budgetSearch), searched},
		} {
			text, err := json.Marshal(m.decls)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				fullBytes = len(text)
			}
			rows = append(rows, budgetRow{provider: p.name, mode: m.mode, declared: len(m.decls), bytes: len(text),
				tokens: len(enc.Encode(string(text), nil, nil)), share: float64(len(text)) / float64(fullBytes)})
		}
	}
	return rows, nil
}

// loadSnapshotTools reads the tools of a snapshot ({"tools": [...]}).
func loadSnapshotTools(path string) ([]mcprt.Tool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var snap struct {
		Tools []mcprt.Tool `json:"tools"`
	}
	if err := json.Unmarshal(b, &snap); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(snap.Tools) == 0 {
		return nil, fmt.Errorf("reading %s: no tools", path)
	}
	return snap.Tools, nil
}

// measureGemini returns the function declarations of a Gemini request.
func measureGemini(tools []mcprt.Tool) (full, first, searched []json.RawMessage, err error) {
	all, err := gemini.NewToolset(nopCaller{}, tools, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	deferred, err := gemini.NewToolset(nopCaller{}, tools, &gemini.DeclarationOptions{Search: &mcprt.ToolSearch{Pinned: budgetPinned}})
	if err != nil {
		return nil, nil, nil, err
	}
	if full, err = encodeAll(all.Declarations()); err != nil {
		return nil, nil, nil, err
	}
	if first, err = encodeAll(deferred.Declarations()); err != nil {
		return nil, nil, nil, err
	}
	deferred.Handle(context.Background(), &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": budgetSearch}})
	searched, err = encodeAll(deferred.Declarations())
	return full, first, searched, err
}

// encodeAll encodes each declaration as JSON.
func encodeAll[T any](decls []T) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(decls))
	for _, d := range decls {
		b, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// measureAnthropic returns the tools of a Claude request, deferred mode
// using mcpgen's own search (Claude's tool search sends every tool).
func measureAnthropic(tools []mcprt.Tool) (full, first, searched []json.RawMessage, err error) {
	all, err := anthropic.NewToolset(nopCaller{}, tools, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	deferred, err := anthropic.NewToolset(nopCaller{}, tools, &anthropic.Options{Search: &mcprt.ToolSearch{Pinned: budgetPinned}})
	if err != nil {
		return nil, nil, nil, err
	}
	if full, err = encodeAll(all.Tools()); err != nil {
		return nil, nil, nil, err
	}
	if first, err = encodeAll(deferred.Tools()); err != nil {
		return nil, nil, nil, err
	}
	query, _ := json.Marshal(map[string]string{"query": budgetSearch})
	deferred.Handle(context.Background(), anthropicsdk.ToolUseBlock{ID: "toolu_budget", Name: "search_tools", Input: query})
	searched, err = encodeAll(deferred.Tools())
	return full, first, searched, err
}

// measureOpenAI returns the tools of a Chat Completions request, deferred
// mode using mcpgen's own search. The whole set, which one request may not
// carry (more than openai.MaxTools), is measured as its definitions.
func measureOpenAI(tools []mcprt.Tool) (full, first, searched []json.RawMessage, err error) {
	defs, _, err := openai.FunctionDefinitions(tools, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	wrapped := make([]openaisdk.ChatCompletionToolUnionParam, len(defs))
	for i, d := range defs {
		wrapped[i] = openaisdk.ChatCompletionFunctionTool(d)
	}
	deferred, err := openai.NewToolset(nopCaller{}, tools, &openai.Options{Search: &mcprt.ToolSearch{Pinned: budgetPinned}})
	if err != nil {
		return nil, nil, nil, err
	}
	if full, err = encodeAll(wrapped); err != nil {
		return nil, nil, nil, err
	}
	if first, err = encodeAll(deferred.Tools()); err != nil {
		return nil, nil, nil, err
	}
	query, _ := json.Marshal(map[string]string{"query": budgetSearch})
	call := openaisdk.ChatCompletionMessageToolCallUnion{ID: "call_budget", Type: "function"}
	call.Function.Name, call.Function.Arguments = "search_tools", string(query)
	deferred.Handle(context.Background(), call)
	searched, err = encodeAll(deferred.Tools())
	return full, first, searched, err
}

// nopCaller is a Caller that is never called: the budget only declares.
type nopCaller struct{}

func (nopCaller) CallTool(context.Context, string, any) (*mcprt.Result, error) {
	return nil, fmt.Errorf("the budget calls no tool")
}

func printBudget(w io.Writer, rows []budgetRow) {
	fmt.Fprintf(w, "\n## Declarations per request over %s\n\n", budgetServer)
	fmt.Fprintf(w, "The function declarations one request sends, serialized as JSON, with every tool declared and in deferred mode (runtime.ToolSearch, pinning %d tools). Tokens are counted with %s (github.com/pkoukk/tiktoken-go), to compare the modes.\n\n", len(budgetPinned), budgetEncoding)
	fmt.Fprintf(w, "| provider | request | functions | bytes | tokens | share of all |\n|---|---|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %.1f%% |\n", r.provider, r.mode, r.declared, r.bytes, r.tokens, 100*r.share)
	}
}

// budgetTargets checks the first request of deferred mode of each provider.
func budgetTargets(rows []budgetRow) []targetCheck {
	var out []targetCheck
	for _, r := range rows {
		if r.mode != fmt.Sprintf("deferred, %d pinned", len(budgetPinned)) {
			continue
		}
		out = append(out, targetCheck{fmt.Sprintf("%s deferred request ≤ 10%% of all declarations (bytes)", r.provider),
			fmt.Sprintf("%.1f%%", 100*r.share), r.share <= maxDeferredShare})
	}
	return out
}
