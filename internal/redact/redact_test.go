package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// escapeAll writes every character of s as a \u escape.
func escapeAll(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, `\u%04x`, u)
	}
	return b.String()
}

// TestSecretEscapedSpellings finds a secret in each spelling a server or a
// log may give it: verbatim, JSON-escaped character by character or in part,
// quoted once more in a log value, and as a surrogate pair.
func TestSecretEscapedSpellings(t *testing.T) {
	const secret = `tok-SECRET-"é😀\x`
	set := New(secret)
	jsonForm, _ := json.Marshal(secret)
	inJSON := string(jsonForm[1 : len(jsonForm)-1])
	tests := map[string]string{
		"verbatim":            "saw " + secret + " here",
		"json":                "saw " + inJSON + " here",
		"all escaped":         "saw " + escapeAll(secret) + " here",
		"upper-case hex":      "saw " + strings.ReplaceAll(strings.ToUpper(escapeAll("tok")), `\U`, `\u`) + `-SECRET-\"é😀\\x here`,
		"quoted json":         "saw " + strconv.Quote(escapeAll(secret))[1:len(strconv.Quote(escapeAll(secret)))-1] + " here",
		"quoted quoted json":  "saw " + strings.ReplaceAll(escapeAll(secret), `\`, `\\\\`) + " here",
		"surrogate pair":      "saw " + escapeAll("tok-SECRET-\"é") + `\ud83d\ude00\u005cx here`,
		"go escapes":          `saw \x74ok-SECRET-\"\u00e9\U0001F600\\x here`,
		"solidus and literal": `saw tok-SECRET-\"é😀\\\u0078 here`,
	}
	for name, text := range tests {
		got := set.String(text)
		if got != "saw "+Mark+" here" {
			t.Errorf("%s: %q became %q", name, text, got)
		}
	}
	// A broken escape is not the secret.
	for _, text := range []string{`tok-SECRET-\"é\ud83d`, `\u74ok-SECRET`, "tok-SECRET-"} {
		if got := set.String(text); got != text {
			t.Errorf("%q became %q", text, got)
		}
	}
}

// TestSecretTooShortToRedact leaves secrets under MinLen out, so that they
// cannot garble ordinary text, and replaces longer ones whole, the longest
// first.
func TestSecretTooShortToRedact(t *testing.T) {
	if !TooShort("x") || !TooShort("1234567") || TooShort("12345678") || TooShort("") {
		t.Errorf("TooShort disagrees with MinLen %d", MinLen)
	}
	set := New("x", "abcdefgh", "Bearer abcdefgh")
	text := "GET https://staging.example.com: Bearer abcdefgh, then abcdefghij"
	want := "GET https://staging.example.com: " + Mark + ", then " + Mark + "ij"
	if got := set.String(text); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if New("x", "short") != nil {
		t.Error("a Set of short secrets only is not nil")
	}
	var none *Set
	if got := none.String(text); got != text {
		t.Errorf("the nil Set changed the text to %q", got)
	}
}

func TestForms(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("user:pass-word-1"))
	got := strings.Join(Forms(basic), "|")
	want := basic + "|" + basic[len("Basic "):] + "|user:pass-word-1|pass-word-1"
	if got != want {
		t.Errorf("Forms(%q) = %q, want %q", basic, got, want)
	}
	if got := strings.Join(Forms(" plain-key "), "|"); got != "plain-key" {
		t.Errorf("Forms(plain) = %q", got)
	}
	b := BasicForms("user", "pass-word-1")
	if len(b) != 3 || b[0] != "pass-word-1" || b[1] != "user:pass-word-1" || "Basic "+b[2] != basic {
		t.Errorf("BasicForms = %q", b)
	}
	if BasicForms("user", "") != nil {
		t.Error("BasicForms without a password is not nil")
	}
}

func TestBytes(t *testing.T) {
	set := New("tok-SECRET-1")
	out, found := set.Bytes([]byte(`{"d":"\u0074ok-SECRET-1"}`))
	if !found || string(out) != `{"d":"`+Mark+`"}` {
		t.Errorf("Bytes = %s, %v", out, found)
	}
	in := []byte("nothing here")
	if out, found := set.Bytes(in); found || string(out) != "nothing here" {
		t.Errorf("Bytes = %s, %v", out, found)
	}
}
