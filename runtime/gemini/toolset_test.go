package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// fakeCaller records calls and answers them with a function of the tool
// name and arguments.
type fakeCaller struct {
	mu     sync.Mutex
	calls  []string // "name args"
	answer func(name string, args json.RawMessage) (*runtime.Result, error)
}

func (f *fakeCaller) CallTool(ctx context.Context, name string, args any) (*runtime.Result, error) {
	raw, ok := args.(json.RawMessage)
	if !ok {
		return nil, errors.New("fake caller: args are not json.RawMessage")
	}
	f.mu.Lock()
	f.calls = append(f.calls, name+" "+string(raw))
	f.mu.Unlock()
	return f.answer(name, raw)
}

func (f *fakeCaller) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

var testTools = []runtime.Tool{
	{Name: "light.turn_on", Description: "Turns a light on.", InputSchema: json.RawMessage(`{"type":"object","properties":{"entity":{"type":"string","minLength":1},"brightness":{"type":"integer","minimum":0,"maximum":100}},"required":["entity"],"additionalProperties":false}`)},
	{Name: "echo", Description: "Echoes.", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)},
	{Name: "status", InputSchema: json.RawMessage(`{"type":"object"}`)},
	{Name: "no schema"},
}

func TestHandle(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G'}
	caller := &fakeCaller{answer: func(name string, args json.RawMessage) (*runtime.Result, error) {
		switch name {
		case "light.turn_on":
			return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "on"}, {Type: "text", Text: "at 50%"}}}, nil
		case "echo":
			var a struct{ Message string }
			_ = json.Unmarshal(args, &a)
			switch a.Message {
			case "structured":
				return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: `{"n":1}`}}, StructuredContent: json.RawMessage(`{"n":1,"list":["a"]}`)}, nil
			case "media":
				return &runtime.Result{Content: []runtime.Content{
					{Type: "text", Text: "look:"},
					{Type: "image", MIMEType: "image/png", Data: png},
					{Type: "audio", MIMEType: "audio/wav", Data: make([]byte, 10)},
					{Type: "resource_link", URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain"},
					{Type: "resource", Resource: &runtime.ResourceContents{URI: "mem://x", Text: "inner"}},
					{Type: "widget"},
				}}, nil
			case "fail":
				r := &runtime.Result{IsError: true, Content: []runtime.Content{{Type: "text", Text: "no such light"}}}
				return nil, runtime.ResultError(name, r)
			case "iserror":
				return &runtime.Result{IsError: true, Content: []runtime.Content{{Type: "text", Text: "bad"}}}, nil
			case "transport":
				return nil, &runtime.ServerExitedError{Command: "srv", ExitStatus: "exit status 1"}
			case "panic":
				panic("boom")
			}
			return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: a.Message}}}, nil
		case "status":
			return &runtime.Result{}, nil
		}
		return nil, errors.New("unexpected tool " + name)
	}}
	ts, err := NewToolset(caller, testTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		call     *genai.FunctionCall
		want     map[string]any
		parts    []*genai.FunctionResponsePart
		wantCall string // the tools/call the caller sees, "" for none
	}{
		{"text joined", &genai.FunctionCall{ID: "c1", Name: "light.turn_on", Args: map[string]any{"entity": "light.kitchen", "brightness": float64(50)}},
			map[string]any{"output": "on\nat 50%"}, nil, `light.turn_on {"brightness":50,"entity":"light.kitchen"}`},
		{"invalid: missing required", &genai.FunctionCall{ID: "c2", Name: "light.turn_on", Args: map[string]any{"brightness": float64(5)}},
			map[string]any{"error": "invalid arguments for light.turn_on at (root): missing property 'entity'"}, nil, ""},
		{"invalid: out of range", &genai.FunctionCall{ID: "c3", Name: "light.turn_on", Args: map[string]any{"entity": "x", "brightness": float64(101)}},
			map[string]any{"error": "invalid arguments for light.turn_on at /brightness: maximum: got 101, want 100"}, nil, ""},
		{"invalid: extra property", &genai.FunctionCall{ID: "c4", Name: "light.turn_on", Args: map[string]any{"entity": "x", "color": "red"}},
			map[string]any{"error": "invalid arguments for light.turn_on at (root): additional properties 'color' not allowed"}, nil, ""},
		{"structured output", &genai.FunctionCall{ID: "c5", Name: "echo", Args: map[string]any{"message": "structured"}},
			map[string]any{"output": map[string]any{"n": float64(1), "list": []any{"a"}}}, nil, `echo {"message":"structured"}`},
		{"media", &genai.FunctionCall{Name: "echo", Args: map[string]any{"message": "media"}},
			map[string]any{"output": "look:\n[image 1: image/png, attached]\n[audio: audio/wav, 10 bytes, not shown]\n[resource link: a.txt <file:///a.txt>, text/plain]\n[resource <mem://x>]\ninner\n[content of type \"widget\", not shown]"},
			[]*genai.FunctionResponsePart{{InlineData: &genai.FunctionResponseBlob{MIMEType: "image/png", Data: png}}}, `echo {"message":"media"}`},
		{"tool error", &genai.FunctionCall{ID: "c6", Name: "echo", Args: map[string]any{"message": "fail"}},
			map[string]any{"error": "no such light"}, nil, `echo {"message":"fail"}`},
		{"isError result", &genai.FunctionCall{ID: "c7", Name: "echo", Args: map[string]any{"message": "iserror"}},
			map[string]any{"error": "bad"}, nil, `echo {"message":"iserror"}`},
		{"transport error", &genai.FunctionCall{ID: "c8", Name: "echo", Args: map[string]any{"message": "transport"}},
			map[string]any{"error": "calling echo failed: server srv exited (exit status 1)"}, nil, `echo {"message":"transport"}`},
		{"panic", &genai.FunctionCall{ID: "c9", Name: "echo", Args: map[string]any{"message": "panic"}},
			map[string]any{"error": "calling echo failed: internal error: boom"}, nil, `echo {"message":"panic"}`},
		{"unknown name", &genai.FunctionCall{ID: "c10", Name: "nope"},
			map[string]any{"error": `unknown function "nope"; the functions are: echo, light.turn_on, no_schema, status`}, nil, ""},
		{"nil args", &genai.FunctionCall{ID: "c11", Name: "status"},
			map[string]any{"output": ""}, nil, `status {}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(caller.recorded())
			resp := ts.Handle(context.Background(), c.call)
			if resp.ID != c.call.ID || resp.Name != c.call.Name {
				t.Errorf("response id/name = %q/%q, want %q/%q", resp.ID, resp.Name, c.call.ID, c.call.Name)
			}
			if !reflect.DeepEqual(resp.Response, c.want) {
				t.Errorf("response = %#v\nwant %#v", resp.Response, c.want)
			}
			if !reflect.DeepEqual(resp.Parts, c.parts) {
				t.Errorf("parts = %v, want %v", resp.Parts, c.parts)
			}
			calls := caller.recorded()[before:]
			switch {
			case c.wantCall == "" && len(calls) != 0:
				t.Errorf("the tool was called: %v", calls)
			case c.wantCall != "" && (len(calls) != 1 || calls[0] != c.wantCall):
				t.Errorf("calls = %v, want [%s]", calls, c.wantCall)
			}
		})
	}
	if resp := ts.Handle(context.Background(), nil); resp.Response["error"] == nil {
		t.Errorf("nil call: %v", resp.Response)
	}
}

// TestHandleAllConcurrent checks that the calls of one turn run at the same
// time and come back in call order.
func TestHandleAllConcurrent(t *testing.T) {
	const n = 5
	var started sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	caller := &fakeCaller{answer: func(name string, args json.RawMessage) (*runtime.Result, error) {
		started.Done()
		<-release
		var a struct{ Message string }
		_ = json.Unmarshal(args, &a)
		return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: a.Message}}}, nil
	}}
	ts, err := NewToolset(caller, testTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := make([]*genai.FunctionCall, n)
	for i := range calls {
		calls[i] = &genai.FunctionCall{ID: string(rune('a' + i)), Name: "echo", Args: map[string]any{"message": strings.Repeat("x", i+1)}}
	}
	go func() {
		started.Wait() // every call is in flight at once
		close(release)
	}()
	done := make(chan []*genai.FunctionResponse)
	go func() { done <- ts.HandleAll(context.Background(), calls) }()
	select {
	case out := <-done:
		for i, r := range out {
			if r.ID != calls[i].ID || r.Response["output"] != strings.Repeat("x", i+1) {
				t.Errorf("response %d = %s %v", i, r.ID, r.Response)
			}
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("HandleAll did not run the calls concurrently")
	}
}

func TestToolsetNames(t *testing.T) {
	ts, err := NewToolset(&fakeCaller{}, testTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := ts.Tools()
	if len(tools) != 1 || len(tools[0].FunctionDeclarations) != len(testTools) {
		t.Fatalf("Tools() = %v", tools)
	}
	checkGemini(t, tools[0].FunctionDeclarations)
	for _, tool := range testTools {
		d, ok := ts.DeclaredName(tool.Name)
		if !ok {
			t.Fatalf("%q has no declared name", tool.Name)
		}
		if back, ok := ts.MCPName(d); !ok || back != tool.Name {
			t.Errorf("%q → %q → %q", tool.Name, d, back)
		}
	}
	if _, err := NewToolset(nil, testTools, nil); err == nil {
		t.Error("NewToolset accepted a nil caller")
	}
	empty, err := NewToolset(&fakeCaller{}, nil, nil)
	if err != nil || empty.Tools() != nil {
		t.Errorf("empty toolset: %v, %v", empty.Tools(), err)
	}
}

// TestHandleAttachesOnlyImageTypesGeminiTakes checks that an image is
// attached to the function response only when its MIME type is one Gemini
// takes there (image/png, image/jpeg, image/webp). The API refuses a
// request holding another (image/gif: "MIME type must be image/png,
// image/jpeg, ..."; image/jpg: "Unsupported MIME type"), and, kept in the
// history, such a part would fail every later request of the chat too.
func TestHandleAttachesOnlyImageTypesGeminiTakes(t *testing.T) {
	data := []byte{1, 2, 3}
	for _, c := range []struct {
		mime   string
		attach bool
	}{
		{"image/png", true},
		{"image/jpeg", true},
		{"image/webp", true},
		{"image/heic", false},
		{"image/gif", false},
		{"image/svg+xml", false},
		{"image/jpg", false},
		{"image/bmp", false},
		{"image/", false},
	} {
		t.Run(c.mime, func(t *testing.T) {
			caller := &fakeCaller{answer: func(string, json.RawMessage) (*runtime.Result, error) {
				return &runtime.Result{Content: []runtime.Content{{Type: "image", MIMEType: c.mime, Data: data}}}, nil
			}}
			ts, err := NewToolset(caller, testTools, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp := ts.Handle(context.Background(), &genai.FunctionCall{ID: "c", Name: "status"})
			want := map[string]any{"output": "[image: " + c.mime + ", 3 bytes, not shown]"}
			var parts []*genai.FunctionResponsePart
			if c.attach {
				want = map[string]any{"output": "[image 1: " + c.mime + ", attached]"}
				parts = []*genai.FunctionResponsePart{{InlineData: &genai.FunctionResponseBlob{MIMEType: c.mime, Data: data}}}
			}
			if !reflect.DeepEqual(resp.Response, want) {
				t.Errorf("response = %#v, want %#v", resp.Response, want)
			}
			if !reflect.DeepEqual(resp.Parts, parts) {
				t.Errorf("parts = %v, want %v", resp.Parts, parts)
			}
		})
	}
}

// TestHandleNullStructuredContentKeepsText checks that a result whose
// structuredContent is JSON null, which is no structured result, still
// gives the model its text: the null used to take the place of the text,
// and the model read {"output": null}.
func TestHandleNullStructuredContentKeepsText(t *testing.T) {
	for _, sc := range []string{"null", " null "} {
		caller := &fakeCaller{answer: func(string, json.RawMessage) (*runtime.Result, error) {
			return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "the answer is 42"}}, StructuredContent: json.RawMessage(sc)}, nil
		}}
		ts, err := NewToolset(caller, testTools, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp := ts.Handle(context.Background(), &genai.FunctionCall{ID: "c", Name: "status"})
		if want := map[string]any{"output": "the answer is 42"}; !reflect.DeepEqual(resp.Response, want) {
			t.Errorf("structuredContent %q: response = %#v, want %#v", sc, resp.Response, want)
		}
	}
}

// TestHandleToolErrorClaimsNoImage checks that the error of a result with
// isError set, which carries no parts, does not tell the model that the
// result's image is attached: it used to say "[image 1: image/png,
// attached]" of an image the model never received.
func TestHandleToolErrorClaimsNoImage(t *testing.T) {
	caller := &fakeCaller{answer: func(string, json.RawMessage) (*runtime.Result, error) {
		return &runtime.Result{IsError: true, Content: []runtime.Content{
			{Type: "text", Text: "the page failed to load; screenshot:"},
			{Type: "image", MIMEType: "image/png", Data: []byte{1, 2, 3}},
		}}, nil
	}}
	ts, err := NewToolset(caller, testTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := ts.Handle(context.Background(), &genai.FunctionCall{ID: "c", Name: "status"})
	want := map[string]any{"error": "the page failed to load; screenshot:\n[image: image/png, 3 bytes, not shown]"}
	if !reflect.DeepEqual(resp.Response, want) || len(resp.Parts) != 0 {
		t.Errorf("response = %#v with %d parts, want %#v and none", resp.Response, len(resp.Parts), want)
	}
}

// TestHandleStructuredContentBeyondFloat64 checks that a result whose
// structured content holds a number a float64 cannot hold (1e400), and no
// text, gives the model the structured content as its JSON text, as Claude
// and OpenAI get it: the response's output was empty.
func TestHandleStructuredContentBeyondFloat64(t *testing.T) {
	const sc = `{"n":1e400,"m":1}`
	caller := &fakeCaller{answer: func(string, json.RawMessage) (*runtime.Result, error) {
		return &runtime.Result{StructuredContent: json.RawMessage(sc)}, nil
	}}
	ts, err := NewToolset(caller, testTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := ts.Handle(context.Background(), &genai.FunctionCall{ID: "c", Name: "status"})
	if want := map[string]any{"output": sc}; !reflect.DeepEqual(resp.Response, want) {
		t.Errorf("response = %#v, want %#v", resp.Response, want)
	}
}
