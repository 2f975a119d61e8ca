package emit

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"
)

// A stringArray is a package-level array of string literals, one a line,
// such as the tools' JSON texts. Such arrays are most of the bytes of a
// large package and have one gofmt form, so the generator writes them
// that way itself, after the formatted rest of the file, instead of
// parsing and printing megabytes of literals. TestGeneratedCodeIsGofmtOutput
// checks that the result is gofmt's output.
type stringArray struct {
	doc   string // one line, without the leading "// "
	name  string
	elems []string
}

// render writes the declaration as gofmt does, after a blank line.
func (a stringArray) render(b *bytes.Buffer) {
	b.WriteString("\n// ")
	b.WriteString(a.doc)
	b.WriteString("\nvar ")
	b.WriteString(a.name)
	if len(a.elems) == 0 {
		b.WriteString(" = [...]string{}\n")
		return
	}
	b.WriteString(" = [...]string{\n")
	for _, e := range a.elems {
		b.WriteByte('\t')
		writeStringLit(b, e)
		b.WriteString(",\n")
	}
	b.WriteString("}\n")
}

// writeStringLit writes s as a raw string literal, which a reader sees as
// the text itself, or as an interpreted one when s holds what a raw
// literal cannot: a backquote, a carriage return (which the compiler drops
// from raw literals), a NUL or byte order mark, or invalid UTF-8.
func writeStringLit(b *bytes.Buffer, s string) {
	if !rawLiteral(s) {
		b.WriteString(strconv.Quote(s))
		return
	}
	b.WriteByte('`')
	b.WriteString(s)
	b.WriteByte('`')
}

// rawLiteral reports whether s can be written as a raw string literal: it
// is valid UTF-8 and holds no backquote, carriage return, NUL or byte order
// mark. It reads s once; the texts are megabytes.
func rawLiteral(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '`' || c == '\r' || c == 0 {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\ufeff' {
			return false
		}
		i += size
	}
	return true
}

// addArray records a for the end of the file being built.
func (g *gen) addArray(file string, a stringArray) {
	g.arrays[file] = append(g.arrays[file], a)
}

// takeArrays returns and forgets the arrays recorded for file.
func (g *gen) takeArrays(file string) []stringArray {
	arrays := g.arrays[file]
	delete(g.arrays, file)
	return arrays
}

// appendArrays renders arrays after data, and appends their names to
// names. The arrays are most of a large file's bytes: the file is grown
// once to its size, rather than a buffer doubled a dozen times and then
// copied after data.
func appendArrays(data []byte, names []string, arrays []stringArray) ([]byte, []string) {
	n := 0
	for _, a := range arrays {
		n += len(a.doc) + len(a.name) + 32
		for _, e := range a.elems {
			n += len(e) + 5
			if !rawLiteral(e) {
				// Quoted, as the Gemini declarations whose descriptions
				// quote code in backquotes are: a JSON text's quotes and
				// backslashes double.
				n += len(e)
			}
		}
	}
	b := bytes.NewBuffer(slices.Grow(data, n))
	for _, a := range arrays {
		a.render(b)
		names = append(names, a.name)
	}
	return b.Bytes(), names
}
