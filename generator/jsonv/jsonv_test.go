package jsonv

import (
	"errors"
	"testing"
)

func TestParseKeepsOrderAndLiterals(t *testing.T) {
	v, err := Parse([]byte(`{"z":1.50,"a":[true,null,"x"],"m":{"b":{},"a":[]}}`))
	if err != nil {
		t.Fatal(err)
	}
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

func TestResolve(t *testing.T) {
	v, err := Parse([]byte(`{"$defs":{"a/b":{"x":1},"t~":[10,20]},"p":{"":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	for ptr, want := range map[string]string{
		"":              v.String(),
		"/$defs/a~1b/x": "1",
		"/$defs/t~0/1":  "20",
		"/p/":           "2",
	} {
		got := v.Resolve(ptr)
		if got == nil || got.String() != want {
			t.Errorf("Resolve(%q) = %v, want %s", ptr, got, want)
		}
	}
	for _, ptr := range []string{"/nope", "/$defs/t~0/2", "/$defs/t~0/01", "x", "/$defs/t~0/-1"} {
		if got := v.Resolve(ptr); got != nil {
			t.Errorf("Resolve(%q) = %v, want nil", ptr, got)
		}
	}
}

func TestEqual(t *testing.T) {
	parse := func(s string) *Value {
		v, err := Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		a, b string
		eq   bool
	}{
		{`1`, `1.0`, true},
		{`{"a":1,"b":[2]}`, `{"b":[2],"a":1}`, true},
		{`[1,2]`, `[2,1]`, false},
		{`"1"`, `1`, false},
		{`null`, `null`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
	} {
		if got := Equal(parse(tc.a), parse(tc.b)); got != tc.eq {
			t.Errorf("Equal(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}
