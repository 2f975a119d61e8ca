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
	// A line is text[start:i] when nothing in it was replaced; cur holds
	// the part before start of a line that needed a replacement.
	var cur strings.Builder
	start := 0
	flush := func(end int) {
		l := text[start:end]
		if cur.Len() > 0 {
			cur.WriteString(l)
			l = cur.String()
			cur.Reset()
		}
		lines = append(lines, strings.TrimRightFunc(l, unicode.IsSpace))
	}
	replace := func(i int, with string) {
		cur.WriteString(text[start:i])
		cur.WriteString(with)
	}
	for i := 0; i < len(text); {
		if c := text[i]; c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n', r == '\u2028', r == '\u2029', r == '\u0085', r == '\f', r == '\v':
			flush(i)
		case r == '\r':
			flush(i)
			if i+n < len(text) && text[i+n] == '\n' {
				n++
			}
		case r == '\t':
			replace(i, "    ")
		case r == utf8.RuneError && n <= 1, r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0,
			r == '\uFEFF', r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069',
			r == '\u200E', r == '\u200F', r == '\u061C':
			replace(i, "\uFFFD")
		default:
			// Kept as it is.
			i += n
			continue
		}
		i += n
		start = i
	}
	flush(len(text))
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
	lines = noHeadings(lines)
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

// noHeadings rewrites the lines of a doc comment so that go/doc/comment,
// which gofmt and go doc read them with, finds no section heading in them:
// headings are for the structure of Go documentation, and text from a
// server placed between the generator's own paragraphs would otherwise
// become one. A line on its own between blank lines that starts with an
// upper-case letter and ends with a letter or digit (an implicit heading)
// gets a final period, which makes it the sentence it is; a line on its own
// that starts with "# " (a Markdown heading) is indented, so it is shown as
// written, as a code block.
func noHeadings(lines []string) []string {
	var out []string
	for i, l := range lines {
		alone := l != "" && !indented(l) &&
			(i == 0 || lines[i-1] == "" || indented(lines[i-1])) &&
			(i+1 == len(lines) || lines[i+1] == "" || indented(lines[i+1]))
		switch {
		case !alone:
		case len(l) >= 2 && l[0] == '#' && (l[1] == ' ' || l[1] == '\t') && strings.TrimSpace(l) != "#":
			l = "\t" + l
		case i > 0 && lines[i-1] == "" && i+2 < len(lines) && lines[i+1] == "" && !indented(lines[i+2]) && oldHeading(l):
			l += "."
		}
		if l != lines[i] && out == nil {
			out = append([]string(nil), lines[:i]...)
		}
		if out != nil {
			out = append(out, l)
		}
	}
	if out == nil {
		return lines
	}
	return out
}

// indented reports whether a comment line starts with a space or a tab.
func indented(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }

// oldHeading reports whether go/doc/comment reads line, alone between blank
// lines and followed by more text, as an implicit heading: it starts with
// an upper-case letter, ends with a letter or a digit, and has no
// punctuation but parentheses, commas, "'s" and dots inside words.
func oldHeading(line string) bool {
	line = strings.TrimSpace(line)
	r, _ := utf8.DecodeRuneInString(line)
	if !unicode.IsLetter(r) || !unicode.IsUpper(r) {
		return false
	}
	r, _ = utf8.DecodeLastRuneInString(line)
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return false
	}
	if strings.ContainsAny(line, ";:!?+*/=[]{}_^°&§~%#@<\">\\") {
		return false
	}
	for b := line; ; {
		var ok bool
		if _, b, ok = strings.Cut(b, "'"); !ok {
			break
		}
		if b != "s" && !strings.HasPrefix(b, "s ") {
			return false
		}
	}
	for b := line; ; {
		var ok bool
		if _, b, ok = strings.Cut(b, "."); !ok {
			break
		}
		if b == "" || strings.HasPrefix(b, " ") {
			return false
		}
	}
	return true
}

// oneLine flattens text for use inside a single comment line.
func oneLine(text string) string {
	return strings.Join(strings.Fields(strings.Join(commentLines(text), " ")), " ")
}
