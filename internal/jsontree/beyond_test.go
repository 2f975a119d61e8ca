package jsontree

import (
	"strings"
	"testing"
)

// TestBeyondFloat64 checks that BeyondFloat64 finds the first number a
// float64 cannot hold, with its escaped pointer, and nothing in a tree
// without one: tiny numbers round to zero, which a float64 holds.
func TestBeyondFloat64(t *testing.T) {
	for _, c := range []struct {
		in, ptr, lit string
		ok           bool
	}{
		{`{"a":1,"b":[2,{"c/d~":1e400}],"e":-1e999}`, "/b/1/c~1d~0", "1e400", true},
		{`-9e999999`, "", "-9e999999", true},
		{`{"a":1e-400,"b":1.7976931348623157e308,"c":[0,-0.0]}`, "", "", false},
		{`{"x":1` + strings.Repeat("0", 400) + `}`, "/x", "1" + strings.Repeat("0", 63) + "…", true},
	} {
		n, err := ParseUnique([]byte(c.in))
		if err != nil {
			t.Fatalf("%.40s: %v", c.in, err)
		}
		ptr, lit, ok := BeyondFloat64(n)
		if ptr != c.ptr || lit != c.lit || ok != c.ok {
			t.Errorf("%.40s: got %q %q %v, want %q %q %v", c.in, ptr, lit, ok, c.ptr, c.lit, c.ok)
		}
	}
	if _, _, ok := BeyondFloat64(nil); ok {
		t.Error("nil tree: ok")
	}
}
