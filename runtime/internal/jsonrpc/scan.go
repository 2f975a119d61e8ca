// Package jsonrpc holds the JSON-RPC 2.0 wire code of the MCP client: a small
// allocation-free scanner over JSON text, the decoding of incoming message
// envelopes, the appending encoders for outgoing messages, and the recovery of
// a request id from the ends of a message too large to read whole.
//
// Nothing here decodes into map[string]any: values are handed out as slices
// of the input, which the caller owns.
package jsonrpc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects the scanner follows, so
// that hostile input cannot exhaust the stack.
const maxDepth = 10000

// errSyntax is returned for malformed JSON; errDepth for nesting beyond
// maxDepth.
var (
	errSyntax    = errors.New("malformed JSON")
	errDepth     = errors.New("JSON nested too deeply")
	errTruncated = errors.New("truncated JSON")
)

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// TrimSpace returns data without leading and trailing JSON whitespace.
func TrimSpace(data []byte) []byte {
	i := skipSpace(data, 0)
	j := len(data)
	for j > i && isSpace(data[j-1]) {
		j--
	}
	return data[i:j]
}

// SkipValue returns the index just past the JSON value that starts at
// data[i], which must not be whitespace.
func SkipValue(data []byte, i int) (int, error) {
	return skipValue(data, i, 0)
}

func skipValue(data []byte, i, depth int) (int, error) {
	if i >= len(data) {
		return i, errTruncated
	}
	switch c := data[i]; {
	case c == '"':
		return skipString(data, i)
	case c == '{':
		if depth >= maxDepth {
			return i, errDepth
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(data) {
				return i, errTruncated
			}
			if data[i] != '"' {
				return i, errSyntax
			}
			var err error
			if i, err = skipString(data, i); err != nil {
				return i, err
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, errTruncated
			}
			if data[i] != ':' {
				return i, errSyntax
			}
			i = skipSpace(data, i+1)
			if i, err = skipValue(data, i, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, errTruncated
			}
			switch data[i] {
			case ',':
				i = skipSpace(data, i+1)
			case '}':
				return i + 1, nil
			default:
				return i, errSyntax
			}
		}
	case c == '[':
		if depth >= maxDepth {
			return i, errDepth
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = skipValue(data, i, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, errTruncated
			}
			switch data[i] {
			case ',':
				i = skipSpace(data, i+1)
			case ']':
				return i + 1, nil
			default:
				return i, errSyntax
			}
		}
	case c == 't':
		return skipLiteral(data, i, "true")
	case c == 'f':
		return skipLiteral(data, i, "false")
	case c == 'n':
		return skipLiteral(data, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(data, i)
	}
	return i, errSyntax
}

func skipLiteral(data []byte, i int, lit string) (int, error) {
	if len(data)-i < len(lit) {
		if string(data[i:]) == lit[:len(data)-i] {
			return len(data), errTruncated
		}
		return i, errSyntax
	}
	if string(data[i:i+len(lit)]) != lit {
		return i, errSyntax
	}
	return i + len(lit), nil
}

// skipNumber follows the JSON number grammar:
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func skipNumber(data []byte, i int) (int, error) {
	start := i
	if data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(data) && data[i] == '0' {
		i++
	} else if digits() == 0 {
		return numberEnd(data, i, start)
	}
	if i < len(data) && data[i] == '.' {
		i++
		if digits() == 0 {
			return numberEnd(data, i, start)
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return numberEnd(data, i, start)
		}
	}
	return i, nil
}

// numberEnd reports a number cut short: truncated at the end of data,
// malformed otherwise.
func numberEnd(data []byte, i, start int) (int, error) {
	if i == len(data) {
		return i, errTruncated
	}
	return start, errSyntax
}

// skipString returns the index just past the string that starts at data[i].
func skipString(data []byte, i int) (int, error) {
	i++
	for i < len(data) {
		if i = skipPlain(data, i); i >= len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(data) {
				return len(data), errTruncated
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(data) {
						return len(data), errTruncated
					}
					if !isHex(data[k]) {
						return k, errSyntax
					}
				}
				i += 6
			default:
				return i, errSyntax
			}
		case c < 0x20:
			return i, errSyntax
		default:
			i++
		}
	}
	return len(data), errTruncated
}

