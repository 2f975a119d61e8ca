package cli

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestWriteResult(t *testing.T) {
	size := int64(12)
	tests := []struct {
		name string
		res  runtime.Result
		want string
	}{
		{
			name: "text blocks",
			res:  runtime.Result{Content: []runtime.Content{{Type: "text", Text: "one"}, {Type: "text", Text: "two\n"}}},
			want: "one\ntwo\n",
		},
		{
			name: "structured content repeated in text is shown once, indented",
			res:  runtime.Result{Content: []runtime.Content{{Type: "text", Text: `{"b": 1, "a": [true]}`}}, StructuredContent: json.RawMessage(`{"a":[true],"b":1}`)},
			want: "{\n  \"a\": [\n    true\n  ],\n  \"b\": 1\n}\n",
		},
		{
			name: "structured content in place of its text, between other blocks",
			res:  runtime.Result{Content: []runtime.Content{{Type: "text", Text: "Sum:"}, {Type: "text", Text: `{"sum":3}`}, {Type: "text", Text: "done"}}, StructuredContent: json.RawMessage(`{"sum":3}`)},
			want: "Sum:\n{\n  \"sum\": 3\n}\ndone\n",
		},
		{
			name: "only the first text holding the structured content gives way to it",
			res:  runtime.Result{Content: []runtime.Content{{Type: "text", Text: `{"sum":3}`}, {Type: "text", Text: `{"sum": 3}`}}, StructuredContent: json.RawMessage(`{"sum":3}`)},
			want: "{\n  \"sum\": 3\n}\n{\"sum\": 3}\n",
		},
		{
			name: "structured content apart from the text",
			res:  runtime.Result{Content: []runtime.Content{{Type: "text", Text: "It is warm."}}, StructuredContent: json.RawMessage(`{"temp":30}`)},
			want: "It is warm.\nstructured content:\n{\n  \"temp\": 30\n}\n",
		},
		{
			name: "media and links",
			res: runtime.Result{Content: []runtime.Content{
				{Type: "image", MIMEType: "image/png", Data: []byte{1, 2, 3}},
				{Type: "audio", Data: []byte{1}},
				{Type: "resource_link", URI: "file:///a.txt", Name: "a file", MIMEType: "text/plain", Size: &size},
				{Type: "resource_link", URI: "file:///b"},
			}},
			want: "[image image/png, 3 bytes]\n[audio -, 1 bytes]\n[resource_link file:///a.txt \"a file\" text/plain]\n[resource_link file:///b]\n",
		},
		{
			name: "embedded resources",
			res: runtime.Result{Content: []runtime.Content{
				{Type: "resource", Resource: &runtime.ResourceContents{URI: "test://t/1", MIMEType: "text/plain", Text: "body"}},
				{Type: "resource", Resource: &runtime.ResourceContents{URI: "test://b/1", Blob: []byte("xyz")}},
				{Type: "resource"},
			}},
			want: "[resource test://t/1 text/plain]\nbody\n[resource test://b/1 -, 3 bytes]\n[resource]\n",
		},
		{
			name: "unknown block type",
			res:  runtime.Result{Content: []runtime.Content{{Type: "hologram", Raw: json.RawMessage(`{"type":"hologram"}`)}}},
			want: "[hologram block]\n",
		},
		{
			name: "nothing",
			res:  runtime.Result{},
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeResult(&b, &b, &tt.res)
			if b.String() != tt.want {
				t.Errorf("got:\n%q\nwant:\n%q", b.String(), tt.want)
			}
		})
	}
}

func TestParseCallArgs(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: `{"a": 1,
 "b": [2]}`, want: `{"a":1,"b":[2]}`},
		{in: "  ", want: `{}`},
		{in: `"x"`, err: "must be a JSON object, not a string"},
		{in: `null`, err: "must be a JSON object, not null"},
		{in: `12`, err: "must be a JSON object, not a number"},
		{in: `true`, err: "must be a JSON object, not a boolean"},
		{in: `{"a":}`, err: "are not valid JSON: invalid character '}' looking for beginning of value"},
		{in: `{}x`, err: "have more after the JSON object"},
	}
	for _, tt := range tests {
		got, err := parseCallArgs(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("parseCallArgs(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("parseCallArgs(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}
