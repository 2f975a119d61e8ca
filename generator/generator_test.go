package generator

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
	"testing"
)

// TestHostileTextStaysInCommentsAndStrings checks that text from hostile
// descriptions, titles and names appears only inside comments and string
// literals of the generated code.
func TestHostileTextStaysInCommentsAndStrings(t *testing.T) {
	// The golden case testdata/golden/hostile pins the same output.
	files, err := Generate(Config{Snapshot: "../testdata/golden/hostile/snapshot.json", Options: Options{Package: "hostile"}})
	if err != nil {
		t.Fatal(err)
	}
	seenInComment, seenInString := false, false
	for _, f := range goFiles(t, files) {
		fset := token.NewFileSet()
		parsed, err := parser.ParseFile(fset, f.Name, f.Data, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s does not parse: %v", f.Name, err)
		}
		for _, d := range parsed.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && strings.HasPrefix(fd.Name.Name, "Evil") {
				t.Errorf("%s declares %s, taken from a description", f.Name, fd.Name.Name)
			}
		}
		if parsed.Name.Name != "hostile" {
			t.Errorf("%s has package %s", f.Name, parsed.Name.Name)
		}
		var s scanner.Scanner
		file := fset.AddFile(f.Name, fset.Base(), len(f.Data))
		s.Init(file, f.Data, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, scanner.ScanComments)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			switch tok {
			case token.COMMENT:
				if strings.Contains(lit, "EVILMARK") {
					seenInComment = true
				}
				if strings.ContainsAny(lit, "\u2028\u2029\r\x00\u202e\ufeff") {
					t.Errorf("%s: comment holds a line separator or control character: %q", fset.Position(pos), lit)
				}
				if strings.HasPrefix(lit, "/*") {
					t.Errorf("%s: block comment %q", fset.Position(pos), lit)
				}
			case token.STRING, token.CHAR:
				if strings.Contains(lit, "EVILMARK") {
					seenInString = true
				}
			default:
				if strings.Contains(lit, "EVILMARK") || strings.Contains(lit, "Evil") {
					t.Errorf("%s: %s token %q carries hostile text", fset.Position(pos), tok, lit)
				}
			}
		}
	}
	// The tools as the server sent them are data, in tools.jsonl, which
	// Go reads with go:embed and never compiles.
	seenInData := false
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".jsonl") && strings.Contains(string(f.Data), "EVILMARK") {
			seenInData = true
		}
	}
	if !seenInComment || !seenInString && !seenInData {
		t.Errorf("the hostile text was not found (in comments: %v, in strings: %v, in data files: %v): the test checks nothing", seenInComment, seenInString, seenInData)
	}
}
