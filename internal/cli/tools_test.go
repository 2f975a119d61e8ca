package cli

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestArgumentSummary(t *testing.T) {
	tests := []struct {
		schema string
		want   string
	}{
		{`{"type":"object","properties":{"b":{},"a":{"type":"string"}},"required":["a"]}`, "b?, a"},
		{`{"required":["x","y"],"properties":{"y":{},"x":{}}}`, "y, x"},
		{`{"type":"object"}`, "-"},
		{`{"type":"object","properties":{}}`, "-"},
		{`{"properties":{"a":{}},"required":"a"}`, "a?"},
		{`{"properties":[1]}`, "-"},
		{`true`, "-"},
		{`{"properties":{"a":`, "-"},
		{``, "-"},
	}
	for _, tt := range tests {
		if got := argumentSummary(json.RawMessage(tt.schema)); got != tt.want {
			t.Errorf("argumentSummary(%s) = %q, want %q", tt.schema, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"Short.", 10, "Short."},
		{"  First line.\nSecond line.", 72, "First line."},
		{"tab\tseparated", 72, "tab separated"},
		{"abcdefghij", 5, "abcd…"},
		{"héllo wörld", 6, "héllo…"},
		{"", 5, ""},
	}
	for _, tt := range tests {
		if got := summarize(tt.in, tt.n); got != tt.want {
			t.Errorf("summarize(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestWriteToolsTable(t *testing.T) {
	tools := []runtime.Tool{
		{Name: "zeta", Description: "Last.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "alpha", Title: "Alpha title", Description: "Does a.\nMore.", InputSchema: json.RawMessage(`{"properties":{"x":{}},"required":["x"]}`)},
		{Name: "mid", Title: "Only a title", InputSchema: json.RawMessage(`{}`)},
	}
	var b bytes.Buffer
	if err := writeToolsTable(&b, tools); err != nil {
		t.Fatal(err)
	}
	want := "NAME   ARGUMENTS  DESCRIPTION\n" +
		"alpha  x          Does a.\n" +
		"mid    -          Only a title\n" +
		"zeta   -          Last.\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteToolsJSON(t *testing.T) {
	tools := []runtime.Tool{
		{Name: "b", Raw: json.RawMessage(`{"name":"b","inputSchema":{"z":1,"a":2},"x-extra":true}`)},
		{Name: "a", InputSchema: json.RawMessage(`{}`)},
	}
	var b bytes.Buffer
	if err := writeToolsJSON(&b, tools); err != nil {
		t.Fatal(err)
	}
	want := `[
  {
    "name": "b",
    "inputSchema": {
      "z": 1,
      "a": 2
    },
    "x-extra": true
  },
  {
    "name": "a",
    "inputSchema": {}
  }
]
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
