package jsontree

import (
	"strings"
	"testing"
)

// TestNestedBeyond checks that NestedBeyond finds the first container
// deeper than its limit, with the keys (decoded and escaped) and indexes
// that lead to it, and nothing in text within the limit, whatever its
// strings hold.
func TestNestedBeyond(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int
		ptr   string
		ok    bool
	}{
		{`{"a":[1,{"b":2}]}`, 3, "", false},
		{`{"a":[1,{"b":2}]}`, 2, "/a/1", true},
		{`{"a":[1,{"b":2}]}`, 1, "/a", true},
		{`[[],[[]]]`, 2, "/1/0", true},
		{`{"x":"{[{[","y\/~":{"z":{}}}`, 2, "/y~1~0/z", true},
		{`{"\u0061":{"k":"v","l":[]}}`, 2, "/a/l", true},
		{`{"a":{}}`, 0, "", true},
		{`"[[[["`, 1, "", false},
		{strings.Repeat("[", 10000), 64, "/" + strings.TrimSuffix(strings.Repeat("0/", 64), "/"), true},
	} {
		ptr, ok := NestedBeyond([]byte(c.in), c.limit)
		if ptr != c.ptr || ok != c.ok {
			t.Errorf("%.40s (limit %d): got %q %v, want %q %v", c.in, c.limit, ptr, ok, c.ptr, c.ok)
		}
	}
}
