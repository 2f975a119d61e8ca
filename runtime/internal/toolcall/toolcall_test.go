package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime"
)

type callerFunc func(ctx context.Context, name string, args any) (*runtime.Result, error)

func (f callerFunc) CallTool(ctx context.Context, name string, args any) (*runtime.Result, error) {
	return f(ctx, name, args)
}

func TestRun(t *testing.T) {
	schema := runtime.NewSchema("t", []byte(`{"type":"object","properties":{"n":{"type":"integer"}}}`))
	var got string
	ok := callerFunc(func(ctx context.Context, name string, args any) (*runtime.Result, error) {
		got = string(args.(json.RawMessage))
		return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "fine"}}, StructuredContent: json.RawMessage(`{"n":1}`)}, nil
	})
	cases := []struct {
		name   string
		caller runtime.Caller
		schema *runtime.Schema
		args   string
		want   Outcome
		sent   string
	}{
		{"valid", ok, schema, `{"n":1}`, Outcome{Text: "fine", Structured: json.RawMessage(`{"n":1}`), Called: true}, `{"n":1}`},
		{"empty args", ok, schema, ``, Outcome{Text: "fine", Structured: json.RawMessage(`{"n":1}`), Called: true}, `{}`},
		{"null args", ok, schema, `null`, Outcome{Text: "fine", Structured: json.RawMessage(`{"n":1}`), Called: true}, `{}`},
		{"invalid", ok, schema, `{"n":"x"}`, Outcome{Error: "invalid arguments for t at /n: got string, want integer"}, ""},
		{"not JSON", ok, schema, `{"n":`, Outcome{Error: "arguments for t are not valid JSON"}, ""},
		{"no schema", ok, nil, `{"n":"x"}`, Outcome{Text: "fine", Structured: json.RawMessage(`{"n":1}`), Called: true}, `{"n":"x"}`},
		{"panic", callerFunc(func(context.Context, string, any) (*runtime.Result, error) { panic("boom") }), nil, `{}`,
			Outcome{Error: "calling t failed: internal error: boom", Called: true}, ""},
		{"nil result", callerFunc(func(context.Context, string, any) (*runtime.Result, error) { return nil, nil }), nil, `{}`,
			Outcome{Called: true}, ""},
		{"isError without text", callerFunc(func(context.Context, string, any) (*runtime.Result, error) {
			return &runtime.Result{IsError: true}, nil
		}), nil, `{}`, Outcome{Error: "the tool reported an error without a message", Called: true, ToolError: true}, ""},
		{"schema does not compile", ok, runtime.NewSchema("t", []byte(`{"$ref":"http://x/y"}`)), `{}`,
			Outcome{Text: "fine", Structured: json.RawMessage(`{"n":1}`), Called: true}, `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got = ""
			out := Run(context.Background(), c.caller, "t", c.schema, []byte(c.args), nil, nil)
			if fmt.Sprint(out) != fmt.Sprint(c.want) {
				t.Errorf("outcome = %+v\nwant %+v", out, c.want)
			}
			if got != c.sent {
				t.Errorf("sent %q, want %q", got, c.sent)
			}
		})
	}
}

func TestUnknownTool(t *testing.T) {
	if got := UnknownTool("tool", "x", []string{"b", "a"}); got != `unknown tool "x"; the tools are: a, b` {
		t.Errorf("got %q", got)
	}
	var many []string
	for i := 0; i < 50; i++ {
		many = append(many, fmt.Sprintf("t%02d", i))
	}
	if got := UnknownTool("function", "x", many); !strings.HasSuffix(got, "t39 and 10 more") {
		t.Errorf("got %q", got)
	}
}

// A result as large as a message gives the model at most MaxOutput bytes
// of text, error text or structured content, and says what was cut: what a
// toolset gives the model stays in the conversation's history.
func TestRunBoundsWhatTheModelGets(t *testing.T) {
	huge := strings.Repeat("é", 4<<20) // 8 MiB
	bigJSON := `{"rows":"` + strings.Repeat("x", 1<<20) + `"}`
	for name, res := range map[string]*runtime.Result{
		"text":       {Content: []runtime.Content{{Type: runtime.ContentText, Text: huge}}},
		"error":      {IsError: true, Content: []runtime.Content{{Type: runtime.ContentText, Text: huge}}},
		"structured": {Content: []runtime.Content{{Type: runtime.ContentText, Text: "rows follow"}}, StructuredContent: json.RawMessage(bigJSON)},
	} {
		t.Run(name, func(t *testing.T) {
			out := Run(context.Background(), callerFunc(func(context.Context, string, any) (*runtime.Result, error) { return res, nil }), "t", nil, nil, nil, nil)
			text := out.Text + out.Error
			if len(text) > MaxOutput+200 || len(out.Structured) > MaxOutput {
				t.Fatalf("the model gets %d bytes of text and %d of structured content", len(text), len(out.Structured))
			}
			if !utf8.ValidString(text) {
				t.Errorf("the text was cut inside a rune")
			}
			switch name {
			case "structured":
				if !strings.HasPrefix(text, "rows follow\n[the structured content, 1048587 bytes, is more than") {
					t.Errorf("text = %q", text)
				}
			default:
				if !strings.HasSuffix(text, fmt.Sprintf("\n[the output was cut here: the first %d of its %d bytes are shown]", MaxOutput, len(huge))) {
					t.Errorf("text ends %q", text[len(text)-100:])
				}
			}
		})
	}
}

// The images of one result are attached up to MaxImages bytes, in order;
// the rest are described: a result as large as a message would otherwise
// stay in the history as 16 MiB of image data, past what a provider takes
// in one request.
func TestRunBoundsTheImagesTheModelGets(t *testing.T) {
	png := func(n int) runtime.Content {
		return runtime.Content{Type: runtime.ContentImage, MIMEType: "image/png", Data: make([]byte, n)}
	}
	res := &runtime.Result{Content: []runtime.Content{png(2 << 20), png(2 << 20), png(1 << 20), png(8 << 20)}}
	out := Run(context.Background(), callerFunc(func(context.Context, string, any) (*runtime.Result, error) { return res, nil }), "t", nil, nil,
		func(string) bool { return true }, nil)
	total := 0
	for _, img := range out.Images {
		total += len(img.Data)
	}
	if len(out.Images) != 2 || total > MaxImages {
		t.Fatalf("attached %d images of %d bytes, want 2 within %d", len(out.Images), total, MaxImages)
	}
	want := strings.Join([]string{
		"[image 1: image/png, attached]",
		"[image: image/png, 2097152 bytes, not shown: the images of one result are given to the model up to 3145728 bytes]",
		"[image 2: image/png, attached]",
		"[image: image/png, 8388608 bytes, not shown: the images of one result are given to the model up to 3145728 bytes]",
	}, "\n")
	if out.Text != want {
		t.Errorf("text = %q\nwant %q", out.Text, want)
	}
}
