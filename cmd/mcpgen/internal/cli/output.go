package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"unicode/utf8"
)

// An outStream is standard output or standard error: everything mcpgen
// prints passes through one. It holds text back until a line is complete,
// then replaces the credentials of the servers in use by [REDACTED] and
// writes the line. Text written through its visible side has the
// characters that could drive a terminal shown as escapes (see
// appendVisible); text written through its exact side keeps them.
type outStream struct {
	mu      sync.Mutex
	w       io.Writer
	secrets *secrets
	line    []byte // the unfinished last line
	partial []byte // the start of a character cut by the end of a write
	err     error
}

// streamSide is one side of an outStream, an io.Writer.
type streamSide struct {
	s     *outStream
	exact bool
}

func (w streamSide) Write(p []byte) (int, error) { return w.s.write(p, w.exact) }

// visible returns the writer that shows control characters as escapes.
func (s *outStream) visible() io.Writer { return streamSide{s: s} }

// exact returns the writer that keeps text as it is, secrets aside.
func (s *outStream) exact() io.Writer { return streamSide{s: s, exact: true} }

func (s *outStream) write(p []byte, exact bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if exact {
		s.line = appendVisible(s.line, s.partial)
		s.partial = s.partial[:0]
		s.line = append(s.line, p...)
	} else {
		data := p
		if len(s.partial) > 0 {
			data = append(s.partial, p...)
		}
		cut := len(data) - cutRune(data)
		s.line = appendVisible(s.line, data[:cut])
		s.partial = append(s.partial[:0], data[cut:]...)
	}
	if i := bytes.LastIndexByte(s.line, '\n'); i >= 0 {
		s.emit(s.line[:i+1])
		s.line = s.line[:copy(s.line, s.line[i+1:])]
	}
	return len(p), s.err
}

// flush writes what is held back.
func (s *outStream) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.line = appendVisible(s.line, s.partial)
	s.partial = s.partial[:0]
	if len(s.line) > 0 && s.err == nil {
		s.emit(s.line)
	}
	s.line = s.line[:0]
	return s.err
}

func (s *outStream) emit(b []byte) {
	_, s.err = s.w.Write(s.secrets.redact(b))
}

// cutRune returns the length of the incomplete UTF-8 sequence that ends p,
// if any, so that a character split between two writes is judged whole.
func cutRune(p []byte) int {
	for n := 1; n <= utf8.UTFMax-1 && n <= len(p); n++ {
		if c := p[len(p)-n]; utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && !utf8.FullRune(p[len(p)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}

// appendVisible appends p to dst with every character that could act on a
// terminal shown as a Go-style escape: the C0 controls but newline and tab
// (ESC, which starts the sequences that set a window title, write the
// clipboard or clear the screen, becomes \x1b; CR becomes \r), DEL, the C1
// controls (\u009b), the line and paragraph separators (\u2028, \u2029), the
// bidirectional overrides, embeddings and isolates that reorder what is
// shown (\u202e), and bytes that are not UTF-8 (\xff). Everything else,
// backslashes included, is kept.
func appendVisible(dst, p []byte) []byte {
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c >= 0x20 && c < 0x7f || c == '\n' || c == '\t':
			dst = append(dst, c)
			i++
			continue
		case c < utf8.RuneSelf:
			dst = appendControl(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = fmt.Appendf(dst, `\x%02x`, c)
		case dangerousRune(r):
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = append(dst, p[i:i+size]...)
		}
		i += size
	}
	return dst
}

func appendControl(dst []byte, c byte) []byte {
	switch c {
	case '\a':
		return append(dst, `\a`...)
	case '\b':
		return append(dst, `\b`...)
	case '\f':
		return append(dst, `\f`...)
	case '\r':
		return append(dst, `\r`...)
	case '\v':
		return append(dst, `\v`...)
	}
	return fmt.Appendf(dst, `\x%02x`, c)
}

// dangerousRune reports whether r, beyond ASCII, is a control character or
// changes the order or the lines in which text is shown.
func dangerousRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls: \u009b is CSI, \u009d OSC
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e: // bidi embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // bidi isolates
		return true
	}
	return false
}

// visibleCell returns s as appendVisible shows it, with newlines and tabs
// shown as escapes too, for a cell of a table: it is made visible before the
// table is laid out, so that the escapes count in the widths, and a name
// cannot start a row or a column of its own.
func visibleCell(s string) string {
	v := appendVisible(nil, []byte(s))
	if bytes.ContainsAny(v, "\n\t") {
		v = bytes.ReplaceAll(bytes.ReplaceAll(v, []byte("\n"), []byte(`\n`)), []byte("\t"), []byte(`\t`))
	}
	return string(v)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
