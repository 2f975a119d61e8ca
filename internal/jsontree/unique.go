package jsontree

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// DuplicateKeyError is an object that names the same key twice. Decoders
// disagree on which of the two values counts (encoding/json and the JSON
// Schema validator take the last, code that walks the members takes the
// first), so mcpgen refuses such documents instead of picking one.
type DuplicateKeyError struct {
	// Pointer is the JSON pointer of the second occurrence of the key.
	Pointer string
	// Key is the repeated key, unescaped.
	Key string
}

// Error says which key is repeated, without the pointer, which callers
// place with their own context.
func (e *DuplicateKeyError) Error() string {
	return "the object repeats the key " + strconv.Quote(e.Key) + ", and readers disagree on which value counts"
}

// maxKeyScanDepth bounds the nesting CheckUniqueKeys follows; encoding/json
// refuses deeper documents anyway.
const maxKeyScanDepth = 10000

// smallObject is the member count up to which keys are compared pairwise;
// larger objects use a map, so that a hostile object with many keys costs
// linear time.
const smallObject = 16

// CheckUniqueKeys reports the first object member of the JSON text data
// whose key an earlier member of the same object already has, as a
// *DuplicateKeyError. Keys are compared as decoded strings, so "a" and
// "\u0061" are the same key, and invalid UTF-8 counts as U+FFFD, as in
// encoding/json. Malformed JSON is not reported: the scan stops where the
// text stops making sense, leaving syntax errors to the parser. Well-formed text without escapes in its keys is checked without
// allocating, beyond a scratch list of keys for deeply nested objects.
func CheckUniqueKeys(data []byte) error {
	s := scanners.Get().(*keyScanner)
	s.data = data
	s.value(skipWS(data, 0), 0)
	dup := s.dup
	if dup != nil {
		dup.Pointer = s.pointer()
	}
	// Keep no part of data, and no scratch list grown by a deep document.
	clear(s.keys[:cap(s.keys)])
	if cap(s.keys) <= maxPooledKeys {
		*s = keyScanner{keys: s.keys[:0]}
		scanners.Put(s)
	}
	if dup == nil {
		return nil
	}
	return dup
}

// scanners holds keyScanners for reuse: a scanner's scratch list of keys,
// which the recursive scan keeps on the heap, is then allocated once
// rather than on every call (generated code checks every object it
// decodes).
var scanners = sync.Pool{New: func() any { return &keyScanner{keys: make([][]byte, 0, 32)} }}

// maxPooledKeys is the capacity of the scratch list of keys beyond which a
// scanner is not reused.
const maxPooledKeys = 1024

type keyScanner struct {
	data []byte
	// keys holds the keys of the objects being scanned, innermost last.
	keys [][]byte
	dup  *DuplicateKeyError
	// path holds the reference tokens of the duplicate, innermost first,
	// filled in while the scan unwinds.
	path []string
}

func skipWS(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// value scans the value at data[i] and returns the index just past it, or
// -1 when the text is malformed or a duplicate was found.
func (s *keyScanner) value(i, depth int) int {
	d := s.data
	if i >= len(d) || depth > maxKeyScanDepth {
		return -1
	}
	switch d[i] {
	case '{':
		return s.object(i, depth)
	case '[':
		i = skipWS(d, i+1)
		if i < len(d) && d[i] == ']' {
			return i + 1
		}
		for n := 0; ; n++ {
			if i = s.value(i, depth+1); i < 0 {
				if s.dup != nil {
					s.path = append(s.path, strconv.Itoa(n))
				}
				return -1
			}
			i = skipWS(d, i)
			if i >= len(d) {
				return -1
			}
			switch d[i] {
			case ',':
				i = skipWS(d, i+1)
			case ']':
				return i + 1
			default:
				return -1
			}
		}
	case '"':
		end, _ := stringEnd(d, i)
		return end
	default:
		// A number or a literal: it ends at a delimiter.
		for i < len(d) && !strings.ContainsRune(",:]} \t\r\n\"[{", rune(d[i])) {
			i++
		}
		return i
	}
}

func (s *keyScanner) object(i, depth int) int {
	d := s.data
	first := len(s.keys)
	defer func() { s.keys = s.keys[:first] }()
	var index map[string]bool
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return -1
		}
		end, escaped := stringEnd(d, i)
		if end < 0 {
			return -1
		}
		key := d[i+1 : end-1]
		if escaped || !utf8.Valid(key) {
			key = decodeKey(d[i:end])
		}
		own := s.keys[first:]
		seen := false
		switch {
		case index != nil:
			seen = index[string(key)]
			index[string(key)] = true
		case len(own) < smallObject:
			for _, k := range own {
				if bytes.Equal(k, key) {
					seen = true
					break
				}
			}
		default:
			index = make(map[string]bool, 2*len(own))
			for _, k := range own {
				index[string(k)] = true
			}
			seen = index[string(key)]
			index[string(key)] = true
		}
		if seen {
			s.dup = &DuplicateKeyError{Key: string(key)}
			s.path = append(s.path, string(key))
			return -1
		}
		if index == nil {
			s.keys = append(s.keys, key)
		}
		i = skipWS(d, end)
		if i >= len(d) || d[i] != ':' {
			return -1
		}
		if i = s.value(skipWS(d, i+1), depth+1); i < 0 {
			if s.dup != nil {
				s.path = append(s.path, string(key))
			}
			return -1
		}
		i = skipWS(d, i)
		if i >= len(d) {
			return -1
		}
		switch d[i] {
		case ',':
			i = skipWS(d, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// stringEnd returns the index just past the string starting at data[i],
// or -1 if it does not end, and whether it holds escapes.
func stringEnd(data []byte, i int) (int, bool) {
	escaped := false
	for i++; i < len(data); i++ {
		switch data[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			i++
		}
	}
	return -1, escaped
}

// decodeKey decodes a quoted JSON string as encoding/json does; text it
// cannot decode is kept as it is.
func decodeKey(quoted []byte) []byte {
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return quoted
	}
	return []byte(s)
}

// pointer returns the JSON pointer of the duplicate key, built from the
// path recorded while the scan unwound.
func (s *keyScanner) pointer() string {
	var b strings.Builder
	for i := len(s.path) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(EscapeToken(s.path[i]))
	}
	return b.String()
}
