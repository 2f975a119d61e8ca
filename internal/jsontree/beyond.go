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
	ptr, found, ok := Find(n, nil, func(_ string, v *Node) bool {
		if v.Kind != Number {
			return false
		}
		_, err := strconv.ParseFloat(v.Str, 64)
		return errors.Is(err, strconv.ErrRange)
	})
	if !ok {
		return "", "", false
	}
	lit = found.Str
	if len(lit) > 64 {
		lit = lit[:64] + "…"
	}
	return ptr, lit, true
}

// Find walks n in document order and returns the first value v under it,
// n included, for which hit(key, v) holds, key being v's member name (""
// for n itself and for array items), with v's JSON pointer relative to n;
// ok is false when there is none. It does not enter a member for which
// skip, when set, holds. The pointer is built only for the value found.
func Find(n *Node, skip func(key string) bool, hit func(key string, v *Node) bool) (ptr string, found *Node, ok bool) {
	// path holds the keys and indexes that lead to the current value.
	var path []string
	var walk func(key string, n *Node) bool
	walk = func(key string, n *Node) bool {
		if hit(key, n) {
			found = n
			return true
		}
		switch n.Kind {
		case Object:
			for _, m := range n.Members {
				if skip != nil && skip(m.Key) {
					continue
				}
				path = append(path, m.Key)
				if walk(m.Key, m.Value) {
					return true
				}
				path = path[:len(path)-1]
			}
		case Array:
			for i, it := range n.Items {
				path = append(path, strconv.Itoa(i))
				if walk("", it) {
					return true
				}
				path = path[:len(path)-1]
			}
		}
		return false
	}
	if n == nil || !walk("", n) {
		return "", nil, false
	}
	var b strings.Builder
	for _, tok := range path {
		b.WriteByte('/')
		b.WriteString(EscapeToken(tok))
	}
	return b.String(), found, true
}
