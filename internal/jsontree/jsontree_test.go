package jsontree

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) *Node {
	t.Helper()
	n, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse(%s): %v", s, err)
	}
	return n
}

func TestParseKeepsOrderAndLiterals(t *testing.T) {
	v := mustParse(t, `{"z":1.50,"a":[true,null,"x"],"m":{"b":{},"a":[]}}`)
	if got := v.String(); got != `{"z":1.50,"a":[true,null,"x"],"m":{"b":{},"a":[]}}` {
		t.Errorf("String() = %s", got)
	}
	if keys := v.Get("m").Keys(); len(keys) != 2 || keys[0] != "b" {
		t.Errorf("Keys() = %v", keys)
	}
	if got := v.Indent("", "  "); got != "{\n  \"z\": 1.50,\n  \"a\": [\n    true,\n    null,\n    \"x\"\n  ],\n  \"m\": {\n    \"b\": {},\n    \"a\": []\n  }\n}" {
		t.Errorf("Indent() = %s", got)
	}
}

func TestDuplicateJSONKeys(t *testing.T) {
	many := `{"type":"object","properties":{`
	for i := range 40 {
		many += `"p` + strconv.Itoa(i) + `":{},`
	}
	many += `"p7":{}}}`
	cases := []struct{ in, ptr, key string }{
		{` { "dup": 1, "k": 2, "dup": 3 } `, "/dup", "dup"},
		{`{"tools":[{"name":"a","name":"b"}]}`, "/tools/0/name", "name"},
		{`{"properties":{"x":{"type":"string"},"x":{"type":"integer"}}}`, "/properties/x", "x"},
		{`[1,[2,{"a":{"b":[{},{"c":1,"c":2}]}}]]`, "/1/1/a/b/1/c", "c"},
		{`{"a":1,"\u0061":2}`, "/a", "a"},
		{`{"a/b~":{"k":[],"k":{}}}`, "/a~1b~0/k", "k"},
		{"{\"\xff\":1,\"\xfe\":2}", "/\uFFFD", "\uFFFD"},
		{many, "/properties/p7", "p7"},
	}
	for _, tc := range cases {
		_, err := Parse([]byte(tc.in))
		var de *DuplicateKeyError
		if !errors.As(err, &de) || de.Pointer != tc.ptr || de.Key != tc.key {
			t.Errorf("Parse(%q) = %v, want a duplicate key %q at %s", tc.in, err, tc.key, tc.ptr)
			continue
		}
		if err := CheckUniqueKeys([]byte(tc.in)); err == nil || err.Error() != de.Error() {
			t.Errorf("CheckUniqueKeys(%q) = %v, want %v", tc.in, err, de)
		}
	}
	for _, in := range []string{
		`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`,
		`{"a":1,"A":2,"a ":3,"\\u0061":4}`,
		`{"x":"{\"x\":1,\"x\":2}"}`,
		`[{"k":1},{"k":2}]`,
		many[:len(many)-len(`"p7":{}}}`)] + `"p40":{}}}`,
		`{"a":1,"b"`, // malformed: left to the parser
	} {
		if err := CheckUniqueKeys([]byte(in)); err != nil {
			t.Errorf("CheckUniqueKeys(%q) = %v, want no duplicate", in, err)
		}
	}
	n := &Node{Kind: Object, Members: []Member{{"dup", &Node{Kind: Number, Str: "1"}}, {"k", &Node{Kind: Number, Str: "2"}}, {"dup", &Node{Kind: Number, Str: "3"}}}}
	if got := n.Get("dup").String(); got != "3" {
		t.Errorf("Get(dup) = %s, want the last value", got)
	}
	if keys := n.Keys(); strings.Join(keys, ",") != "dup,k" {
		t.Errorf("Keys() = %v", keys)
	}
}

