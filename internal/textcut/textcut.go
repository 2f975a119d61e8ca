// Package textcut cuts text to a length in bytes without splitting a
// character: the one rule behind every bound on text that mcpgen shows, in
// errors, tool results, reports and generated names.
package textcut

import "unicode/utf8"

// Prefix returns the longest prefix of s that is at most n bytes long and
// does not end inside a UTF-8 sequence. Bytes that are not UTF-8 count as
// characters of their own, so a prefix of such text is cut at n, or within
// the last 3 bytes before it.
func Prefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	// A character that the cut at n would split starts at most 3 bytes
	// before n, and its encoding reaches past n; a byte at n that
	// continues no such character is a character of its own.
	for p := n; p >= 0 && p > n-utf8.UTFMax; p-- {
		if !utf8.RuneStart(s[p]) {
			continue
		}
		if _, size := utf8.DecodeRuneInString(s[p:]); p+size > n {
			return s[:p]
		}
		break
	}
	return s[:n]
}
