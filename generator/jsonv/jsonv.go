// Package jsonv is an order-preserving JSON tree for the generator.
//
// encoding/json decodes objects into maps, which lose the order of keys; the
// generator needs that order for struct fields and Gemini property ordering,
// so schemas are parsed into Values instead. Numbers keep their literal text.
package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one JSON value.
type Value struct {
	Kind Kind
	// Bool is the value of a boolean.
	Bool bool
	// Str is the value of a string, or the literal text of a number.
	Str string
	// Items are the elements of an array.
	Items []*Value
	// Members are the members of an object, in document order.
	Members []Member
}

// Member is one key and value of an object.
type Member struct {
	Key   string
	Value *Value
}

// SyntaxError is malformed JSON, located by line and column (both from 1).
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// Parse parses one JSON document. Malformed input gives a *SyntaxError.
func Parse(data []byte) (*Value, error) {
	if err := checkSyntax(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, locate(data, dec.InputOffset(), err.Error())
	}
	return v, nil
}

// checkSyntax reports malformed JSON with its position.
func checkSyntax(data []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, the offending one included.
			return locate(data, se.Offset-1, se.Error())
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return locate(data, int64(len(data)), "unexpected end of JSON input")
		}
		return locate(data, dec.InputOffset(), err.Error())
	}
	off := dec.InputOffset()
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	if off < int64(len(data)) {
		return locate(data, off, "unexpected data after the JSON value")
	}
	return nil
}

// locate returns a *SyntaxError at the byte with index idx (len(data) for
// the end of the input).
func locate(data []byte, idx int64, msg string) *SyntaxError {
	idx = max(0, min(idx, int64(len(data))))
	prefix := data[:idx]
	line := bytes.Count(prefix, []byte{'\n'}) + 1
	col := int(idx) - (bytes.LastIndexByte(prefix, '\n') + 1) + 1
	return &SyntaxError{Line: line, Column: col, Msg: msg}
}

func parseValue(dec *json.Decoder) (*Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	return fromToken(dec, tok)
}

func fromToken(dec *json.Decoder, tok json.Token) (*Value, error) {
	switch t := tok.(type) {
	case nil:
		return &Value{Kind: Null}, nil
	case bool:
		return &Value{Kind: Bool, Bool: t}, nil
	case json.Number:
		return &Value{Kind: Number, Str: string(t)}, nil
	case string:
		return &Value{Kind: String, Str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &Value{Kind: Array, Items: []*Value{}}
			for dec.More() {
				item, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				v.Items = append(v.Items, item)
			}
			_, err := dec.Token()
			return v, err
		case '{':
			v := &Value{Kind: Object, Members: []Member{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				val, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				v.Members = append(v.Members, Member{Key: key, Value: val})
			}
			_, err := dec.Token()
			return v, err
		}
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// Get returns the value of key in an object, or nil when v is not an object
// or has no such key. When a key appears more than once, the last one wins,
// as in encoding/json.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Has reports whether the object v has key.
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// Keys returns the keys of an object in document order, without duplicates.
func (v *Value) Keys() []string {
	if v == nil || v.Kind != Object {
		return nil
	}
	seen := make(map[string]bool, len(v.Members))
	keys := make([]string, 0, len(v.Members))
	for _, m := range v.Members {
		if !seen[m.Key] {
			seen[m.Key] = true
			keys = append(keys, m.Key)
		}
	}
	return keys
}

// Resolve follows an RFC 6901 JSON pointer from v. It returns nil when the
// pointer does not resolve.
func (v *Value) Resolve(pointer string) *Value {
	if pointer == "" {
		return v
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil
	}
	cur := v
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case cur == nil:
			return nil
		case cur.Kind == Object:
			cur = cur.Get(tok)
		case cur.Kind == Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Items) || strconv.Itoa(i) != tok {
				return nil
			}
			cur = cur.Items[i]
		default:
			return nil
		}
	}
	return cur
}

// String returns the compact JSON encoding of v.
func (v *Value) String() string {
	var b strings.Builder
	v.encode(&b, "", "")
	return b.String()
}

// Indent returns the JSON encoding of v indented like json.MarshalIndent.
func (v *Value) Indent(prefix, indent string) string {
	var b strings.Builder
	v.encode(&b, "\n"+prefix, indent)
	return b.String()
}

// MarshalJSON encodes v compactly, keeping key order.
func (v *Value) MarshalJSON() ([]byte, error) { return []byte(v.String()), nil }

func (v *Value) encode(b *strings.Builder, nl, indent string) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case Number:
		b.WriteString(v.Str)
	case String:
		writeString(b, v.Str)
	case Array:
		if len(v.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			if indent != "" {
				b.WriteString(nl + indent)
			}
			it.encode(b, nl+indent, indent)
		}
		if indent != "" {
			b.WriteString(nl)
		}
		b.WriteByte(']')
	case Object:
		if len(v.Members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			if indent != "" {
				b.WriteString(nl + indent)
			}
			writeString(b, m.Key)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			m.Value.encode(b, nl+indent, indent)
		}
		if indent != "" {
			b.WriteString(nl)
		}
		b.WriteByte('}')
	}
}

func writeString(b *strings.Builder, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

// Equal reports whether a and b are the same JSON value, as JSON Schema's
// const and enum compare them: numbers by value, objects regardless of key
// order.
func Equal(a, b *Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.Bool == b.Bool
	case Number:
		return numEqual(a.Str, b.Str)
	case String:
		return a.Str == b.Str
	case Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !Equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	default:
		ka, kb := a.Keys(), b.Keys()
		if len(ka) != len(kb) {
			return false
		}
		for _, k := range ka {
			if !Equal(a.Get(k), b.Get(k)) {
				return false
			}
		}
		return true
	}
}

func numEqual(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := strconv.ParseFloat(a, 64)
	fb, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && fa == fb
}

// Clone returns a shallow copy of an object with its member slice copied, so
// that members can be added or removed without touching v.
func (v *Value) Clone() *Value {
	c := *v
	c.Members = append([]Member(nil), v.Members...)
	c.Items = append([]*Value(nil), v.Items...)
	return &c
}

// Set replaces key's value in an object, or appends it.
func (v *Value) Set(key string, val *Value) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members[i].Value = val
			return
		}
	}
	v.Members = append(v.Members, Member{Key: key, Value: val})
}

// Delete removes every member named key from an object.
func (v *Value) Delete(key string) {
	out := v.Members[:0]
	for _, m := range v.Members {
		if m.Key != key {
			out = append(out, m)
		}
	}
	v.Members = out
}

// EscapeToken escapes one JSON pointer reference token.
func EscapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
