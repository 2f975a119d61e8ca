package jsonrpc

import "bytes"

// FindID recovers the top-level "id" of a message known only by its first
// bytes (prefix) and its last bytes (suffix), as when the message was too
// large to read. It reports false when neither end shows the id.
//
// Servers put the id early ({"jsonrpc":"2.0","id":7,"result":...}) or last
// ({"result":...,"jsonrpc":"2.0","id":7}), so both ends are examined.
func FindID(prefix, suffix []byte) ([]byte, bool) {
	if id, ok := idFromPrefix(prefix); ok {
		return id, true
	}
	return idFromSuffix(suffix)
}

// idFromPrefix walks the top-level members of a possibly truncated object.
func idFromPrefix(prefix []byte) ([]byte, bool) {
	var id []byte
	_ = ObjectEach(prefix, func(key []byte, escaped bool, v []byte) error {
		if id == nil && KeyIs(key, escaped, "id") {
			id = v
		}
		return nil
	})
	return id, id != nil && !IsNull(id)
}

// idFromSuffix looks for "id":VALUE as the last member of the top-level
// object, or as the one before a final "jsonrpc" member.
func idFromSuffix(suffix []byte) ([]byte, bool) {
	s := TrimSpace(suffix)
	if len(s) == 0 || s[len(s)-1] != '}' {
		return nil, false
	}
	for end := len(s); end > 0; {
		k := bytes.LastIndex(s[:end], []byte(`"id"`))
		if k < 0 {
			return nil, false
		}
		end = k
		// The key must start a member: preceded by ',' or '{'.
		j := k - 1
		for j >= 0 && isSpace(s[j]) {
			j--
		}
		if j < 0 || (s[j] != ',' && s[j] != '{') {
			continue
		}
		i := skipSpace(s, k+4)
		if i >= len(s) || s[i] != ':' {
			continue
		}
		i = skipSpace(s, i+1)
		if i >= len(s) || (s[i] != '"' && s[i] != '-' && (s[i] < '0' || s[i] > '9')) {
			continue
		}
		vend, err := SkipValue(s, i)
		if err != nil {
			continue
		}
		if tailClosesObject(s[vend:]) {
			return s[i:vend], true
		}
	}
	return nil, false
}

// tailClosesObject reports whether rest is "}" or `,"jsonrpc":"2.0"}`, with
// any whitespace.
func tailClosesObject(rest []byte) bool {
	rest = TrimSpace(rest)
	if string(rest) == "}" {
		return true
	}
	if len(rest) == 0 || rest[0] != ',' {
		return false
	}
	compact := make([]byte, 0, len(rest))
	for _, c := range rest[1:] {
		if !isSpace(c) {
			compact = append(compact, c)
		}
	}
	return string(compact) == `"jsonrpc":"2.0"}`
}
