package config

import (
	"strings"
	"testing"
)

// TestParseSharedOut checks that two servers cannot generate into one
// directory: the files of each package have the same names, so generating
// the second would replace the first package without a word.
func TestParseSharedOut(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"same path", "servers:\n  a:\n    snapshot: a.json\n    out: gen\n  b:\n    snapshot: b.json\n    out: gen\n"},
		{"same directory spelled differently", "servers:\n  a:\n    snapshot: a.json\n    out: gen\n  b:\n    snapshot: b.json\n    out: ./x/../gen/\n    package: gen\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("mcpgen.yaml", []byte(tc.text))
			want := "mcpgen.yaml:5: server b: out"
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "server a") {
				t.Errorf("error = %v, want one containing %q that names server a", err, want)
			}
		})
	}
}
