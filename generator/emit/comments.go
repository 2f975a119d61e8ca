package emit

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
)

// commentLines splits text from a schema into lines that are safe inside a
// // comment. Every character that ends a line anywhere (\n, \r, U+2028,
// U+2029, U+0085, form feeds) starts a new line; other control characters,
// bidirectional overrides, byte order marks and invalid UTF-8 become U+FFFD,
// since the Go compiler rejects some of them and readers would be misled by
// others. Blank lines at the ends are dropped and runs of blank lines
// collapse.
func commentLines(text string) []string {
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
	// Collapse blank runs and trim the ends.
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

// comment renders paragraphs as // comment lines. Paragraphs are separated
// by an empty comment line.
func comment(paragraphs ...string) jen.Code {
	var lines []string
	for _, p := range paragraphs {
		pl := commentLines(p)
		if len(pl) == 0 {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, pl...)
	}
	if len(lines) == 0 {
		return jen.Null()
	}
	s := jen.Null()
	for i, l := range lines {
		if i > 0 {
			s.Line()
		}
		// A leading "//" makes jennifer print the text as it is, so that
		// text starting with "/*" cannot open a block comment.
		if l == "" {
			s.Comment("//")
		} else {
			s.Comment("// " + l)
		}
	}
	return s.Line()
}

// oneLine flattens text for use inside a single comment line.
func oneLine(text string) string {
	return strings.Join(strings.Fields(strings.Join(commentLines(text), " ")), " ")
}
