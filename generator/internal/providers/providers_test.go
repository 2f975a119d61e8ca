package providers

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/runtime"
	mcpanthropic "github.com/mcpgen/mcpgen/runtime/anthropic"
	"github.com/mcpgen/mcpgen/runtime/gemini"
	mcpopenai "github.com/mcpgen/mcpgen/runtime/openai"
)

// fakeCaller records the tool calls it gets and answers each with a text.
type fakeCaller struct {
	mu    sync.Mutex
	calls []string // "name args"
}

func (f *fakeCaller) CallTool(ctx context.Context, name string, args any) (*runtime.Result, error) {
	data, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.calls = append(f.calls, name+" "+string(data))
	f.mu.Unlock()
	return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "done: " + name}}}, nil
}

func (f *fakeCaller) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// TestDeclarationsFollowProviderRules checks the generated declarations of
// every provider against the rules internal/testing/providertest holds, the strict
// OpenAI rules included.
func TestDeclarationsFollowProviderRules(t *testing.T) {
	tools := MCPTools()
	t.Run("openai strict", func(t *testing.T) {
		defs, err := OpenAIFunctionDefinitions()
		if err != nil {
			t.Fatal(err)
		}
		if len(defs) != len(tools) {
			t.Fatalf("%d definitions for %d tools", len(defs), len(tools))
		}
		strict := 0
		for _, d := range defs {
			if d.Strict.Valid() && d.Strict.Value {
				strict++
			}
		}
		// Most survey tools fit strict mode; the rest (free-form maps,
		// tuples, values of any type) are declared without it.
		if strict < len(defs)/2 {
			t.Errorf("only %d of %d definitions are strict", strict, len(defs))
		}
		data, err := json.Marshal(defs)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range providertest.CheckOpenAI(data) {
			t.Error(err)
		}
	})
	t.Run("anthropic", func(t *testing.T) {
		params, err := AnthropicToolParams()
		if err != nil {
			t.Fatal(err)
		}
		if len(params) != len(tools) {
			t.Fatalf("%d declarations for %d tools", len(params), len(tools))
		}
		data, err := json.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range providertest.CheckAnthropic(data) {
			t.Error(err)
		}
	})
	t.Run("gemini", func(t *testing.T) {
		for _, err := range providertest.CheckGemini(FunctionDeclarations()) {
			t.Error(err)
		}
	})
}

// TestNameMaps checks that the checked-in name maps are the ones the
// runtime packages compute now, and that light.turn_on round-trips through
// each of them.
func TestNameMaps(t *testing.T) {
	tools := MCPTools()
	_, gem, err := gemini.Declarations(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, ant, err := mcpanthropic.ToolParams(tools)
	if err != nil {
		t.Fatal(err)
	}
	_, oai, err := mcpopenai.FunctionDefinitions(tools, &mcpopenai.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		provider      string
		generated     map[string]string
		computed      map[string]string
		lightTurnOnAs string
	}{
		{"gemini", DeclaredNames, gem, "light.turn_on"}, // Gemini accepts dots
		{"anthropic", AnthropicDeclaredNames, ant, "light_turn_on"},
		{"openai", OpenAIDeclaredNames, oai, "light_turn_on"},
	}
	for _, c := range cases {
		t.Run(c.provider, func(t *testing.T) {
			if !maps.Equal(c.generated, c.computed) {
				t.Errorf("the generated name map differs from the runtime's:\ngenerated %v\nruntime   %v", c.generated, c.computed)
			}
			if len(c.generated) != len(tools) {
				t.Errorf("%d names for %d tools", len(c.generated), len(tools))
			}
			if got := c.generated[c.lightTurnOnAs]; got != "light.turn_on" {
				t.Errorf("%s maps back to %q, want light.turn_on", c.lightTurnOnAs, got)
			}
		})
	}
}

// TestToolsets runs a tool-use block of each provider through the
// generated toolset constructors: valid input reaches the caller under the
// MCP name, input the schema rejects does not.
func TestToolsets(t *testing.T) {
	ctx := context.Background()
	t.Run("anthropic", func(t *testing.T) {
		caller := &fakeCaller{}
		ts, err := NewAnthropicToolset(caller)
		if err != nil {
			t.Fatal(err)
		}
		ok := ts.Handle(ctx, anthropic.ToolUseBlock{ID: "toolu_1", Name: "light_turn_on", Input: json.RawMessage(`{"a":1,"missing":true}`)})
		bad := ts.Handle(ctx, anthropic.ToolUseBlock{ID: "toolu_2", Name: "light_turn_on", Input: json.RawMessage(`{"a":"one","missing":true}`)})
		if ok.ToolUseID != "toolu_1" || ok.IsError.Value {
			t.Errorf("valid input gave %+v", ok)
		}
		data, _ := json.Marshal(bad)
		if bad.ToolUseID != "toolu_2" || !bad.IsError.Value || !strings.Contains(string(data), "invalid arguments for light.turn_on at /a") {
			t.Errorf("invalid input gave %s", data)
		}
		if got := caller.recorded(); len(got) != 1 || got[0] != `light.turn_on {"a":1,"missing":true}` {
			t.Errorf("the caller got %q, want only the valid call", got)
		}
	})
	t.Run("openai", func(t *testing.T) {
		caller := &fakeCaller{}
		ts, err := NewOpenAIToolset(caller)
		if err != nil {
			t.Fatal(err)
		}
		ok := ts.Handle(ctx, toolCall(t, "call_1", "light_turn_on", `{"a":1,"missing":true}`))
		bad := ts.Handle(ctx, toolCall(t, "call_2", "light_turn_on", `{"a":"one","missing":true}`))
		okData, _ := json.Marshal(ok)
		badData, _ := json.Marshal(bad)
		if !strings.Contains(string(okData), `"tool_call_id":"call_1"`) || !strings.Contains(string(okData), "done: light.turn_on") {
			t.Errorf("valid input gave %s", okData)
		}
		if !strings.Contains(string(badData), `"tool_call_id":"call_2"`) || !strings.Contains(string(badData), "Error: invalid arguments for light.turn_on at /a") {
			t.Errorf("invalid input gave %s", badData)
		}
		if got := caller.recorded(); len(got) != 1 || got[0] != `light.turn_on {"a":1,"missing":true}` {
			t.Errorf("the caller got %q, want only the valid call", got)
		}
	})
}

func toolCall(t *testing.T, id, name, args string) openai.ChatCompletionMessageToolCallUnion {
	t.Helper()
	body, err := json.Marshal(map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	var c openai.ChatCompletionMessageToolCallUnion
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	return c
}
