package ir

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// initialisms are written in upper case when they make up a whole word, as
// Go style asks.
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "CSV": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true,
	"JSON": true, "JWT": true, "LLM": true, "MCP": true, "OS": true, "RAM": true, "RPC": true,
	"SHA": true, "SLA": true, "SMTP": true, "SQL": true, "SSE": true, "SSH": true, "TCP": true,
	"TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true, "URI": true, "URL": true,
	"UTF8": true, "UUID": true, "VM": true, "XML": true, "XSRF": true, "XSS": true, "YAML": true,
}

// words splits s into words at non-alphanumeric characters, lower-to-upper
// case changes, and the end of an upper-case run ("HTTPServer" → HTTP,
// Server).
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// camel joins the words of s in CamelCase, applying initialisms. Letters
// outside what Go accepts in identifiers are dropped. The result may start
// with a digit, and is empty when s has no letters or digits.
func camel(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		up := strings.ToUpper(w)
		if initialisms[up] {
			b.WriteString(up)
			continue
		}
		r, n := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[n:])
	}
	return b.String()
}

// Exported returns an exported Go identifier for s: "list-events" →
// "ListEvents", "light.turn_on" → "LightTurnOn", "HassTurnOn" stays. A name
// that would start with a digit gets an "X" prefix, and a name with no
// letters or digits becomes fallback.
func Exported(s, fallback string) string {
	c := camel(s)
	if c == "" {
		return fallback
	}
	if r, _ := utf8.DecodeRuneInString(c); !unicode.IsLetter(r) || !unicode.IsUpper(r) {
		// Digits, and letters without case (such as CJK), cannot start an
		// exported identifier.
		return "X" + c
	}
	return c
}

// valueName returns the suffix of an enum constant for a JSON value: its
// words in CamelCase, with a leading sign spelled out ("-1" → "Minus1",
// "-timestamp" → "MinusTimestamp").
func valueName(s string) string {
	prefix := ""
	switch {
	case strings.HasPrefix(s, "-"):
		prefix, s = "Minus", s[1:]
	case strings.HasPrefix(s, "+"):
		prefix, s = "Plus", s[1:]
	}
	c := camel(strings.ReplaceAll(s, ".", "_Dot_"))
	if c == "" {
		return ""
	}
	return prefix + c
}

// Namer hands out identifiers that are unique within one scope. A name that
// is taken gets the smallest numeric suffix from 2 up that is free, so the
// same inputs in the same order always get the same names.
type Namer struct {
	taken map[string]bool
}

// NewNamer returns a Namer with reserved names already taken.
func NewNamer(reserved ...string) *Namer {
	n := &Namer{taken: make(map[string]bool, len(reserved))}
	for _, r := range reserved {
		n.taken[r] = true
	}
	return n
}

// Take returns name, or name with a numeric suffix when name is taken, and
// marks the result taken.
func (n *Namer) Take(name string) string {
	if !n.taken[name] {
		n.taken[name] = true
		return name
	}
	for i := 2; ; i++ {
		c := name + strconv.Itoa(i)
		if !n.taken[c] {
			n.taken[c] = true
			return c
		}
	}
}

// Taken reports whether name is taken.
func (n *Namer) Taken(name string) bool { return n.taken[name] }
