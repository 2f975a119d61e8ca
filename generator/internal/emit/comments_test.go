package emit

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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

// commentLinesByRune is commentLines as it was first written, rune by rune
// into a builder: the reference the faster version must agree with.
func commentLinesByRune(text string) []string {
	var lines []string
	var cur strings.Builder
	flush := func() {
		lines = append(lines, strings.TrimRightFunc(cur.String(), unicode.IsSpace))
		cur.Reset()
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		switch {
		case r == '\n', r == '\u2028', r == '\u2029', r == '\u0085', r == '\f', r == '\v':
			flush()
		case r == '\r':
			if i < len(text) && text[i] == '\n' {
				i++
			}
			flush()
		case r == '\t':
			cur.WriteString("    ")
		case r == utf8.RuneError && n <= 1, r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0,
			r == '\uFEFF', r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069',
			r == '\u200E', r == '\u200F', r == '\u061C':
			cur.WriteRune('\uFFFD')
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	out := lines[:0]
	for _, l := range lines {
		if l == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// FuzzCommentLines holds commentLines, which copies runs of plain text as
// they are, to the rune-by-rune reference.
func FuzzCommentLines(f *testing.F) {
	for _, s := range []string{"", "plain", "a\r\nb\rc\n", "x\t\ty \xff\xfe z\u2028", "\r", "\r\r\n\n", "é\u202e\u0085\x7f\u00a0 ", "tail\t", "\ufffd\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := commentLines(s), commentLinesByRune(s); !slices.Equal(got, want) {
			t.Errorf("commentLines(%q) = %q, want %q", s, got, want)
		}
	})
}
