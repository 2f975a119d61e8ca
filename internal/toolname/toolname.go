// Package toolname turns MCP tool names into the function names a model
// provider accepts, deterministically and reversibly.
package toolname

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime"
)

// Rules describe the names a provider accepts.
type Rules struct {
	// MaxLen is the longest name, in bytes (all allowed characters are ASCII).
	MaxLen int
	// First reports whether c may start a name.
	First func(c byte) bool
	// Rest reports whether c may appear after the first character.
	Rest func(c byte) bool
	// Prefix is put in front of a name whose first character is not allowed.
	// It must itself be a valid name start.
	Prefix string
	// Reserved are names a toolset may declare for itself (its search
	// function): a rewritten name never takes one. A tool that has one as
	// its own name keeps it.
	Reserved []string
}

// Valid reports whether name follows the rules.
func (r Rules) Valid(name string) bool {
	if name == "" || len(name) > r.MaxLen || !r.First(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !r.Rest(name[i]) {
			return false
		}
	}
	return true
}

// Assign returns a provider name for each MCP tool name, in the same order.
//
// A name the provider accepts is kept as it is. Any other name has each
// disallowed character replaced by '_', gets Prefix when it starts with a
// disallowed character, and is cut to MaxLen. When that name is taken (by a
// kept name, by another rewritten one or by a Reserved name), or had to be cut, it ends in '_'
// and six hex digits of a hash of the MCP name instead. So a valid name never
// changes, and each rewritten name depends only on its own MCP name and on
// the names it collides with. Names listed twice are an error.
func Assign(names []string, r Rules) ([]string, error) {
	out := make([]string, len(names))
	seen := make(map[string]bool, len(names))
	taken := make(map[string]bool, len(names))
	for i, n := range names {
		if n == "" {
			return nil, fmt.Errorf("tool %d has an empty name", i)
		}
		if seen[n] {
			return nil, fmt.Errorf("tool %q is listed twice", n)
		}
		seen[n] = true
		if r.Valid(n) {
			out[i] = n
			taken[n] = true
		}
	}
	count := make(map[string]int)
	cut := make([]bool, len(names))
	for i, n := range names {
		if out[i] != "" {
			continue
		}
		var c string
		c, cut[i] = r.sanitize(n)
		out[i] = c
		count[c]++
	}
	for i, n := range names {
		if taken[n] && out[i] == n {
			continue
		}
		if !cut[i] && count[out[i]] == 1 && !taken[out[i]] && !slices.Contains(r.Reserved, out[i]) {
			continue
		}
		base := out[i]
		if len(base) > r.MaxLen-7 {
			base = base[:r.MaxLen-7]
		}
		out[i] = base + "_" + shortHash(n)
	}
	final := make(map[string]string, len(names))
	for i, n := range names {
		if other, dup := final[out[i]]; dup {
			return nil, fmt.Errorf("tools %q and %q map to the same name %q", other, n, out[i])
		}
		final[out[i]] = n
	}
	return out, nil
}

// sanitize replaces disallowed bytes and cuts the name to MaxLen. It reports
// whether the name had to be cut.
func (r Rules) sanitize(name string) (string, bool) {
	var b strings.Builder
	for _, c := range name {
		if c < utf8.RuneSelf && r.Rest(byte(c)) {
			b.WriteByte(byte(c))
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if !r.First(s[0]) {
		s = r.Prefix + s
	}
	if len(s) > r.MaxLen {
		return s[:r.MaxLen], true
	}
	return s, false
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:3])
}

// IsLetter reports whether c is an ASCII letter.
func IsLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

// Describe returns the description to declare for a tool: its description,
// else its title, else a sentence made from its name. It is never empty.
func Describe(t runtime.Tool) string {
	if d := strings.TrimSpace(t.Description); d != "" {
		return d
	}
	if d := strings.TrimSpace(t.Title); d != "" {
		return d
	}
	return SentenceFromName(t.Name)
}

// SentenceFromName makes a short sentence from a tool name, splitting words
// at separators and case changes: "describe_doorbell" gives "Describe
// doorbell.", "GetLiveContext" gives "Get live context.".
func SentenceFromName(name string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	if len(words) == 0 {
		return "Runs the tool."
	}
	for i, w := range words {
		if i > 0 && !isAcronym(w) {
			words[i] = strings.ToLower(w)
		}
	}
	first := []rune(words[0])
	first[0] = unicode.ToUpper(first[0])
	words[0] = string(first)
	return strings.Join(words, " ") + "."
}

func isAcronym(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsUpper(r) {
			n++
		}
	}
	return n > 1
}
