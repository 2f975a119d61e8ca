package mcpimpl

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestIntegerConstEnumBeyond2To53 checks that a const compares numbers
// exactly, as the JSON Schema validator does: a float64 cannot tell
// 9007199254740993 from 9007199254740992.
func TestIntegerConstEnumBeyond2To53(t *testing.T) {
	for _, tc := range []struct {
		data, want string
		match      bool
	}{
		{"9007199254740992", "9007199254740993", false},
		{"9007199254740993.0", "9007199254740993", true},
		{"9.007199254740993e15", "9007199254740993", true},
		{`{"n":9007199254740994}`, `{"n":9007199254740993}`, false},
		{`[9007199254740993]`, `[9007199254740993]`, true},
		{"3.0", "3", true},
		{"1e999999999", "1", false},
	} {
		if got := ConstMatches([]byte(tc.data), tc.want); got != tc.match {
			t.Errorf("ConstMatches(%s, %s) = %v, want %v", tc.data, tc.want, got, tc.match)
		}
	}
}

// TestCheckFormatRegexIsECMA checks that CheckFormat reads a "format":
// "regex" value as ECMA-262, as the raw schema layer does.
func TestCheckFormatRegexIsECMA(t *testing.T) {
	for _, tc := range []struct {
		re string
		ok bool
	}{
		{`(?<=a)b`, true},
		{`(x)\1`, true},
		{`(`, false},
	} {
		if got := CheckFormat("regex", tc.re); got != tc.ok {
			t.Errorf("CheckFormat(regex, %s) = %v, want %v", tc.re, got, tc.ok)
		}
	}
}

// TestMustCompilePatternECMA compiles a pattern only the ECMAScript engine
// reads, as generated validators do.
func TestMustCompilePatternECMA(t *testing.T) {
	p := MustCompilePattern(`^(?!tmp_)[a-z_]+$`)
	if !p.MatchString("seen") || p.MatchString("tmp_seen") {
		t.Errorf("%s matches wrongly", p)
	}
}

func TestWithinNameAndItemAgreeWithWithin(t *testing.T) {
	for _, tc := range []struct {
		got, want error
	}{
		{WithinName(Invalid("/x", "bad"), "a/b"), Within(Invalid("/x", "bad"), "a/b")},
		{WithinItem(Invalid("", "bad"), "list", 3), Within(Invalid("", "bad"), "list", 3)},
	} {
		if tc.got.Error() != tc.want.Error() {
			t.Errorf("got %v, want %v", tc.got, tc.want)
		}
	}
	plain := errors.New("plain")
	if WithinName(plain, "a") != plain || WithinItem(plain, "a", 1) != plain {
		t.Error("errors other than ValidationError must come back unchanged")
	}
}

func TestMatch(t *testing.T) {
	re := regexp.MustCompile(`^a+$`)
	if !Match(re, "aa") || Match(re, "ab") {
		t.Error("Match with a *regexp.Regexp")
	}
	p, err := runtime.CompilePattern(`^\p{L}+$`)
	if err != nil {
		t.Fatal(err)
	}
	if !Match(p, "é") || Match(p, "1") {
		t.Error("Match with a runtime.Pattern")
	}
}

// TestAsToolRenamesTheTool checks that AsTool names its tool in an error
// that names another, where ForTool keeps the first name, and passes nil
// and other errors through.
func TestAsToolRenamesTheTool(t *testing.T) {
	ve := &runtime.ValidationError{Tool: "a", Pointer: "/x"}
	if err := ForTool(ve, "b"); err.(*runtime.ValidationError).Tool != "a" {
		t.Errorf("ForTool renamed the tool to %q", ve.Tool)
	}
	if err := AsTool(ve, "b"); err != ve || ve.Tool != "b" || ve.Pointer != "/x" {
		t.Errorf("AsTool: %v, tool %q at %q, want the same error naming b at /x", err, ve.Tool, ve.Pointer)
	}
	if AsTool(nil, "b") != nil {
		t.Error("AsTool(nil) is not nil")
	}
	other := errors.New("other")
	if AsTool(other, "b") != other {
		t.Error("AsTool changed an error of another type")
	}
}

// TestForToolIsNotInlined checks that ForTool stays out of line. Generated
// packages call it at hundreds of sites (ms365: 790), nearly all on the
// path of an invalid value; inlined, its nil check and the inlining records
// at each site took about 9% of the package's compile CPU (see
// docs/performance.md, "Compile time, second round").
func TestForToolIsNotInlined(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "helpers.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "ForTool" || fn.Recv != nil {
			continue
		}
		if fn.Doc == nil || !strings.Contains(commentDirectives(fn.Doc), "//go:noinline\n") {
			t.Error("ForTool has no //go:noinline directive")
		}
		return
	}
	t.Fatal("helpers.go declares no ForTool")
}

// commentDirectives returns the directive lines of a doc comment, which
// ast.CommentGroup.Text leaves out.
func commentDirectives(g *ast.CommentGroup) string {
	var b strings.Builder
	for _, c := range g.List {
		if strings.HasPrefix(c.Text, "//go:") {
			b.WriteString(c.Text + "\n")
		}
	}
	return b.String()
}
