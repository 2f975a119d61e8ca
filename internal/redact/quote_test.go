package redact

import (
	"strings"
	"testing"
)

// TestQuote checks that text a peer sent is shown escaped, cut to
// MaxQuoted bytes with a note of what was left out, and redacted before the
// cut.
func TestQuote(t *testing.T) {
	for text, want := range map[string]string{
		"":                     `""`,
		"read_file":            `"read_file"`,
		"héllo wörld":          `"héllo wörld"`,
		"a\x1b]0;pwned\x07\nb": `"a\x1b]0;pwned\a\nb"`,
		"\u202egnp.exe\u2028":  `"\u202egnp.exe\u2028"`,
		"bad \xff byte":        `"bad \xff byte"`,
		`say "hi" \o/`:         `"say \"hi\" \\o/"`,
	} {
		if got := Quote(text); got != want {
			t.Errorf("Quote(%q) = %s, want %s", text, got, want)
		}
	}

	long := strings.Repeat("é", 1<<19) // 1 MiB
	got := Quote(long)
	if want := `"` + strings.Repeat("é", MaxQuoted/2) + `" (and 1048376 more bytes)`; got != want {
		t.Errorf("Quote of 1 MiB = %.300s, want %s", got, want)
	}
	escapes := strings.Repeat("\x1b[2J", 1<<18)
	got = Quote(escapes)
	if len(got) > MaxQuoted+40 || strings.ContainsRune(got, 0x1b) || !strings.HasPrefix(got, `"\x1b[2J`) {
		t.Errorf("Quote of 1 MiB of escapes = %q (%d bytes)", got, len(got))
	}

	const secret = "tok-SECRET-1234"
	set := New(secret)
	text := strings.Repeat("x", MaxQuoted-6) + secret + " and more"
	if got := set.Quote(text); strings.Contains(got, "tok-SE") || !strings.Contains(got, Mark[:4]) {
		t.Errorf("Set.Quote = %s; want the secret redacted before the cut", got)
	}
}
