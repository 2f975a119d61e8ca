package mcpimpl

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestExpandURI(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		vars []URIVar
		want string
	}{
		{"demo://r/{id}", []URIVar{{Name: "id", Value: "a b/c?", Required: true}}, "demo://r/a%20b%2Fc%3F"},
		{"file:///{+path}", []URIVar{{Name: "path", Value: "dir/a b", Required: true}}, "file:///dir/a%20b"},
		{"s://q{?query,page}", []URIVar{{Name: "query", Value: "x&y=z"}, {Name: "page"}}, "s://q?query=x%26y%3Dz"},
		{"s://q{?query,page}", []URIVar{{Name: "query"}, {Name: "page"}}, "s://q"},
		{"t://all{/tag*}", []URIVar{{Name: "tag", List: []string{"a", "b/c"}, IsList: true, Required: true}}, "t://all/a/b%2Fc"},
		{"u://h{?ids*}", []URIVar{{Name: "ids", List: []string{"1", "2"}, IsList: true}}, "u://h?ids=1&ids=2"},
		{"u://h/{ids}", []URIVar{{Name: "ids", List: []string{"1", "2"}, IsList: true, Required: true}}, "u://h/1,2"},
		{"u://h/{name}", []URIVar{{Name: "name", Value: "é", Required: true}}, "u://h/%C3%A9"},
		{"u://h/{name}", []URIVar{{Name: "name", Value: "\u012f", Required: true}}, "u://h/%C4%AF"},
		{"file:///{+path}", []URIVar{{Name: "path", Value: "a b/100%25/é", Required: true, Reserved: true}}, "file:///a%20b/100%25/%C3%A9"},
	} {
		got, err := ExpandURI("t", tc.tmpl, tc.vars)
		if err != nil || got != tc.want {
			t.Errorf("ExpandURI(%q) = %q, %v, want %q", tc.tmpl, got, err, tc.want)
		}
	}
	_, err := ExpandURI("user", "u://{id}", []URIVar{{Name: "id", Required: true}})
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) || ve.Pointer != "/id" || !strings.Contains(err.Error(), "resource template user") {
		t.Errorf("empty required variable: err = %v", err)
	}
	for _, v := range []string{"100% done", "a\x00b", "a<b", "\xff"} {
		_, err := ExpandURI("file", "file:///{+path}", []URIVar{{Name: "path", Value: v, Required: true, Reserved: true}})
		if !errors.As(err, &ve) || ve.Pointer != "/path" {
			t.Errorf("{+path} with %q: err = %v, want a validation error at /path", v, err)
		}
	}
	if _, err := ExpandURI("bad", "u://{id", nil); err == nil || !strings.Contains(err.Error(), `resource template "bad"`) {
		t.Errorf("malformed template: err = %v", err)
	}
}

// reserved are the reserved characters of RFC 3986: gen-delims and
// sub-delims.
const reserved = ":/?#[]@!$&'()*+,;="

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0
}

