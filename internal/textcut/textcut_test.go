package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrefix(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"", 3, ""},
		{"aé", 2, "a"},  // é is 2 bytes: not split
		{"aé", 3, "aé"}, // whole
		{"€uro", 1, ""}, // € is 3 bytes
		{"€uro", 2, ""},
		{"€uro", 3, "€"},
		{"😀x", 3, ""}, // a 4-byte character
		{"😀x", 4, "😀"},
		{"a\xffb", 2, "a\xff"}, // a byte that is not UTF-8 is a character of its own
	} {
		if got := Prefix(tc.s, tc.n); got != tc.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestPrefixNeverSplits cuts a text of characters of every length at every
// length and checks that each prefix is valid UTF-8, at most n bytes, and
// loses less than one character.
func TestPrefixNeverSplits(t *testing.T) {
	s := strings.Repeat("aé€😀", 8)
	for n := 0; n <= len(s)+1; n++ {
		p := Prefix(s, n)
		if !utf8.ValidString(p) || len(p) > n || !strings.HasPrefix(s, p) {
			t.Fatalf("Prefix(s, %d) = %q", n, p)
		}
		if n < len(s) && n-len(p) >= utf8.UTFMax {
			t.Fatalf("Prefix(s, %d) dropped %d bytes", n, n-len(p))
		}
	}
}

// TestPrefixStrayContinuationBytes cuts text holding bytes that continue no
// character: each counts as a character of its own, so the prefix ends at
// n, or at most 3 bytes before it, and a text of such bytes is not cut to
// nothing.
func TestPrefixStrayContinuationBytes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"a\x80b", 1, "a"},
		{"ab\x80\x80\x80\x80\x80", 4, "ab\x80\x80"},
		{"€" + strings.Repeat("\x80", 10), 6, "€\x80\x80\x80"},
		{"\xe2\x82" + strings.Repeat("\x80", 10), 4, "\xe2\x82\x80\x80"}, // ₀ and a stray byte after it
	} {
		if got := Prefix(tc.s, tc.n); got != tc.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	s := strings.Repeat("\x80", 1<<20)
	if got := Prefix(s, 4096); got != s[:4096] {
		t.Errorf("Prefix of 1 MiB of continuation bytes at 4096 is %d bytes long", len(got))
	}
}
