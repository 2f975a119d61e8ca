package emit

import (
	"bytes"
	"strings"
)

// A stmt is a statement of a generated function body, held as the text
// gofmt prints for it: a simple statement, or a head such as "if x > 1"
// followed by a block. Files made of such statements (validate.go) are
// written in gofmt's form directly, without a syntax tree or a formatting
// pass; TestGeneratedCodeIsGofmtOutput checks that they are gofmt's output.
type stmt struct {
	head   string
	body   []stmt
	block  bool
	clause bool
}

// simple is a statement without a block.
func simple(text string) stmt { return stmt{head: text} }

// block is head followed by a block of body.
func block(head string, body ...stmt) stmt { return stmt{head: head, body: body, block: true} }

// caseClause is a statement of a switch's block that starts a clause, such
// as `case "a", "b":`; gofmt writes it one level out from the statements of
// its clause, which follow it in the same block.
func caseClause(text string) stmt { return stmt{head: text, clause: true} }

// writeStmts writes ss, each on lines of its own, indented by depth tabs.
func writeStmts(b *bytes.Buffer, depth int, ss []stmt) {
	for _, s := range ss {
		if s.clause {
			writeTabs(b, depth-1)
			b.WriteString(s.head)
			b.WriteByte('\n')
			continue
		}
		writeTabs(b, depth)
		b.WriteString(s.head)
		if !s.block {
			b.WriteByte('\n')
			continue
		}
		b.WriteString(" {\n")
		writeStmts(b, depth+1, s.body)
		writeTabs(b, depth)
		b.WriteString("}\n")
	}
}

func writeTabs(b *bytes.Buffer, n int) {
	for range n {
		b.WriteByte('\t')
	}
}

// writeDoc writes paragraphs as // comment lines, as comment does.
func writeDoc(b *bytes.Buffer, paragraphs ...string) { writeComment(b, "", paragraphs) }

// writeComment writes paragraphs as // comment lines after indent, an
// empty comment line between two paragraphs.
func writeComment(b *bytes.Buffer, indent string, paragraphs []string) {
	first := true
	for _, p := range paragraphs {
		lines := commentLines(p)
		if len(lines) == 0 {
			continue
		}
		if !first {
			b.WriteString(indent + "//\n")
		}
		first = false
		for _, l := range lines {
			b.WriteString(indent)
			if l == "" {
				b.WriteString("//\n")
				continue
			}
			b.WriteString("// ")
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
}

// A funcDecl is a top-level function or method, written in gofmt's form.
type funcDecl struct {
	doc  []string // paragraphs of the doc comment
	sig  string   // what follows "func ", up to the opening brace
	body []stmt
	text string // the body as written, when set instead of body
}

// srcFile collects the declarations of a file written in gofmt's form,
// with the blank lines gofmt keeps between them.
type srcFile struct {
	b    bytes.Buffer
	prev string // the keyword of the previous declaration
}

// decl starts a top-level declaration with keyword kw: gofmt puts a blank
// line before a declaration with a doc comment or whose keyword differs
// from the one before; jennifer's output, which the rest of the package
// is formatted from, has none otherwise.
func (s *srcFile) decl(kw string, hasDoc bool) {
	if s.prev != "" && (hasDoc || kw != s.prev) {
		s.b.WriteByte('\n')
	}
	s.prev = kw
}

// fn writes a function declaration.
func (s *srcFile) fn(d funcDecl) {
	s.decl("func", len(d.doc) > 0)
	writeDoc(&s.b, d.doc...)
	s.b.WriteString("func ")
	s.b.WriteString(d.sig)
	s.b.WriteString(" {\n")
	if d.text != "" {
		s.b.WriteString(d.text)
	} else {
		writeStmts(&s.b, 1, d.body)
	}
	s.b.WriteString("}\n")
}

// header returns the start of a generated file of package pkg that
// imports paths, sorted, as gofmt with goimports' grouping has it: the
// standard library first, then a blank line, then the others.
func header(pkg string, paths []string) []byte {
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString("\n\npackage ")
	b.WriteString(pkg)
	b.WriteString("\n")
	switch len(paths) {
	case 0:
		return b.Bytes()
	case 1:
		b.WriteString("\nimport \"")
		b.WriteString(paths[0])
		b.WriteString("\"\n")
		return b.Bytes()
	}
	b.WriteString("\nimport (\n")
	std := true
	for i, p := range paths {
		isStd := !strings.Contains(strings.SplitN(p, "/", 2)[0], ".")
		if i > 0 && std && !isStd {
			b.WriteByte('\n')
		}
		std = isStd
		b.WriteString("\t\"")
		b.WriteString(p)
		b.WriteString("\"\n")
	}
	b.WriteString(")\n")
	return b.Bytes()
}
