package emit

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestCompactMatchesJSONCompact checks compact against json.Compact on
// valid JSON: whitespace of every kind between tokens, and strings that
// hold whitespace, escaped quotes and backslashes.
func TestCompactMatchesJSONCompact(t *testing.T) {
	cases := []string{
		``, `{}`, ` { "a" : 1 } `, "{\n\t\"a b\": [1, 2,\r\n 3],\n  \"c\": \"x \\\" y\"\n}",
		`["\\", " ", "\\\\\" ]"]`, `{"k":"tab\tin"}`, `  "only a string"  `, `[ true , false , null ]`,
		"{\"emoji\": \"\U0001F600 \\u00e9\", \"n\": -1.5e+3 }",
	}
	data, err := os.ReadFile("../../../testdata/servers/ms365.json")
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, string(data))
	for _, s := range cases {
		var want bytes.Buffer
		if s != "" {
			if err := json.Compact(&want, []byte(s)); err != nil {
				t.Fatalf("json.Compact(%q): %v", s, err)
			}
		}
		if got := compact([]byte(s)); got != want.String() {
			t.Errorf("compact(%.80q) = %.80q, want %.80q", s, got, want.String())
		}
	}
}
