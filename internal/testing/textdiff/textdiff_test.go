package textdiff

import "testing"

func TestFirstLine(t *testing.T) {
	for _, tc := range []struct{ want, got, out string }{
		{"a\nb\nc", "a\nx\nc", "line 2:\n  want: b\n  got:  x"},
		{"a", "a\nb", "line 2:\n  want: \n  got:  b"},
		{"same", "same", "(no line differs)"},
	} {
		if out := FirstLine(tc.want, tc.got); out != tc.out {
			t.Errorf("FirstLine(%q, %q) = %q, want %q", tc.want, tc.got, out, tc.out)
		}
	}
}
