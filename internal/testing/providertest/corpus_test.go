package providertest_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime/anthropic"
	"github.com/mcpgen/mcpgen/runtime/gemini"
	"github.com/mcpgen/mcpgen/runtime/openai"
)

// TestCorpus declares every tool list checked into the repository for each
// provider, in each form, and runs the provider checkers over the result.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob(testenv.FromRoot("testdata/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(testenv.FromRoot("testdata/*/*.json"))
	files = append(append(files, more...), "testdata/survey-tools.json")
	total := 0
	for _, file := range files {
		tools, err := providertest.LoadTools(file)
		if err != nil || len(tools) == 0 {
			continue // not a tool list
		}
		total += len(tools)
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			for _, opts := range []*gemini.DeclarationOptions{nil, {JSONSchema: true}} {
				decls, _, err := gemini.Declarations(tools, opts)
				if err != nil {
					t.Fatalf("gemini: %v", err)
				}
				for _, err := range providertest.CheckGemini(decls) {
					t.Errorf("gemini: %v", err)
				}
			}
			params, _, err := anthropic.ToolParams(tools)
			if err != nil {
				t.Fatalf("anthropic: %v", err)
			}
			b, _ := json.Marshal(params)
			for _, err := range providertest.CheckAnthropic(b) {
				t.Errorf("anthropic: %v", err)
			}
			for _, strict := range []bool{false, true} {
				defs, _, err := openai.FunctionDefinitions(tools, &openai.Options{Strict: strict})
				if err != nil {
					t.Fatalf("openai: %v", err)
				}
				b, _ := json.Marshal(defs)
				for _, err := range providertest.CheckOpenAI(b) {
					t.Errorf("openai (strict %v): %v", strict, err)
				}
			}
		})
	}
	if total == 0 {
		t.Fatal("no tool list found")
	}
	t.Logf("%d tools in %d files", total, len(files))
}
