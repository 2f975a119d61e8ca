package emit

import (
	"bytes"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"runtime"
	"sync"
)

// batchSize is how many bytes of unformatted source one formatting task
// takes at least: enough declarations to amortize a parse, few enough that
// the tasks of a large file spread over the CPUs.
const batchSize = 64 << 10

// formatter builds and formats the files of one package, running at most
// GOMAXPROCS builds and formatting tasks at a time.
type formatter struct {
	slots chan struct{}
}

func newFormatter() *formatter {
	return &formatter{slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// inPieces is false only in tests, to compare with the whole file
// formatted at once.
var inPieces = true

// batchPrefix makes a run of declarations a file of its own.
const batchPrefix = "package p\n\n"

// format formats src, the unformatted source of the file name, exactly as
// gofmt (with the imports grouped as goimports does), and lists what it
// declares at package level (see declared).
//
// The file is cut before top-level declarations where gofmt puts one blank
// line (see topLevel); nothing aligns across a blank line, so runs of
// declarations between cuts are parsed and printed on their own, in
// parallel, and concatenated, one blank line apart. That parses the file
// once and never holds the syntax tree of the whole file. Should a run not
// parse on its own, the whole file is formatted at once instead, which also
// reports any syntax error with the file's own line numbers.
func (fm *formatter) format(name string, src []byte) ([]byte, []string, error) {
	stripped, cuts, ok := topLevel(src)
	if !ok {
		return fm.formatWhole(name, src)
	}
	src = stripped
	if !inPieces {
		return fm.formatWhole(name, src)
	}
	var batches [][]byte
	for i := 0; i < len(cuts); {
		start := cuts[i]
		for i++; i < len(cuts) && cuts[i]-start < batchSize; i++ {
		}
		end := len(src)
		if i < len(cuts) {
			end = cuts[i]
		}
		batches = append(batches, src[start:end])
	}
	type result struct {
		out   []byte
		names []string
		err   error
	}
	results := make([]result, len(batches)+1)
	var wg sync.WaitGroup
	run := func(i int, f func() ([]byte, []string, error)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fm.slots <- struct{}{}
			defer func() { <-fm.slots }()
			r := &results[i]
			r.out, r.names, r.err = f()
		}()
	}
	run(0, func() ([]byte, []string, error) {
		out, err := format.Source(groupImports(src[:cuts[0]]))
		return out, nil, err
	})
	for i, b := range batches {
		run(i+1, func() ([]byte, []string, error) { return formatBatch(b) })
	}
	wg.Wait()
	size := 0
	for _, r := range results {
		if r.err != nil {
			return fm.formatWhole(name, src)
		}
		size += len(r.out) + 1
	}
	out := make([]byte, 0, size)
	var names []string
	for i, r := range results {
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, r.out...)
		names = append(names, r.names...)
	}
	return out, names, nil
}

// formatWhole formats src in one piece.
func (fm *formatter) formatWhole(name string, src []byte) ([]byte, []string, error) {
	fm.slots <- struct{}{}
	defer func() { <-fm.slots }()
	src = groupImports(src)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, fmt.Errorf("formatting %s: %w", name, err)
	}
	var buf bytes.Buffer
	buf.Grow(len(src) + len(src)/4)
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, nil, fmt.Errorf("formatting %s: %w", name, err)
	}
	return buf.Bytes(), declared(f), nil
}

// formatBatch formats a run of top-level declarations, without a package
// clause, and lists what they declare.
func formatBatch(decls []byte) ([]byte, []string, error) {
	src := make([]byte, 0, len(batchPrefix)+len(decls))
	src = append(append(src, batchPrefix...), decls...)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	if len(f.Imports) > 0 {
		return nil, nil, fmt.Errorf("imports after the first declaration")
	}
	var buf bytes.Buffer
	buf.Grow(len(src) + len(src)/4)
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, nil, err
	}
	out, ok := bytes.CutPrefix(buf.Bytes(), []byte(batchPrefix))
	if !ok {
		return nil, nil, fmt.Errorf("formatted declarations do not follow the package clause")
	}
	return out, declared(f), nil
}

// topLevel prepares src, a Go file as jennifer writes it, for formatting
// in pieces. It returns src with the spaces that start lines outside any
// bracket, string or comment removed, so that a comment ending right
// before a declaration is its doc comment to go/printer, as it is in the
// formatted file, and cuts: offsets in that text where a top-level
// declaration, with its doc comment, starts, and where gofmt puts exactly
// one blank line before it: the declaration has a doc comment, its keyword
// differs from the previous declaration's, or a blank line precedes it. The
// first cut ends the header, the package clause and imports. ok is false
// when src does not have that shape.
func topLevel(src []byte) (out []byte, cuts []int, ok bool) {
	out = make([]byte, 0, len(src))
	depth := 0
	prev := ""      // keyword of the previous top-level declaration
	doc := -1       // offset in out of the comment lines right before this line, or -1
	blank := false  // a blank line came since the previous declaration
	header := false // the package clause was seen and no declaration after it yet
	from := 0       // src[from:i] is still to be copied to out
	for i := 0; i < len(src); i++ {
		c := src[i]
		if depth == 0 && (i == 0 || src[i-1] == '\n') {
			// The start of a top-level line: drop its leading spaces.
			out = append(out, src[from:i]...)
			for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
				i++
			}
			from = i
			if i == len(src) {
				break
			}
			c = src[i]
			line := src[i:]
			switch kw := keyword(line); {
			case c == '\n' || c == '\r':
				blank, doc = true, -1
			case bytes.HasPrefix(line, []byte("//")) || bytes.HasPrefix(line, []byte("/*")):
				if doc < 0 {
					doc = len(out)
				}
			case kw == "package":
				header, prev, doc = true, kw, -1
			case kw != "":
				at := len(out)
				if doc >= 0 {
					at = doc
				}
				switch {
				case header && kw != "import":
					if len(cuts) > 0 {
						return nil, nil, false
					}
					cuts = append(cuts, at)
					header = false
				case kw == "import" || kw == "package":
				case doc >= 0 || kw != prev || blank:
					cuts = append(cuts, at)
				}
				prev, doc, blank = kw, -1, false
			default:
				doc = -1
			}
		}
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth < 0 {
				return nil, nil, false
			}
		case '"', '\'':
			j := i + 1
			for ; j < len(src) && src[j] != c; j++ {
				switch src[j] {
				case '\\':
					j++
				case '\n':
					return nil, nil, false
				}
			}
			if j >= len(src) {
				return nil, nil, false
			}
			i = j
		case '`':
			j := bytes.IndexByte(src[i+1:], '`')
			if j < 0 {
				return nil, nil, false
			}
			i += j + 1
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				j := bytes.IndexByte(src[i:], '\n')
				if j < 0 {
					j = len(src) - i
				}
				i += j - 1
			} else if i+1 < len(src) && src[i+1] == '*' {
				j := bytes.Index(src[i+2:], []byte("*/"))
				if j < 0 {
					return nil, nil, false
				}
				i += j + 3
			}
		}
	}
	out = append(out, src[from:]...)
	if depth != 0 || len(cuts) == 0 {
		return nil, nil, false
	}
	return out, cuts, true
}

// keyword returns the keyword that starts line if it starts a top-level
// declaration or the package clause, and "" otherwise.
func keyword(line []byte) string {
	for _, kw := range [...]string{"func", "type", "var", "const", "import", "package"} {
		if len(line) > len(kw) && string(line[:len(kw)]) == kw {
			switch line[len(kw)] {
			case ' ', '\t', '(', '\n', '\r':
				return kw
			}
		}
	}
	return ""
}
