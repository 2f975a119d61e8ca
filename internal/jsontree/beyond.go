package jsontree

import (
	"errors"
	"strconv"
	"strings"
)

// BeyondFloat64 finds the first number under n that a float64 cannot hold
// (such as 1e400), which ParseUnique accepts and Parse refuses: its JSON
// pointer relative to n and its literal, cut to 64 bytes. ok is false when
// there is none. Code that passes a tree on to readers that decode numbers
// as float64 (every model provider's API) refuses such a tree with it.
func BeyondFloat64(n *Node) (ptr, lit string, ok bool) {
	// path holds the keys and indexes that lead to the current value; the
	// pointer is built from it only for the number found.
	var path []string
	var walk func(n *Node) bool
	walk = func(n *Node) bool {
		switch n.Kind {
		case Number:
			if _, err := strconv.ParseFloat(n.Str, 64); errors.Is(err, strconv.ErrRange) {
				lit = n.Str
				if len(lit) > 64 {
					lit = lit[:64] + "…"
				}
				return true
			}
		case Object:
			for _, m := range n.Members {
				path = append(path, m.Key)
				if walk(m.Value) {
					return true
				}
				path = path[:len(path)-1]
			}
		case Array:
			for i, it := range n.Items {
				path = append(path, strconv.Itoa(i))
				if walk(it) {
					return true
				}
				path = path[:len(path)-1]
			}
		}
		return false
	}
	if n == nil || !walk(n) {
		return "", "", false
	}
	var b strings.Builder
	for _, tok := range path {
		b.WriteByte('/')
		b.WriteString(EscapeToken(tok))
	}
	return b.String(), lit, true
}