func TestParseUnique(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"z":1,"a":{"y":[1,2.5e3,"x"],"b":null},"m":true}`, `{"z":1,"a":{"y":[1,2.5e3,"x"],"b":null},"m":true}`},
		{` { "dup": 1, "k": 2, "dup": 3 } `, `{"dup":3,"k":2}`},
		{`[{"a":{"x":1,"x":2},"a":{"y":3}}]`, `[{"a":{"y":3}}]`},
		{`"\u2028<>&"`, `"\u2028\u003c\u003e\u0026"`},
		{`[]`, `[]`},
		{`{}`, `{}`},
	}
	for _, c := range cases {
		n, err := ParseUnique([]byte(c.in))
		if err != nil {
			t.Fatalf("ParseUnique(%s): %v", c.in, err)
		}
		if got := n.String(); got != c.want {
			t.Errorf("ParseUnique(%s).String() = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	for _, in := range []string{``, `{`, `{"a":}`, `[1,]`, `{} {}`, strings.Repeat("[", MaxDepth+2), deep} {
		if _, err := ParseUnique([]byte(in)); err == nil {
			t.Errorf("ParseUnique(%.20q) succeeded", in)
		}
	}
	if _, err := Parse([]byte(deep)); err != nil {
		t.Errorf("Parse of %d nested arrays: %v", MaxDepth+2, err)
	}
}

func TestParseErrorsHaveLineAndColumn(t *testing.T) {
	for _, tc := range []struct {
		in        string
		line, col int
	}{
		{"{\n  \"a\": tru\n}", 2, 11},
		{"[1,\n2", 2, 2},
		{"{} x", 1, 4},
		{"", 1, 1},
	} {
		_, err := Parse([]byte(tc.in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line || se.Column != tc.col {
			t.Errorf("Parse(%q) = %v, want a syntax error at %d:%d", tc.in, err, tc.line, tc.col)
		}
	}
}

func TestLookup(t *testing.T) {
	v := mustParse(t, `{"$defs":{"a/b":{"x":1},"t~":[10,20]},"p":{"":2}}`)
	for ptr, want := range map[string]string{
		"":              v.String(),
		"/$defs/a~1b/x": "1",
		"/$defs/t~0/1":  "20",
		"/p/":           "2",
	} {
		got, err := v.Lookup(ptr)
		if err != nil || got.String() != want {
			t.Errorf("Lookup(%q) = %v, %v, want %s", ptr, got, err, want)
		}
	}
	for _, ptr := range []string{"/nope", "/$defs/t~0/2", "/$defs/t~0/01", "x", "/$defs/t~0/-1", "/$defs/t~0/+1"} {
		if got, err := v.Lookup(ptr); err == nil {
			t.Errorf("Lookup(%q) = %v, want an error", ptr, got)
		}
	}

	doc := mustParse(t, `{"$defs":{"a/b":{"x":1},"m~n":[10,20]},"properties":{"p q":{"anyOf":[{"type":"string"}]}}}`)
	cases := []struct{ ptr, want, err string }{
		{"#", doc.String(), ""},
		{"#/$defs/a~1b", `{"x":1}`, ""},
		{"#/$defs/m~0n/1", `20`, ""},
		{"#/properties/p%20q/anyOf/0", `{"type":"string"}`, ""},
		{"/properties/p q/anyOf/0/type", `"string"`, ""},
		{"#/$defs/missing", "", `"#/$defs/missing" does not resolve: no member "missing"`},
		{"#/$defs/m~0n/2", "", `"#/$defs/m~0n/2" does not resolve: no item "2"`},
		{"#/$defs/a~1b/x/y", "", `"#/$defs/a~1b/x/y" does not resolve: number has no member "y"`},
		{"#anchor", "", `"#anchor" is not a JSON pointer`},
	}
	for _, c := range cases {
		n, err := doc.Lookup(c.ptr)
		switch {
		case c.err != "":
			if err == nil || err.Error() != c.err {
				t.Errorf("Lookup(%q) error = %v, want %s", c.ptr, err, c.err)
			}
		case err != nil:
			t.Errorf("Lookup(%q): %v", c.ptr, err)
		case n.String() != c.want:
			t.Errorf("Lookup(%q) = %s, want %s", c.ptr, n.String(), c.want)
		}
	}
}

func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		eq   bool
	}{
		{`1`, `1.0`, true},
		{`{"a":1,"b":[2]}`, `{"b":[2],"a":1}`, true},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{`[1,2]`, `[2,1]`, false},
		{`"1"`, `1`, false},
		{`null`, `null`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1}`, `{"a":1,"b":1}`, false},
	} {
		if got := Equal(mustParse(t, tc.a), mustParse(t, tc.b)); got != tc.eq {
			t.Errorf("Equal(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

func TestNumbersBeyondFloat64(t *testing.T) {
	if _, err := Parse([]byte(`{"max":1e400}`)); err == nil {
		t.Error("Parse accepted 1e400")
	}
	a, err := ParseUnique([]byte(`{"max":1e400}`))
	if err != nil {
		t.Fatalf("ParseUnique(1e400): %v", err)
	}
	if got := a.String(); got != `{"max":1e400}` {
		t.Errorf("String() = %s, want the literal kept", got)
	}
	b, _ := ParseUnique([]byte(`{"max":2e400}`))
	if !Equal(a, a.Clone()) || Equal(a, b) {
		t.Errorf("Equal compares 1e400 and 2e400 by literal: got %v and %v", Equal(a, a.Clone()), Equal(a, b))
	}
}

func TestEditing(t *testing.T) {
	n := mustParse(t, `{"a":1,"b":2,"c":3}`)
	c := n.Clone()
	c.Delete("b")
	c.Set("a", &Node{Kind: String, Str: "x"})
	c.Set("d", &Node{Kind: Bool, Bool: true})
	if got := c.String(); got != `{"a":"x","c":3,"d":true}` {
		t.Errorf("edited = %s", got)
	}
	if got := n.String(); got != `{"a":1,"b":2,"c":3}` {
		t.Errorf("original changed: %s", got)
	}
	if got := n.Without("a", "c").String(); got != `{"b":2}` {
		t.Errorf("Without = %s", got)
	}
	if v, ok := n.Get("c").Int(); !ok || v != 3 {
		t.Errorf("Int = %d, %v", v, ok)
	}
	d := mustParse(t, `{"k":1,"x":2}`)
	d.Members = append(d.Members, Member{"k", &Node{Kind: Number, Str: "3"}})
	d.Delete("k")
	if got := d.String(); got != `{"x":2}` {
		t.Errorf("Delete of a repeated key = %s, want every member removed", got)
	}
}

// TestCanonical gives equal values one text and different values different
// ones, numbers compared by value and objects regardless of key order.
func TestCanonical(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`1`, `1.0`, true},
		{`1`, `10e-1`, true},
		{`0`, `-0.0`, true},
		{`1e999999999`, `1e999999999`, true},
		{`9007199254740993`, `9007199254740992`, false},
		{`-1`, `1`, false},
		{`{"a":1,"b":[2,"x"]}`, `{"b":[2.0,"x"],"a":1e0}`, true},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{`"1"`, `1`, false},
		{`[1,2]`, `[2,1]`, false},
		{`null`, `false`, false},
	} {
		a, err := ParseUnique([]byte(tc.a))
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseUnique([]byte(tc.b))
		if err != nil {
			t.Fatal(err)
		}
		if got := Canonical(a) == Canonical(b); got != tc.same || Equal(a, b) != tc.same {
			t.Errorf("%s and %s: same canonical text %v, Equal %v; want %v", tc.a, tc.b, got, Equal(a, b), tc.same)
		}
	}
}

// TestCheckUniqueKeysDoesNotAllocate checks the promise of its doc comment
// for a document without escapes in its keys: generated code checks every
// object it decodes, so a scratch list allocated on each call would cost
// every decoding.
func TestCheckUniqueKeysDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	data := []byte(`{"name":"Kitchen","area":{"floor":[1,2,{"room":3}]},"volume_level":50}`)
	if n := testing.AllocsPerRun(100, func() {
		if CheckUniqueKeys(data) != nil {
			t.Fatal("a duplicate in a document without one")
		}
	}); n != 0 {
		t.Errorf("CheckUniqueKeys allocates %v times per call, want 0", n)
	}
}
