package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/runtime"
	mcpanthropic "github.com/mcpgen/mcpgen/runtime/anthropic"
	"github.com/mcpgen/mcpgen/runtime/gemini"
	mcpopenai "github.com/mcpgen/mcpgen/runtime/openai"
)

// emitCombinations returns every --emit value generate accepts, each with
// the extra flags that select the other forms of a part (the raw Gemini
// form, OpenAI strict mode).
func emitCombinations() [][]string {
	var out [][]string
	for mask := 1; mask < 1<<len(ir.Parts); mask++ {
		var parts []string
		for i, p := range ir.Parts {
			if mask&(1<<i) != 0 {
				parts = append(parts, p)
			}
		}
		needsTypes := slices.ContainsFunc(parts, func(p string) bool {
			return p == ir.PartClient || p == ir.PartAnthropic || p == ir.PartOpenAI || p == ir.PartFake
		})
		if needsTypes && !slices.Contains(parts, ir.PartTypes) {
			continue
		}
		args := []string{"--emit", strings.Join(parts, ",")}
		out = append(out, args)
		if slices.Contains(parts, ir.PartGemini) {
			out = append(out, append(slices.Clone(args), "--gemini", ir.GeminiJSON))
		}
		if slices.Contains(parts, ir.PartOpenAI) {
			out = append(out, append(slices.Clone(args), "--openai-strict"))
		}
	}
	return out
}

// generateEveryPart runs generate on the snapshot once per --emit
// combination and fails the test unless each run succeeds. With vet set,
// it also vets the package of every part at once, in each form.
func generateEveryPart(t *testing.T, snapshot string, vet bool) {
	t.Helper()
	for _, args := range emitCombinations() {
		out := t.TempDir()
		code, _, stderr := runCLI(t, append([]string{"generate", "--snapshot", snapshot, "--package", "p", "--out", out}, args...)...)
		if code != 0 {
			t.Errorf("generate %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	if !vet || testing.Short() {
		return
	}
	// The package must be inside the module to import its runtime.
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove("testdata") // only if empty: it is not checked in
	for _, form := range []string{ir.GeminiTyped, ir.GeminiJSON} {
		root, err := os.MkdirTemp("testdata", "parts-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		out := filepath.Join(root, "p")
		if code, _, stderr := runCLI(t, "generate", "--snapshot", snapshot, "--package", "p", "--out", out,
			"--emit", strings.Join(ir.Parts, ","), "--gemini", form, "--openai-strict"); code != 0 {
			t.Fatalf("generate every part, %s: exit %d: %s", form, code, stderr)
		}
		if b, err := exec.Command("go", "vet", "./"+filepath.ToSlash(out)).CombinedOutput(); err != nil {
			t.Errorf("go vet, gemini %s: %v\n%s", form, err, b)
		}
	}
}

// TestAnchorRefEveryPart generates a tool whose property is a $ref to a
// plain-name $anchor with every --emit combination, and converts it for
// every provider at run time: each part resolves the anchor to the same
// point schema.
func TestAnchorRefEveryPart(t *testing.T) {
	tool := `{"name":"place","description":"Places a pin.","inputSchema":{"type":"object","properties":{"at":{"$ref":"#pt","description":"Where."}},"required":["at"],` +
		`"$defs":{"point":{"$anchor":"pt","type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}}}}`
	snap := writeSnapshot(t, t.TempDir(), "anchor.json", "anchors", tool)
	generateEveryPart(t, snap, true)

	var rt runtime.Tool
	if err := json.Unmarshal([]byte(tool), &rt); err != nil {
		t.Fatal(err)
	}
	tools := []runtime.Tool{rt}
	decls, _, err := gemini.Declarations(tools, nil)
	if err != nil {
		t.Fatalf("gemini: %v", err)
	}
	at := decls[0].Parameters.Properties["at"]
	if at == nil || at.Properties["x"] == nil || at.Properties["y"] == nil || at.Description != "Where." {
		t.Errorf("gemini declares at as %+v, want the point with its own description", at)
	}
	if _, _, err := mcpanthropic.ToolParams(tools); err != nil {
		t.Errorf("anthropic: %v", err)
	}
	for _, strict := range []bool{false, true} {
		if _, _, err := mcpopenai.FunctionDefinitions(tools, &mcpopenai.Options{Strict: strict}); err != nil {
			t.Errorf("openai, strict %v: %v", strict, err)
		}
	}
}

// TestProviderNamesReserved generates, for the identifiers every part
// declares, tools whose nested types would take them (the tool anthropic
// with an object property declared_names wants AnthropicDeclaredNames), with
// every --emit combination: the types give way, and the package compiles.
func TestProviderNamesReserved(t *testing.T) {
	var tools []string
	for _, part := range ir.Parts {
		for _, id := range ir.Declared[part] {
			// Split the identifier at its second word: the tool takes the
			// first, an object property the rest.
			i := strings.IndexFunc(id[1:], func(r rune) bool { return r >= 'A' && r <= 'Z' }) + 1
			if i == 0 {
				continue // one word: no tool's type can be named so
			}
			tools = append(tools, `{"name":"`+strings.ToLower(id[:i])+`","inputSchema":{"type":"object","properties":{"`+
				id[i:]+`":{"type":"object","properties":{"a":{"type":"string"}}}}}}`)
		}
	}
	// Tools sharing a first word are one tool with several properties.
	merged := map[string][]string{}
	var order []string
	for _, tool := range tools {
		var v struct {
			Name  string `json:"name"`
			Input struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"inputSchema"`
		}
		if err := json.Unmarshal([]byte(tool), &v); err != nil {
			t.Fatal(err)
		}
		if _, ok := merged[v.Name]; !ok {
			order = append(order, v.Name)
		}
		for p := range v.Input.Properties {
			merged[v.Name] = append(merged[v.Name], `"`+p+`":{"type":"object","properties":{"a":{"type":"string"}}}`)
		}
	}
	var list []string
	for _, name := range order {
		list = append(list, `{"name":"`+name+`","inputSchema":{"type":"object","properties":{`+strings.Join(merged[name], ",")+`}}}`)
	}
	snap := writeSnapshot(t, t.TempDir(), "names.json", "names", strings.Join(list, ","))
	generateEveryPart(t, snap, true)
}
