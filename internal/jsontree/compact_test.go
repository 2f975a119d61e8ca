package jsontree

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestAppendCompactMatchesJSONCompact checks AppendCompact against
// json.Compact on valid JSON: whitespace of every kind between tokens, and
// strings that hold whitespace, escaped quotes and backslashes; and that it
// writes into dst, not into its input.
func TestAppendCompactMatchesJSONCompact(t *testing.T) {
	cases := []string{
		``, `{}`, ` { "a" : 1 } `, "{\n\t\"a b\": [1, 2,\r\n 3],\n  \"c\": \"x \\\" y\"\n}",
		`["\\", " ", "\\\\\" ]"]`, `{"k":"tab\tin"}`, `  "only a string"  `, `[ true , false , null ]`,
		"{\"emoji\": \"\U0001F600 \\u00e9\", \"n\": -1.5e+3 }",
	}
	data, err := os.ReadFile("../../testdata/servers/ms365.json")
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, string(data))
	for _, s := range cases {
		var want bytes.Buffer
		if s != "" {
			if err := json.Compact(&want, []byte(s)); err != nil {
				t.Fatalf("json.Compact(%.80q): %v", s, err)
			}
		}
		raw := []byte(s)
		got := AppendCompact(make([]byte, 0, len(raw)), raw)
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("AppendCompact(%.80q) = %.80q, want %.80q", s, got, want.String())
		}
		if len(got) > 0 && &got[0] == &raw[0] {
			t.Errorf("AppendCompact(%.80q) returned its input, not a copy", s)
		}
	}
}
