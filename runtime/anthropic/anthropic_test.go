package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mcpgen/mcpgen/internal/testing/providertest"
	"github.com/mcpgen/mcpgen/runtime"
)

// The declarations of the Home Assistant and survey tool lists are pinned by
// the golden cases testdata/golden/homeassistant and testdata/golden/survey
// (go test ./cmd/mcpgen/internal/golden).

func TestToolParamsErrors(t *testing.T) {
	cases := []struct{ schema, want string }{
		{`{"type":"string"}`, `tool bad: input schema at (root): type is "string", not object`},
		{`[1]`, `tool bad: input schema at (root): schema is a JSON array, not an object`},
		{`{"$ref":"other.json"}`, `tool bad: input schema at /$ref: $ref "other.json" points outside the schema, which mcpgen does not fetch`},
		{`{`, `tool bad: reading input schema: unexpected EOF`},
	}
	for _, c := range cases {
		_, _, err := ToolParams([]runtime.Tool{{Name: "bad", InputSchema: json.RawMessage(c.schema)}})
		if err == nil || err.Error() != c.want {
			t.Errorf("schema %s: error %v, want %s", c.schema, err, c.want)
		}
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
	switch {
	case strings.Contains(string(raw), "fail"):
		return nil, runtime.ResultError(name, &runtime.Result{IsError: true, Content: []runtime.Content{{Type: "text", Text: "it failed"}}})
	case strings.Contains(string(raw), "down"):
		return nil, errors.New("connection refused")
	case strings.Contains(string(raw), "picture"):
		return &runtime.Result{Content: []runtime.Content{{Type: "image", MIMEType: "image/png", Data: []byte{1, 2}}, {Type: "image", MIMEType: "image/tiff", Data: []byte{3}}}}, nil
	case strings.Contains(string(raw), "structured"):
		return &runtime.Result{StructuredContent: json.RawMessage(`{"ok":true}`)}, nil
	}
	return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "done"}, {Type: "text", Text: string(raw)}}}, nil
}

var tools = []runtime.Tool{
	{Name: "light.turn_on", Description: "Turns a light on.", InputSchema: json.RawMessage(`{"type":"object","properties":{"entity":{"type":"string"}},"required":["entity"]}`)},
}

func TestHandle(t *testing.T) {
	caller := &fakeCaller{}
	ts, err := NewToolset(caller, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.ToolParams()[0].Name; got != "light_turn_on" {
		t.Fatalf("declared name %q, want light_turn_on", got)
	}
	cases := []struct {
		name, input, want string
		isError, called   bool
	}{
		{"ok", `{"entity":"light.kitchen"}`, `[{"text":"done\n{\"entity\":\"light.kitchen\"}","type":"text"}]`, false, true},
		{"invalid", `{"entity":5}`, `[{"text":"invalid arguments for light.turn_on at /entity: got number, want string","type":"text"}]`, true, false},
		{"missing", `{}`, `[{"text":"invalid arguments for light.turn_on at (root): missing property 'entity'","type":"text"}]`, true, false},
		{"tool error", `{"entity":"fail"}`, `[{"text":"it failed","type":"text"}]`, true, true},
		{"transport error", `{"entity":"down"}`, `[{"text":"calling light.turn_on failed: connection refused","type":"text"}]`, true, true},
		{"images", `{"entity":"picture"}`, `[{"text":"[image 1: image/png, attached]\n[image: image/tiff, 1 bytes, not shown]","type":"text"},{"source":{"data":"AQI=","media_type":"image/png","type":"base64"},"type":"image"}]`, false, true},
		{"structured", `{"entity":"structured"}`, `[{"text":"{\"ok\":true}","type":"text"}]`, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(caller.calls)
			block := anthropic.ToolUseBlock{ID: "toolu_1", Name: "light_turn_on", Input: json.RawMessage(c.input)}
			res := ts.Handle(context.Background(), block)
			if res.ToolUseID != "toolu_1" {
				t.Errorf("tool_use_id = %q", res.ToolUseID)
			}
			if res.IsError.Value != c.isError {
				t.Errorf("is_error = %v, want %v", res.IsError.Value, c.isError)
			}
			got, _ := json.Marshal(res.Content)
			if string(got) != c.want {
				t.Errorf("content = %s\nwant %s", got, c.want)
			}
			if called := len(caller.calls) > before; called != c.called {
				t.Errorf("called = %v, want %v", called, c.called)
			}
		})
	}
	res := ts.Handle(context.Background(), anthropic.ToolUseBlock{ID: "x", Name: "light.turn_on"})
	if got, _ := json.Marshal(res.Content); !res.IsError.Value || !strings.Contains(string(got), `unknown tool \"light.turn_on\"; the tools are: light_turn_on`) {
		t.Errorf("unknown tool: %s", got)
	}
}

func TestHandleAllOrder(t *testing.T) {
	ts, err := NewToolset(&fakeCaller{}, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []anthropic.ToolUseBlock
	for _, id := range []string{"a", "b", "c", "d"} {
		blocks = append(blocks, anthropic.ToolUseBlock{ID: id, Name: "light_turn_on", Input: json.RawMessage(`{"entity":"` + id + `"}`)})
	}
	out := ts.HandleAll(context.Background(), blocks)
	for i, b := range out {
		if b.OfToolResult == nil || b.OfToolResult.ToolUseID != blocks[i].ID {
			t.Errorf("result %d is for %+v, want %s", i, b.OfToolResult, blocks[i].ID)
		}
	}
	msg := anthropic.NewUserMessage(out...)
	if b, err := json.Marshal(msg); err != nil || !strings.Contains(string(b), `"tool_use_id":"d"`) {
		t.Errorf("user message %s, %v", b, err)
	}
}

func TestToolUses(t *testing.T) {
	var msg anthropic.Message
	body := `{"id":"m","type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"light_turn_on","input":{"entity":"x"}}],"stop_reason":"tool_use"}`
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatal(err)
	}
	uses := ToolUses(&msg)
	if len(uses) != 1 || uses[0].ID != "t1" || string(uses[0].Input) != `{"entity":"x"}` {
		t.Fatalf("ToolUses = %+v", uses)
	}
	ts, _ := NewToolset(&fakeCaller{}, tools, nil)
	if res := ts.Handle(context.Background(), uses[0]); res.IsError.Value {
		t.Errorf("decoded tool_use failed: %+v", res)
	}
}

// TestToolParamsDeterministic checks that the same tools always give the same
// bytes: Anthropic's prompt caching needs byte-identical tool definitions.
func TestToolParamsDeterministic(t *testing.T) {
	tools, err := providertest.LoadTools(providertest.SurveyTools)
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for i := 0; i < 20; i++ {
		params, _, err := ToolParams(tools)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Fatalf("run %d marshaled differently from the first", i)
		}
	}
}
