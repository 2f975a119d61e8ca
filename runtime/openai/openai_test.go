package openai

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/runtime"
)

// The declarations of the Home Assistant and survey tool lists are pinned by
// the golden cases testdata/golden/homeassistant and testdata/golden/survey
// (go test ./cmd/mcpgen/internal/golden).

// TestStrictFallback checks which schemas strict mode declines, and that
// those tools are declared with strict false.
func TestStrictFallback(t *testing.T) {
	cases := []struct {
		name, schema string
		strict       bool
	}{
		{"plain", `{"type":"object","properties":{"a":{"type":"string"}}}`, true},
		{"no properties", `{"type":"object"}`, true},
		{"free-form map", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`, false},
		{"any value", `{"type":"object","properties":{"v":{}}}`, false},
		{"nested allOf", `{"type":"object","properties":{"v":{"allOf":[{"type":"string"}]}}}`, false},
		{"array without items", `{"type":"object","properties":{"v":{"type":"array"}}}`, false},
		{"ref into properties", `{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a"}}}`, false},
		{"defs ref and oneOf", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"$defs":{"A":{"type":"object","properties":{"x":{"type":"integer"}}}}}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defs, _, err := FunctionDefinitions([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(c.schema)}}, &Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if !defs[0].Strict.Valid() || defs[0].Strict.Value != c.strict {
				t.Errorf("strict = %v (set %v), want %v", defs[0].Strict.Value, defs[0].Strict.Valid(), c.strict)
			}
			b, _ := json.Marshal(defs)
			for _, err := range providertest.CheckOpenAI(b) {
				t.Error(err)
			}
		})
	}
}

type fakeCaller struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeCaller) CallTool(ctx context.Context, name string, args any) (*runtime.Result, error) {
	raw, _ := args.(json.RawMessage)
	f.mu.Lock()
	f.calls = append(f.calls, name+" "+string(raw))
	f.mu.Unlock()
	if strings.Contains(string(raw), "fail") {
		return &runtime.Result{IsError: true, Content: []runtime.Content{{Type: "text", Text: "it failed"}}}, nil
	}
	if strings.Contains(string(raw), "structured") {
		return &runtime.Result{StructuredContent: json.RawMessage(`{"ok":true}`)}, nil
	}
	return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "ok"}, {Type: "audio", MIMEType: "audio/wav", Data: []byte{1}}}}, nil
}

var tools = []runtime.Tool{
	{Name: "light.turn_on", InputSchema: json.RawMessage(`{"type":"object","properties":{"entity":{"type":"string"},"brightness":{"type":"integer","minimum":0},"note":{"type":["string","null"]},"opts":{"type":"object","properties":{"fade":{"type":"number"}}}},"required":["entity"]}`)},
}

func toolCall(id, name, args string) openai.ChatCompletionMessageToolCallUnion {
	var c openai.ChatCompletionMessageToolCallUnion
	body, _ := json.Marshal(map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}})
	if err := json.Unmarshal(body, &c); err != nil {
		panic(err)
	}
	return c
}

func TestHandle(t *testing.T) {
	for _, strict := range []bool{false, true} {
		caller := &fakeCaller{}
		ts, err := NewToolset(caller, tools, &Options{Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		if got := ts.Definitions()[0].Name; got != "light_turn_on" {
			t.Fatalf("declared name %q", got)
		}
		cases := []struct {
			name, args, want, call string
		}{
			{"ok", `{"entity":"e"}`, "ok\n[audio: audio/wav, 1 bytes, not shown]", `light.turn_on {"entity":"e"}`},
			{"invalid", `{"entity":"e","brightness":-1}`, "Error: invalid arguments for light.turn_on at /brightness: minimum: got -1, want 0", ""},
			{"tool error", `{"entity":"fail"}`, "Error: it failed", `light.turn_on {"entity":"fail"}`},
			{"structured", `{"entity":"structured"}`, `{"ok":true}`, `light.turn_on {"entity":"structured"}`},
			{"not JSON", `{"entity":`, "Error: arguments for light.turn_on are not valid JSON", ""},
			{"unknown", ``, "Error: unknown function \"nope\"; the functions are: light_turn_on", ""},
		}
		if strict {
			// A strict model sends null for what it leaves out; the nulls
			// the server does not accept are removed, the others kept.
			cases = append(cases, struct{ name, args, want, call string }{
				"strict nulls", `{"entity":"e","brightness":null,"note":null,"opts":{"fade":null}}`, "ok\n[audio: audio/wav, 1 bytes, not shown]", `light.turn_on {"entity":"e","note":null,"opts":{}}`,
			})
		} else {
			cases = append(cases, struct{ name, args, want, call string }{
				"nulls kept without strict", `{"entity":"e","brightness":null}`, "Error: invalid arguments for light.turn_on at /brightness: got null, want integer", "",
			})
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := len(caller.calls)
				name := "light_turn_on"
				if c.name == "unknown" {
					name = "nope"
				}
				msg := ts.Handle(context.Background(), toolCall("call_1", name, c.args))
				if msg.OfTool == nil || msg.OfTool.ToolCallID != "call_1" {
					t.Fatalf("message %+v is not a tool message for call_1", msg)
				}
				if got := msg.OfTool.Content.OfString.Value; got != c.want {
					t.Errorf("content = %q\nwant %q", got, c.want)
				}
				calls := caller.calls[before:]
				if c.call == "" && len(calls) != 0 || c.call != "" && (len(calls) != 1 || calls[0] != c.call) {
					t.Errorf("calls = %q, want %q", calls, c.call)
				}
			})
		}
	}
}

func TestHandleAllOrder(t *testing.T) {
	ts, err := NewToolset(&fakeCaller{}, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	var calls []openai.ChatCompletionMessageToolCallUnion
	for _, id := range []string{"a", "b", "c"} {
		calls = append(calls, toolCall(id, "light_turn_on", `{"entity":"`+id+`"}`))
	}
	for i, m := range ts.HandleAll(context.Background(), calls) {
		if m.OfTool == nil || m.OfTool.ToolCallID != calls[i].ID {
			t.Errorf("message %d answers %+v, want %s", i, m.OfTool, calls[i].ID)
		}
	}
	if got := len(ts.Tools()); got != 1 {
		t.Errorf("Tools() has %d entries", got)
	}
}