// checkEncoded reports the first character of e that is neither
// unreserved nor part of a percent-encoded triplet, or, when allowReserved,
// a reserved character either.
func checkEncoded(e string, allowReserved bool) (string, bool) {
	for i := 0; i < len(e); i++ {
		c := e[i]
		switch {
		case isUnreserved(c):
		case c == '%':
			if i+2 >= len(e) || !isHex(e[i+1]) || !isHex(e[i+2]) {
				return e[i:], false
			}
			i += 2
		case allowReserved && strings.IndexByte(reserved, c) >= 0:
		default:
			return e[i:], false
		}
	}
	return "", true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// FuzzExpandURI expands one variable, a string and an exploded list of
// strings, under every RFC 6570 operator, with hostile values. Outside the
// operators that allow them (+ and #), no reserved character of a value
// appears unescaped: the expansion is the operator's own structure around
// values that are unreserved characters and percent-encoded triplets only,
// which decode back to the values. Under + and #, what is not reserved is
// escaped all the same.
func FuzzExpandURI(f *testing.F) {
	for _, s := range []string{"a b", "../..", "?x=1&y=2#f", "%41%zz", "é\u202e\x00", "a,b;c=d", "{v}", "\xff\xfe", "[::1]:80@h", "+*'()!$"} {
		f.Add(s, "second/item")
	}
	ops := []string{"", "+", "#", ".", "/", ";", "?", "&"}
	f.Fuzz(func(t *testing.T, v, w string) {
		if v == "" || w == "" {
			return
		}
		for _, op := range ops {
			for _, list := range []bool{false, true} {
				reservedOp := op == "+" || op == "#"
				tmpl := "x://h/p{" + op + "v}"
				vars := []URIVar{{Name: "v", Value: v, Reserved: reservedOp}}
				items := []string{v}
				if list {
					tmpl = "x://h/p{" + op + "v*}"
					items = []string{v, w}
					vars = []URIVar{{Name: "v", List: items, IsList: true, Reserved: reservedOp}}
				}
				got, err := ExpandURI("fuzz", tmpl, vars)
				if err != nil {
					// Only values no URI can carry are refused.
					var ve *runtime.ValidationError
					if !errors.As(err, &ve) || !unwritable(items, reservedOp) {
						t.Fatalf("%s with %q: %v", tmpl, items, err)
					}
					continue
				}
				if unwritable(items, reservedOp) {
					t.Fatalf("%s with %q = %q: the value is not refused", tmpl, items, got)
				}
				rest, ok := strings.CutPrefix(got, "x://h/p")
				if !ok {
					t.Fatalf("%s with %q = %q: the literal prefix is gone", tmpl, items, got)
				}
				if op == "+" || op == "#" {
					rest = strings.TrimPrefix(rest, op)
					if bad, ok := checkEncoded(rest, true); !ok {
						t.Fatalf("%s with %q = %q: unescaped %q", tmpl, items, got, bad)
					}
					continue
				}
				checkStructured(t, tmpl, op, items, got, rest)
			}
		}
	})
}

// checkStructured parses the expansion rest of one variable "v" under op,
// a string or an exploded list of items, and checks that every value is
// unreserved characters and triplets that decode back to the item.
func checkStructured(t *testing.T, tmpl, op string, items []string, got, rest string) {
	t.Helper()
	first, sep, named := op, op, false
	switch op {
	case "":
		sep = ","
	case ";":
		named = true
	case "?":
		sep, named = "&", true
	case "&":
		named = true
	}
	rest, ok := strings.CutPrefix(rest, first)
	if !ok {
		t.Fatalf("%s with %q = %q: no leading %q", tmpl, items, got, first)
	}
	if op == "." {
		// Dots are unreserved: a value's own dots are written as they
		// are, so the items are compared joined.
		items, sep = []string{strings.Join(items, ".")}, "\x00"
	}
	parts := strings.Split(rest, sep)
	if len(parts) != len(items) {
		t.Fatalf("%s with %q = %q: %d parts, want %d: a value's separator is unescaped", tmpl, items, got, len(parts), len(items))
	}
	for i, p := range parts {
		if named {
			name, value, hasValue := strings.Cut(p, "=")
			if name != "v" || (!hasValue && op != ";") {
				t.Fatalf("%s with %q = %q: part %q is not v=VALUE", tmpl, items, got, p)
			}
			p = value
		}
		if bad, ok := checkEncoded(p, false); !ok {
			t.Fatalf("%s with %q = %q: unescaped %q", tmpl, items, got, bad)
		}
		dec, err := url.PathUnescape(p)
		if err != nil {
			t.Fatalf("%s with %q = %q: %v", tmpl, items, got, err)
		}
		if want := items[i]; utf8.ValidString(want) && dec != want {
			t.Fatalf("%s with %q = %q: part %d decodes to %q, want %q", tmpl, items, got, i, dec, want)
		}
	}
}

// unwritable reports whether ExpandURI must refuse items: one is not valid
// UTF-8, or, in a + or # expression, holds a character no URI may hold.
func unwritable(items []string, reservedOp bool) bool {
	for _, s := range items {
		if !utf8.ValidString(s) {
			return true
		}
		if reservedOp && (loneEscape(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || strings.ContainsRune(notInReserved, r) })) {
			return true
		}
	}
	return false
}

// loneEscape reports whether s holds a % that starts no %XX triplet.
func loneEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return true
		}
	}
	return false
}

// TestExpandURIPrefixCountsCharacters: a prefix modifier ({name:3}) keeps
// the value's first characters, as RFC 6570 counts them, not its first
// bytes: in a + or # expression a percent-encoded octet counts as one and
// is not split. Before, std-uritemplate counted bytes and stopped at the
// character that reached the count: "日本語です" became "日", and a cut
// through "%41" wrote "%25", a percent sign.
func TestExpandURIPrefixCountsCharacters(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		vars []URIVar
		want string
	}{
		{"u://h/{name:3}", []URIVar{{Name: "name", Value: "日本語です", Required: true}}, "u://h/%E6%97%A5%E6%9C%AC%E8%AA%9E"},
		{"u://h/{name:2}", []URIVar{{Name: "name", Value: "éé!", Required: true}}, "u://h/%C3%A9%C3%A9"},
		{"u://h/{name:3}", []URIVar{{Name: "name", Value: "abcdef", Required: true}}, "u://h/abc"},
		{"u://h/{name:9}", []URIVar{{Name: "name", Value: "ab", Required: true}}, "u://h/ab"},
		{"u://h/{name:1}/{name}", []URIVar{{Name: "name", Value: "éa", Required: true}}, "u://h/%C3%A9/%C3%A9a"},
		{"u://h{?q:2,r}", []URIVar{{Name: "q", Value: "日本語"}, {Name: "r", Value: "é"}}, "u://h?q=%E6%97%A5%E6%9C%AC&r=%C3%A9"},
		{"u://h{?q:2}", []URIVar{{Name: "q"}}, "u://h"},
		{"u://h/{+path:2}", []URIVar{{Name: "path", Value: "a%41b", Required: true, Reserved: true}}, "u://h/a%41"},
		{"u://h/{+path:3}", []URIVar{{Name: "path", Value: "é/ü/x", Required: true, Reserved: true}}, "u://h/%C3%A9/%C3%BC"},
		{"u://h{#f:1}", []URIVar{{Name: "f", Value: "日本", Reserved: true}}, "u://h#%E6%97%A5"},
		{"u://h/{name.p0}/{name:1}", []URIVar{{Name: "name.p0", Value: "x", Required: true}, {Name: "name", Value: "éé", Required: true}}, "u://h/x/%C3%A9"},
	} {
		got, err := ExpandURI("t", tc.tmpl, tc.vars)
		if err != nil || got != tc.want {
			t.Errorf("ExpandURI(%q, %+v) = %q, %v, want %q", tc.tmpl, tc.vars, got, err, tc.want)
		}
	}
}
