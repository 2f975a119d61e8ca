// Package redact replaces credentials in the text mcpgen writes: its output,
// logs and error messages, and the snapshots and code it generates from what
// a server sent.
//
// A server can echo a credential it received in many spellings: as it is, or
// with any of its characters written as a JSON or Go escape (\u0073, \x73,
// \/), and inside a JSON string that is itself quoted in a log line or in
// another JSON string, which doubles the backslashes. A Set matches each
// secret on the text decoded through up to three such levels of escaping,
// and replaces the whole span that spells it.
package redact

import (
	"encoding/base64"
	"sort"
	"strings"
	"unicode/utf8"
)

// MinLen is the length, in bytes, under which a secret is not searched for:
// a secret of a few characters occurs inside ordinary words and numbers, so
// replacing it would garble unrelated text (a token "x" would turn
// staging.example.com into staging.e[REDACTED]ample.com).
const MinLen = 8

// Mark replaces each occurrence of a secret.
const Mark = "[REDACTED]"

// maxDepth is how many levels of escaping a secret is looked for under.
const maxDepth = 3

// A Set is a list of secrets to replace by Mark. Its methods may be called
// concurrently; the nil *Set holds no secret.
type Set struct {
	secrets []string // longest first, so that "Bearer t" goes before "t"
	start   [256]bool
}

// New returns the Set of the given secrets, leaving out empty ones, those
// shorter than MinLen (see TooShort) and repeats. It returns nil when none
// is left.
func New(secrets ...string) *Set {
	s := &Set{}
	seen := map[string]bool{}
	for _, v := range secrets {
		if v == "" || TooShort(v) || seen[v] {
			continue
		}
		seen[v] = true
		s.secrets = append(s.secrets, v)
		s.start[v[0]] = true
	}
	if len(s.secrets) == 0 {
		return nil
	}
	s.start['\\'] = true
	sort.SliceStable(s.secrets, func(i, j int) bool { return len(s.secrets[i]) > len(s.secrets[j]) })
	return s
}

// TooShort reports whether secret is too short to be redacted safely. An
// empty secret is not too short: there is nothing to redact.
func TooShort(secret string) bool {
	return secret != "" && len(secret) < MinLen
}

// String returns text with every occurrence of a secret replaced by Mark.
func (s *Set) String(text string) string {
	if s == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); {
		if !s.start[text[i]] {
			i++
			continue
		}
		end := s.matchAt(text, i)
		if end < 0 {
			i++
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(text))
		}
		b.WriteString(text[last:i])
		b.WriteString(Mark)
		i, last = end, end
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// Bytes returns data with every occurrence of a secret replaced by Mark, and
// whether it replaced any.
func (s *Set) Bytes(data []byte) ([]byte, bool) {
	if s == nil {
		return data, false
	}
	text := string(data)
	out := s.String(text)
	if out == text {
		return data, false
	}
	return []byte(out), true
}

// matchAt returns the end of the secret that text spells from i, or -1.
func (s *Set) matchAt(text string, i int) int {
	for _, secret := range s.secrets {
		if strings.HasPrefix(text[i:], secret) {
			return i + len(secret)
		}
		for depth := 1; depth <= maxDepth; depth++ {
			if end := matchEscaped(text, i, secret, depth); end >= 0 {
				return end
			}
		}
	}
	return -1
}

// matchEscaped returns the end of secret spelled from i in text under depth
// levels of escaping, or -1.
func matchEscaped(text string, i int, secret string, depth int) int {
	pos := i
	for _, want := range secret {
		r, next, ok := decode(text, pos, depth)
		if !ok || r != want {
			return -1
		}
		pos = next
	}
	return pos
}

// decode reads one character of text from pos under depth levels of
// escaping and returns it with the position after it.
func decode(text string, pos, depth int) (rune, int, bool) {
	if depth == 0 {
		if pos >= len(text) {
			return 0, pos, false
		}
		r, size := utf8.DecodeRuneInString(text[pos:])
		return r, pos + size, true
	}
	c, pos, ok := decode(text, pos, depth-1)
	if !ok || c != '\\' {
		return c, pos, ok
	}
	c, pos, ok = decode(text, pos, depth-1)
	if !ok {
		return 0, pos, false
	}
	switch c {
	case '"', '\\', '/', '\'':
		return c, pos, true
	case 'a':
		return '\a', pos, true
	case 'b':
		return '\b', pos, true
	case 'f':
		return '\f', pos, true
	case 'n':
		return '\n', pos, true
	case 'r':
		return '\r', pos, true
	case 't':
		return '\t', pos, true
	case 'v':
		return '\v', pos, true
	case 'x':
		return decodeHex(text, pos, depth-1, 2)
	case 'U':
		return decodeHex(text, pos, depth-1, 8)
	case 'u':
		r, pos, ok := decodeHex(text, pos, depth-1, 4)
		if !ok || !utf16IsHigh(r) {
			return r, pos, ok
		}
		// A surrogate pair: the low half is a second \u escape.
		if c, p, ok := decode(text, pos, depth-1); !ok || c != '\\' {
			return 0, pos, false
		} else if c, p, ok = decode(text, p, depth-1); !ok || c != 'u' {
			return 0, pos, false
		} else if lo, p, ok := decodeHex(text, p, depth-1, 4); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, p, true
		}
		return 0, pos, false
	}
	return 0, pos, false
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }

// decodeHex reads n hexadecimal digits under depth levels of escaping.
func decodeHex(text string, pos, depth, n int) (rune, int, bool) {
	var v rune
	for k := 0; k < n; k++ {
		c, next, ok := decode(text, pos, depth)
		if !ok {
			return 0, pos, false
		}
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | (c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | (c - 'A' + 10)
		default:
			return 0, pos, false
		}
		pos = next
	}
	return v, pos, true
}

// Forms returns the forms of a credential sent as an HTTP header value that
// a server may echo: the value itself, the credential after its scheme
// ("Bearer t" gives t too) and, for Basic, the decoded "user:password" and
// the password.
func Forms(value string) []string {
	value = strings.TrimSpace(value)
	out := []string{value}
	scheme, cred, ok := strings.Cut(value, " ")
	if !ok {
		return out
	}
	cred = strings.TrimSpace(cred)
	out = append(out, cred)
	if strings.EqualFold(scheme, "Basic") {
		if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
			if _, pw, ok := strings.Cut(string(dec), ":"); ok {
				out = append(out, string(dec), pw)
			}
		}
	}
	return out
}

// BasicForms returns the forms of the user information of a URL, which
// HTTP clients send as Basic authorization, that a server may echo: the
// password, "user:password" and its base64 encoding.
func BasicForms(user, password string) []string {
	if password == "" {
		return nil
	}
	pair := user + ":" + password
	return []string{password, pair, base64.StdEncoding.EncodeToString([]byte(pair))}
}
