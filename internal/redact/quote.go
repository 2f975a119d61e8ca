package redact

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxQuoted is how many bytes of a peer's text Quote shows, counted in the
// quoted form, escapes included.
const MaxQuoted = 200

// Quote returns text that a peer sent (a server, a model's API) as an error
// message or a log line quotes it. It is the one form in which such text
// enters an error string: in Go's double-quoted form, as strconv.Quote
// writes it, so that control characters, terminal escape sequences, line
// breaks, bidirectional overrides and bytes that are not UTF-8 show as
// escapes and act on nothing; and cut, at a character's end, once the
// quoted form reaches MaxQuoted bytes, with the number of bytes of text
// left out: "abc" (and 1048373 more bytes). Quote redacts nothing: the
// caller that knows the connection's credentials removes them first (see
// Set.Quote), since a secret cut in two is no longer matched.
func Quote(text string) string {
	var b strings.Builder
	b.WriteByte('"')
	var q []byte // one character, quoted
	i := 0
	for i < len(text) {
		_, size := utf8.DecodeRuneInString(text[i:])
		q = strconv.AppendQuote(q[:0], text[i:i+size])
		if b.Len()-1+len(q)-2 > MaxQuoted {
			break
		}
		b.Write(q[1 : len(q)-1])
		i += size
	}
	b.WriteByte('"')
	if i < len(text) {
		b.WriteString(" (and ")
		b.WriteString(strconv.Itoa(len(text) - i))
		b.WriteString(" more bytes)")
	}
	return b.String()
}

// Quote returns text with every occurrence of a secret replaced by Mark,
// then quoted and cut as the function Quote does.
func (s *Set) Quote(text string) string {
	return Quote(s.String(text))
}
