package geminidecl

import "testing"

// TestJoinNotes checks how notes are joined, alone and in company.
func TestJoinNotes(t *testing.T) {
	cases := []struct {
		parts []string
		want  string
	}{
		{nil, ""},
		{[]string{"", "  "}, ""},
		{[]string{"  One part.  "}, "One part."},
		{[]string{"", " alone ", ""}, "alone"},
		{[]string{"First", "second"}, "First. second"},
		{[]string{"Why?", "Because", "", "done."}, "Why? Because. done."},
		{[]string{"`code`", "x)", "y"}, "`code` x) y"},
	}
	for _, c := range cases {
		if got := joinNotes(c.parts...); got != c.want {
			t.Errorf("joinNotes(%q) = %q, want %q", c.parts, got, c.want)
		}
	}
}
