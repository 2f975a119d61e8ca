package schema

import (
	"strings"
	"unicode/utf8"
)

// ecmaSpace is what \s matches in an ECMA-262 pattern (WhiteSpace and
// LineTerminator), as the inside of an RE2 character class.
const ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ecmaDot is what . matches in an ECMA-262 pattern without the s flag, as
// an RE2 character class.
const ecmaDot = `[^\n\r\x{2028}\x{2029}]`

// RE2Pattern returns p, an ECMA-262 regular expression as JSON Schema
// patterns are (read with the u flag), in the syntax of Go's regexp
// package, with the same meaning: \s, \S and . are spelt out as ECMA-262
// defines them, where RE2 gives them fewer (\s) or more (\S, .)
// characters. ok is false when p uses syntax the two read differently
// and RE2Pattern does not rewrite (such as (?i), \z, \pL, [[:alpha:]], or
// [^] and [] at the start of a class), or syntax RE2 lacks (lookaround,
// backreferences, \u escapes): only an ECMA-262 engine reads p then. A
// result may still be a pattern RE2 refuses, such as a repetition over
// its limit.
func RE2Pattern(p string) (re2 string, ok bool) {
	var b strings.Builder
	inClass, classStart := false, false
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return "", false
			}
			e := p[i+1]
			n := 2
			switch {
			case e == 's' && inClass:
				b.WriteString(ecmaSpace)
			case e == 's':
				b.WriteString("[" + ecmaSpace + "]")
			case e == 'S' && !inClass:
				b.WriteString("[^" + ecmaSpace + "]")
			case strings.IndexByte("dDwWnrtfv", e) >= 0, (e == 'b' || e == 'B') && !inClass:
				b.WriteString(p[i : i+2])
			case e == 'x' && i+3 < len(p) && isHex(p[i+2]) && isHex(p[i+3]):
				b.WriteString(p[i : i+4])
				n = 4
			case e < utf8.RuneSelf && !isAlnum(e):
				// An identity escape of a syntax character: the same in both.
				b.WriteString(p[i : i+2])
			default:
				return "", false
			}
			i += n
			classStart = false
		case inClass:
			if c == ']' && classStart || c == '[' && i+1 < len(p) && p[i+1] == ':' {
				return "", false
			}
			classStart = false
			inClass = c != ']'
			b.WriteByte(c)
			i++
		case c == '[':
			inClass, classStart = true, true
			b.WriteByte(c)
			i++
			if i < len(p) && p[i] == '^' {
				b.WriteByte('^')
				i++
			}
		case c == '.':
			b.WriteString(ecmaDot)
			i++
		case c == '(' && i+1 < len(p) && p[i+1] == '?':
			if i+2 >= len(p) || p[i+2] != ':' {
				return "", false
			}
			b.WriteString("(?:")
			i += 3
		default:
			b.WriteByte(c)
			i++
		}
	}
	if inClass {
		return "", false
	}
	return b.String(), true
}

// ecmaWord is what \w matches in an ECMA-262 pattern read with the u flag
// and without the i flag, which JSON Schema patterns do not take.
const ecmaWord = `[A-Za-z0-9_]`

// ECMAEnginePattern returns p, an ECMA-262 regular expression that only
// an ECMAScript engine reads (see RE2Pattern), with . and the word
// boundaries \b and \B spelt out as ECMA-262 defines them: that engine
// (github.com/dlclark/regexp2, in its ECMAScript mode) lets . match U+2028
// and U+2029, and takes é for a word character at a \b, though not in \w.
// Only lookarounds and non-capturing groups are added, so the groups of p
// keep their numbers. Text p cannot be read as (an unterminated class, a
// trailing backslash) is kept as it is, for the engine to refuse.
func ECMAEnginePattern(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			switch e := p[i+1]; {
			case e == 'b' && !inClass:
				b.WriteString(`(?:(?<=` + ecmaWord + `)(?!` + ecmaWord + `)|(?<!` + ecmaWord + `)(?=` + ecmaWord + `))`)
			case e == 'B' && !inClass:
				b.WriteString(`(?:(?<=` + ecmaWord + `)(?=` + ecmaWord + `)|(?<!` + ecmaWord + `)(?!` + ecmaWord + `))`)
			default:
				b.WriteString(p[i : i+2])
			}
			i++
		case inClass:
			// In ECMA-262, a ] closes the class even right after its [ or
			// [^ ([] and [^] are classes of their own).
			inClass = c != ']'
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
		case c == '.':
			b.WriteString(`[^\n\r\u2028\u2029]`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
