package snapshot

import "encoding/json"

// The functions below find the text of values inside a document that
// jsontree.Parse has accepted, so they need not check its syntax: they
// only skip strings, and count brackets. They replace json.Unmarshal into
// json.RawMessage values, whose scanner checked every byte of the document
// once more for each level read.

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that starts at data[i].
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	return len(data)
}

// valueEnd returns the index just past the value that starts at data[i].
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = stringEnd(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(data)
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// rawItems returns the text of each element of the array data holds.
func rawItems(data []byte) []json.RawMessage {
	var out []json.RawMessage
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil
	}
	for i = skipSpace(data, i+1); i < len(data) && data[i] != ']'; i = skipSpace(data, i+1) {
		end := valueEnd(data, i)
		out = append(out, json.RawMessage(data[i:end]))
		if i = skipSpace(data, end); i >= len(data) || data[i] != ',' {
			break
		}
	}
	if out == nil {
		out = []json.RawMessage{}
	}
	return out
}

// rawMember returns the text of the value of the member key of the object
// data holds, or nil when it has none.
func rawMember(data []byte, key string) json.RawMessage {
	return rawMembers(data, key)[0]
}

// rawMembers returns the text of the values of the members keys of the
// object data holds, in the order of keys, nil for each it has not. Keys
// are compared as decoded, as json.Unmarshal into a map compares them; the
// document repeats no key.
func rawMembers(data []byte, keys ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(keys))
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return out
	}
	for i = skipSpace(data, i+1); i < len(data) && data[i] == '"'; i = skipSpace(data, i+1) {
		kend := stringEnd(data, i)
		quoted := data[i:kend]
		i = skipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			break
		}
		i = skipSpace(data, i+1)
		end := valueEnd(data, i)
		for k, key := range keys {
			if keyIs(quoted, key) {
				out[k] = json.RawMessage(data[i:end])
			}
		}
		if i = skipSpace(data, end); i >= len(data) || data[i] != ',' {
			break
		}
	}
	return out
}

// keyIs reports whether the quoted key decodes to key.
func keyIs(quoted []byte, key string) bool {
	body := quoted[1 : len(quoted)-1]
	for _, c := range body {
		if c == '\\' {
			var s string
			return json.Unmarshal(quoted, &s) == nil && s == key
		}
	}
	return string(body) == key
}
