package emit

import (
	"strings"
	"testing"
)

func TestCommentLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"plain", []string{"plain"}},
		{"a\nb\r\nc\rd\u2028e\u2029f\u0085g", []string{"a", "b", "c", "d", "e", "f", "g"}},
		{"\n\nx\n\n\n\ny\n\n", []string{"x", "", "y"}},
		{"ends */ here /* again", []string{"ends */ here /* again"}},
		{"nul\x00 esc\x1b bidi\u202e bom\ufeff", []string{"nul\uFFFD esc\uFFFD bidi\uFFFD bom\uFFFD"}},
		{"bad \xff utf8", []string{"bad \uFFFD utf8"}},
		{"tab\there  ", []string{"tab    here"}},
	} {
		got := commentLines(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("commentLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