// ObjectEach calls fn for each member of the JSON object data, in order. key
// is the member name as raw string content (still escaped when escaped is
// true) and value the member's raw JSON value. Iteration stops at the first
// error fn returns.
func ObjectEach(data []byte, fn func(key []byte, escaped bool, value []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errors.New("expected a JSON object")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return checkTrailing(data, i+1)
	}
	for {
		if i >= len(data) {
			return errTruncated
		}
		if data[i] != '"' {
			return errSyntax
		}
		end, err := skipString(data, i)
		if err != nil {
			return err
		}
		key := data[i+1 : end-1]
		escaped := indexByte(key, '\\') >= 0
		i = skipSpace(data, end)
		if i >= len(data) {
			return errTruncated
		}
		if data[i] != ':' {
			return errSyntax
		}
		i = skipSpace(data, i+1)
		start := i
		if i, err = skipValue(data, i, 1); err != nil {
			return err
		}
		if err := fn(key, escaped, data[start:i]); err != nil {
			return err
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return errTruncated
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return checkTrailing(data, i+1)
		default:
			return errSyntax
		}
	}
}

// ArrayEach calls fn for each element of the JSON array data, in order.
func ArrayEach(data []byte, fn func(value []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return errors.New("expected a JSON array")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return checkTrailing(data, i+1)
	}
	for {
		start := i
		var err error
		if i, err = skipValue(data, i, 1); err != nil {
			return err
		}
		if err := fn(data[start:i]); err != nil {
			return err
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return errTruncated
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return checkTrailing(data, i+1)
		default:
			return errSyntax
		}
	}
}

func checkTrailing(data []byte, i int) error {
	if skipSpace(data, i) != len(data) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

func indexByte(b []byte, c byte) int { return bytes.IndexByte(b, c) }

// Eight bytes at a time: a string's content is mostly plain bytes, and a
// large text result is a megabyte of them.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special reports whether one of the eight bytes of x is a quote, a
// backslash or a control character. It never misses one; it may report one
// that is not there only when another byte is one.
func special(x uint64) bool {
	q, b := x^(ones*'"'), x^(ones*'\\')
	return ((x-ones*0x20)&^x|(q-ones)&^q|(b-ones)&^b)&highs != 0
}

// skipPlain returns the index, from i, of the first eight-byte word of data
// that may hold a byte special inside a string, or of the last short word.
func skipPlain(data []byte, i int) int {
	for i+8 <= len(data) && !special(binary.LittleEndian.Uint64(data[i:])) {
		i += 8
	}
	return i
}

// hasControl reports whether b holds a byte below 0x20.
func hasControl(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if (x-ones*0x20)&^x&highs != 0 {
			return true
		}
	}
	for _, c := range b[i:] {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// KeyIs reports whether an object key as ObjectEach reports it equals name.
func KeyIs(key []byte, escaped bool, name string) bool {
	if !escaped {
		return string(key) == name
	}
	s, err := unquoteContent(key)
	return err == nil && s == name
}

// Key returns an object key as ObjectEach reports it, unescaped.
func Key(key []byte, escaped bool) ([]byte, error) {
	if !escaped {
		return key, nil
	}
	s, err := unquoteContent(key)
	return []byte(s), err
}

// String decodes the JSON string value v.
func String(v []byte) (string, error) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", errors.New("expected a JSON string")
	}
	return unquoteContent(v[1 : len(v)-1])
}

// unquoteContent decodes the content of a JSON string (without the quotes).
// The fast path, with no escapes and valid UTF-8, makes one allocation.
func unquoteContent(b []byte) (string, error) {
	if indexByte(b, '\\') < 0 && utf8.Valid(b) {
		if hasControl(b) {
			return "", errSyntax
		}
		return string(b), nil
	}
	q := make([]byte, 0, len(b)+2)
	q = append(q, '"')
	q = append(q, b...)
	q = append(q, '"')
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return "", err
	}
	return s, nil
}

// Bool decodes the JSON value v as a boolean; null is false.
func Bool(v []byte) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false", "null":
		return false, nil
	}
	return false, errors.New("expected a JSON boolean")
}

// Int parses v as a JSON integer. A JSON string is not one, even when it
// holds digits: the request id "2" is not the request id 2. Nor is an
// integer beyond an int64, such as 9223372036854775808.
func Int(v []byte) (int64, bool) {
	neg := len(v) > 1 && v[0] == '-'
	digits := v
	if neg {
		digits = v[1:]
	}
	if len(digits) == 0 || len(digits) > 19 {
		return 0, false
	}
	// 19 digits are less than 10^19, which a uint64 holds.
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg && n > 1<<63, !neg && n > math.MaxInt64:
		return 0, false
	case neg:
		return -int64(n), true
	}
	return int64(n), true
}

// Float parses v as a JSON number.
func Float(v []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// IsNull reports whether v is the JSON literal null.
func IsNull(v []byte) bool { return string(v) == "null" }
