package jsontree

import (
	"strings"
	"testing"
)

func TestParseKeepsOrder(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"z":1,"a":{"y":[1,2.5e3,"x"],"b":null},"m":true}`, `{"z":1,"a":{"y":[1,2.5e3,"x"],"b":null},"m":true}`},
		{` { "dup": 1, "k": 2, "dup": 3 } `, `{"dup":3,"k":2}`},
		{`"\u2028<>&"`, `"\u2028\u003c\u003e\u0026"`},
		{`[]`, `[]`},
		{`{}`, `{}`},
	}
	for _, c := range cases {
		n, err := Parse([]byte(c.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", c.in, err)
		}
		if got := n.JSON(); got != c.want {
			t.Errorf("Parse(%s).JSON() = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":}`, `[1,]`, `{} {}`, strings.Repeat("[", MaxDepth+2)} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%.20q) succeeded", in)
		}
	}
}

func TestLookup(t *testing.T) {
	doc, err := Parse([]byte(`{"$defs":{"a/b":{"x":1},"m~n":[10,20]},"properties":{"p q":{"anyOf":[{"type":"string"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ ptr, want, err string }{
		{"#", doc.JSON(), ""},
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
		case n.JSON() != c.want:
			t.Errorf("Lookup(%q) = %s, want %s", c.ptr, n.JSON(), c.want)
		}
	}
}

func TestEqual(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{`[1,2]`, `[2,1]`, false},
		{`"1"`, `1`, false},
		{`null`, `null`, true},
		{`{"a":1}`, `{"a":1,"b":1}`, false},
	}
	for _, c := range cases {
		a, _ := Parse([]byte(c.a))
		b, _ := Parse([]byte(c.b))
		if got := Equal(a, b); got != c.want {
			t.Errorf("Equal(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

func TestEditing(t *testing.T) {
	n, _ := Parse([]byte(`{"a":1,"b":2,"c":3}`))
	c := n.Clone()
	c.Delete("b")
	c.Set("a", &Node{Kind: String, Str: "x"})
	c.Set("d", &Node{Kind: Bool, Bool: true})
	if got := c.JSON(); got != `{"a":"x","c":3,"d":true}` {
		t.Errorf("edited = %s", got)
	}
	if got := n.JSON(); got != `{"a":1,"b":2,"c":3}` {
		t.Errorf("original changed: %s", got)
	}
	if got := n.Without("a", "c").JSON(); got != `{"b":2}` {
		t.Errorf("Without = %s", got)
	}
	if v, ok := n.Get("c").Int(); !ok || v != 3 {
		t.Errorf("Int = %d, %v", v, ok)
	}
}
