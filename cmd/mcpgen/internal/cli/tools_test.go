package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

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
	if err := writeToolsTable(&b, tools, 0); err != nil {
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

// TestToolsTableFitsTerminal lists a tool with forty arguments and a long
// description: on a terminal 60 columns wide ($COLUMNS, as no window size
// can be read from a buffer) every line of the table fits, the cut cells end
// with an ellipsis, and a short row is left whole; piped, the arguments are
// all there. The table was as wide as its widest row everywhere.
func TestToolsTableFitsTerminal(t *testing.T) {
	var props, names []string
	for i := range 40 {
		props = append(props, fmt.Sprintf(`"argument_%02d":{"type":"string"}`, i))
		names = append(names, fmt.Sprintf("argument_%02d?", i))
	}
	desc := strings.Repeat("Creates an event in the calendar it is given. ", 3)
	srv := fakeServer(t, "calendar", func(r *http.Request, method, tool string) (string, string) {
		if method != "tools/list" {
			return "", ""
		}
		return `{"tools":[{"name":"create-event","description":"` + desc + `","inputSchema":{"type":"object","properties":{` + strings.Join(props, ",") + `}}},` +
			`{"name":"ping","description":"Pings.","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]}`, ""
	})
	t.Setenv("COLUMNS", "60")
	code, out, errOut := runTerminal(t, "tools", "--url", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want a header, a blank line and three table lines:\n%s", out)
	}
	for _, l := range lines[2:] {
		if n := utf8.RuneCountInString(l); n > 60 {
			t.Errorf("a line of %d columns on a terminal of 60: %q", n, l)
		}
	}
	if f := strings.Fields(lines[3]); f[0] != "create-event" || !strings.HasPrefix(f[1], "argument_00?,") || !strings.Contains(lines[3], "…  ") || !strings.HasSuffix(lines[3], "…") {
		t.Errorf("the long row is not cut with an ellipsis in both cells: %q", lines[3])
	}
	if !strings.HasPrefix(lines[4], "ping") || !strings.Contains(lines[4], "n  ") || !strings.HasSuffix(lines[4], "Pings.") {
		t.Errorf("the short row is not whole: %q", lines[4])
	}

	code, out, errOut = run(t, "", "tools", "--url", srv.URL)
	if code != 0 || !strings.Contains(out, strings.Join(names, ", ")) {
		t.Errorf("piped output is cut: exit %d, %s%s", code, out, errOut)
	}
}
