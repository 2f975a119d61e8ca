package emit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRawLiteralMatchesDefinition checks the one-pass scan against its
// definition: valid UTF-8 without a backquote, carriage return, NUL or byte
// order mark.
func TestRawLiteralMatchesDefinition(t *testing.T) {
	cases := []string{
		"", "plain", `{"a":"b"}`, "a`b", "a\rb", "a\x00b", "a\ufeffb", "\ufeff",
		"caf\u00e9", "\ufffd", "bad \xff byte", "cut \xe2\x82", "emoji \U0001F600", "\xef\xbb", "tab\tand\nnewline",
	}
	for _, s := range cases {
		want := utf8.ValidString(s) && !strings.ContainsAny(s, "`\r\x00\ufeff")
		if got := rawLiteral(s); got != want {
			t.Errorf("rawLiteral(%q) = %v, want %v", s, got, want)
		}
	}
}
