package providertest_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/anthropic"
	"github.com/mcpgen/mcpgen/runtime/gemini"
	"github.com/mcpgen/mcpgen/runtime/openai"
)

// TestNameRoundTrip checks that every provider's declared name maps back to
// the MCP name, for names each provider accepts as they are and for names
// it must rewrite.
func TestNameRoundTrip(t *testing.T) {
	tools, err := providertest.LoadTools("testdata/survey-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	extra := []string{"light.turn_on_", "light_turn_on", "elicit (form)", "a:b", "x.y.z"}
	for _, name := range extra {
		if !hasTool(tools, name) {
			tools = append(tools, runtime.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)})
		}
	}
	valid := map[string]func(string) bool{"gemini": gemini.ValidName, "anthropic": anthropic.ValidName, "openai": openai.ValidName}
	providers := map[string]func() ([]string, map[string]string, error){
		"gemini": func() ([]string, map[string]string, error) {
			decls, names, err := gemini.Declarations(tools, nil)
			out := make([]string, len(decls))
			for i, d := range decls {
				out[i] = d.Name
			}
			return out, names, err
		},
		"anthropic": func() ([]string, map[string]string, error) {
			params, names, err := anthropic.ToolParams(tools)
			out := make([]string, len(params))
			for i, p := range params {
				out[i] = p.Name
			}
			return out, names, err
		},
		"openai": func() ([]string, map[string]string, error) {
			defs, names, err := openai.FunctionDefinitions(tools, &openai.Options{Strict: true})
			out := make([]string, len(defs))
			for i, d := range defs {
				out[i] = d.Name
			}
			return out, names, err
		},
	}
	for provider, declare := range providers {
		t.Run(provider, func(t *testing.T) {
			declared, names, err := declare()
			if err != nil {
				t.Fatal(err)
			}
			if len(names) != len(tools) {
				t.Errorf("%d names for %d tools", len(names), len(tools))
			}
			seen := map[string]bool{}
			for i, d := range declared {
				if names[d] != tools[i].Name {
					t.Errorf("%q declared as %q maps back to %q", tools[i].Name, d, names[d])
				}
				if !valid[provider](d) {
					t.Errorf("%q declared as %q, which ValidName rejects", tools[i].Name, d)
				}
				if valid[provider](tools[i].Name) && d != tools[i].Name {
					t.Errorf("valid name %q declared as %q", tools[i].Name, d)
				}
				if seen[d] {
					t.Errorf("%q declared twice", d)
				}
				seen[d] = true
				if tools[i].Name == "light.turn_on" {
					t.Logf("light.turn_on is declared as %q", d)
				}
			}
		})
	}
}

func hasTool(tools []runtime.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// TestSurveyGemini runs the survey corpus through the Gemini checker in both
// declaration forms.
func TestSurveyGemini(t *testing.T) {
	tools, err := providertest.LoadTools("testdata/survey-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []*gemini.DeclarationOptions{nil, {JSONSchema: true}} {
		decls, _, err := gemini.Declarations(tools, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range providertest.CheckGemini(decls) {
			t.Error(err)
		}
	}
}

func TestValidName(t *testing.T) {
	cases := []struct {
		name                      string
		gemini, anthropic, openai bool
	}{
		{"light.turn_on", true, false, false},
		{"light_turn_on", true, true, true},
		{"list-events", true, true, true},
		{"ns:tool", true, false, false},
		{"1st", false, true, true},
		{"_x", true, true, true},
		{"elicit (form)", false, false, false},
		{"", false, false, false},
		{strings.Repeat("a", 64), true, true, true},
		{strings.Repeat("a", 65), false, true, false},
		{strings.Repeat("a", 129), false, false, false},
	}
	for _, c := range cases {
		if got := gemini.ValidName(c.name); got != c.gemini {
			t.Errorf("gemini.ValidName(%q) = %v", c.name, got)
		}
		if got := anthropic.ValidName(c.name); got != c.anthropic {
			t.Errorf("anthropic.ValidName(%q) = %v", c.name, got)
		}
		if got := openai.ValidName(c.name); got != c.openai {
			t.Errorf("openai.ValidName(%q) = %v", c.name, got)
		}
	}
}

// TestRequiredNamesDeclared checks, over every tool list of the test data,
// that each name a tool's input schema requires at its top level is a
// property the model is told to send, in the Gemini typed form and in OpenAI
// strict mode: both close the object to the declared properties, so a
// required name left out of them made every call fail the server's schema.
func TestRequiredNamesDeclared(t *testing.T) {
	files, err := filepath.Glob(testenv.FromRoot("testdata/*/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "testdata/survey-tools.json")
	for _, file := range files {
		tools, err := providertest.LoadTools(file)
		if err != nil || len(tools) == 0 {
			continue
		}
		decls, _, err := gemini.Declarations(tools, nil)
		if err != nil {
			t.Fatalf("%s: gemini: %v", file, err)
		}
		defs, _, err := openai.FunctionDefinitions(tools, &openai.Options{Strict: true})
		if err != nil {
			t.Fatalf("%s: openai: %v", file, err)
		}
		for i, tool := range tools {
			var in struct {
				Required []string `json:"required"`
			}
			if json.Unmarshal(tool.InputSchema, &in) != nil {
				continue
			}
			for _, name := range in.Required {
				if p := decls[i].Parameters; p != nil && (p.Properties[name] == nil || !slices.Contains(p.Required, name)) {
					t.Errorf("%s: tool %q: gemini: required %q is not a required parameter of the typed form", filepath.Base(file), tool.Name, name)
				}
				if d := defs[i]; d.Strict.Value {
					var params struct {
						Properties map[string]json.RawMessage `json:"properties"`
						Required   []string                   `json:"required"`
					}
					b, _ := json.Marshal(d.Parameters)
					if json.Unmarshal(b, &params) != nil || params.Properties[name] == nil || !slices.Contains(params.Required, name) {
						t.Errorf("%s: tool %q: openai strict: required %q is not a required property", filepath.Base(file), tool.Name, name)
					}
				}
			}
		}
	}
}
