// Package jsontree owns the module's order-preserving JSON tree: parsing a
// document into Nodes, reading and editing them, resolving JSON pointers,
// comparing values as JSON Schema does, and encoding them back.
//
// encoding/json decodes objects into maps, which lose the order of keys; the
// generator needs that order for struct fields and the provider adapters need
// it to emit properties in the order the server sent them. Numbers keep their
// literal text, so a schema re-encodes exactly as it was written.
package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Kind is the JSON type of a Node.
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

// String returns the JSON Schema name of the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Node is one JSON value. Kind tells which of the other fields is meaningful.
type Node struct {
	Kind Kind
	// Bool is the value of a boolean.
	Bool bool
	// Str is the value of a string, or the literal text of a number.
	Str string
	// Items are the elements of an array.
	Items []*Node
	// Members are the members of an object, in document order.
	Members []Member
}

// Member is one key and value of an object.
type Member struct {
	Key   string
	Value *Node
}

// SyntaxError is malformed JSON, located by line and column (both from 1).
type SyntaxError struct {
	Line, Column int
	Msg          string
}

// Error returns the position as "line:column: " followed by the message.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// MaxDepth is the deepest nesting ParseUnique accepts.
const MaxDepth = 1000

// Parse parses one JSON document, keeping every object member as written.
// Numbers beyond the range of a float64 are rejected. Malformed input gives
// a *SyntaxError, located by line and column; an object that repeats a key
// gives a *DuplicateKeyError (see CheckUniqueKeys), since readers of such a
// document disagree on which value the key has.
func Parse(data []byte) (*Node, error) {
	if n, ok := parseFast(data, false); ok {
		return n, nil
	}
	return decodeParse(data)
}

// decodeParse is Parse through encoding/json: slower, as it reads the text
// three times, but it locates every error as encoding/json finds it.
func decodeParse(data []byte) (*Node, error) {
	if err := checkSyntax(data); err != nil {
		return nil, err
	}
	if err := CheckUniqueKeys(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec, false, 0)
	if err != nil {
		return nil, locate(data, dec.InputOffset(), err.Error())
	}
	return n, nil
}

// ParseUnique parses one JSON document as encoding/json with UseNumber sees
// it: any number literal is accepted, and when an object repeats a key, the
// last value wins, in the position of the first. Documents nested deeper
// than MaxDepth are rejected. Errors are encoding/json's own, unlocated. It
// suits code that rewrites a document and encodes it again.
func ParseUnique(data []byte) (*Node, error) {
	if n, ok := parseFast(data, true); ok {
		return n, nil
	}
	return decodeParseUnique(data)
}

// decodeParseUnique is ParseUnique through encoding/json's Decoder, which
// gives its errors.
func decodeParseUnique(data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec, true, 0)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return n, nil
}

// checkSyntax reports malformed JSON, and numbers that do not fit a
// float64, with their position.
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

// parseValue reads one value from dec. With unique set, it merges repeated
// keys and rejects nesting deeper than MaxDepth.
func parseValue(dec *json.Decoder, unique bool, depth int) (*Node, error) {
	if unique && depth > MaxDepth {
		return nil, fmt.Errorf("JSON nesting exceeds %d levels", MaxDepth)
	}
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &Node{Kind: Null}, nil
	case bool:
		return &Node{Kind: Bool, Bool: t}, nil
	case json.Number:
		return &Node{Kind: Number, Str: string(t)}, nil
	case string:
		return &Node{Kind: String, Str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			n := &Node{Kind: Array, Items: []*Node{}}
			for dec.More() {
				item, err := parseValue(dec, unique, depth+1)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, item)
			}
			_, err := dec.Token()
			return n, err
		case '{':
			n := &Node{Kind: Object, Members: []Member{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %v, not a string", kt)
				}
				val, err := parseValue(dec, unique, depth+1)
				if err != nil {
					return nil, err
				}
				if unique {
					n.Set(key, val)
				} else {
					n.Members = append(n.Members, Member{Key: key, Value: val})
				}
			}
			_, err := dec.Token()
			return n, err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// Get returns the value of key in an object, or nil when n is not an object
// or has no such key. When a key appears more than once, the last one wins,
// as in encoding/json.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Value
		}
	}
	return nil
}

// Has reports whether n is an object with the member key.
func (n *Node) Has(key string) bool { return n.Get(key) != nil }

// Keys returns the keys of an object in document order, without duplicates.
func (n *Node) Keys() []string {
	if n == nil || n.Kind != Object {
		return nil
	}
	seen := make(map[string]bool, len(n.Members))
	keys := make([]string, 0, len(n.Members))
	for _, m := range n.Members {
		if !seen[m.Key] {
			seen[m.Key] = true
			keys = append(keys, m.Key)
		}
	}
	return keys
}

// Set replaces the value of key in an object, or appends the member.
func (n *Node) Set(key string, v *Node) {
	for i := range n.Members {
		if n.Members[i].Key == key {
			n.Members[i].Value = v
			return
		}
	}
	n.Members = append(n.Members, Member{Key: key, Value: v})
}

// Delete removes every member named key from an object.
func (n *Node) Delete(key string) {
	out := make([]Member, 0, len(n.Members))
	for _, m := range n.Members {
		if m.Key != key {
			out = append(out, m)
		}
	}
	n.Members = out
}

// Without returns a shallow copy of the object n without the given members.
func (n *Node) Without(keys ...string) *Node {
	c := &Node{Kind: Object, Members: make([]Member, 0, len(n.Members))}
outer:
	for _, m := range n.Members {
		for _, k := range keys {
			if m.Key == k {
				continue outer
			}
		}
		c.Members = append(c.Members, m)
	}
	return c
}

// Clone returns a deep copy of n.
func (n *Node) Clone() *Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Items != nil {
		c.Items = make([]*Node, len(n.Items))
		for i, v := range n.Items {
			c.Items[i] = v.Clone()
		}
	}
	if n.Members != nil {
		c.Members = make([]Member, len(n.Members))
		for i, m := range n.Members {
			c.Members[i] = Member{Key: m.Key, Value: m.Value.Clone()}
		}
	}
	return &c
}

// StringValue returns the string of a String node and whether n is one.
func (n *Node) StringValue() (string, bool) {
	if n == nil || n.Kind != String {
		return "", false
	}
	return n.Str, true
}

// Float returns the value of a Number node and whether n is a finite one.
func (n *Node) Float() (float64, bool) {
	if n == nil || n.Kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.Str, 64)
	return f, err == nil
}

// Int returns the value of a Number node that holds a non-negative integer
// small enough for int64, exactly.
func (n *Node) Int() (int64, bool) {
	if n == nil || n.Kind != Number {
		return 0, false
	}
	i, ok := Int64(n.Str)
	if !ok || i < 0 {
		return 0, false
	}
	return i, true
}

// Interface returns n as encoding/json would decode it into an any, with
// numbers as json.Number and objects as map[string]any.
func (n *Node) Interface() any {
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		return json.Number(n.Str)
	case String:
		return n.Str
	case Array:
		out := make([]any, len(n.Items))
		for i, v := range n.Items {
			out[i] = v.Interface()
		}
		return out
	case Object:
		out := make(map[string]any, len(n.Members))
		for _, m := range n.Members {
			out[m.Key] = m.Value.Interface()
		}
		return out
	}
	return nil
}

// Lookup resolves an RFC 6901 JSON pointer within n. A leading "#" (a URI
// fragment) is accepted, and percent-escapes after it are decoded. Array
// indexes must be written without leading zeros or signs.
func (n *Node) Lookup(pointer string) (*Node, error) {
	p := pointer
	if strings.HasPrefix(p, "#") {
		p = p[1:]
		if strings.Contains(p, "%") {
			if u, err := unescapePercent(p); err == nil {
				p = u
			}
		}
	}
	if p == "" {
		return n, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer", pointer)
	}
	cur := n
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case cur == nil:
			return nil, fmt.Errorf("%q does not resolve: no member %q", pointer, tok)
		case cur.Kind == Object:
			next := cur.Get(tok)
			if next == nil {
				return nil, fmt.Errorf("%q does not resolve: no member %q", pointer, tok)
			}
			cur = next
		case cur.Kind == Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Items) || strconv.Itoa(i) != tok {
				return nil, fmt.Errorf("%q does not resolve: no item %q", pointer, tok)
			}
			cur = cur.Items[i]
		default:
			return nil, fmt.Errorf("%q does not resolve: %s has no member %q", pointer, cur.Kind, tok)
		}
	}
	return cur, nil
}

func unescapePercent(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", errors.New("bad percent-escape")
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", err
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// EscapeToken escapes one JSON pointer reference token (RFC 6901). A token
// without "~" or "/" is returned as it is, without allocating.
func EscapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Equal reports whether a and b are the same JSON value, as JSON Schema's
// const and enum compare them: numbers by value, objects regardless of key
// order.
func Equal(a, b *Node) bool {
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
	c, ok := CompareNumbers(a, b)
	return ok && c == 0
}

// Canonical returns a text of n that two values share exactly when Equal
// holds for them: object members sorted by key, numbers by value, no
// whitespace. It suits map keys; it is not meant to be read.
func Canonical(n *Node) string {
	var b strings.Builder
	n.canonical(&b)
	return b.String()
}

func (n *Node) canonical(b *strings.Builder) {
	if n == nil {
		b.WriteString("null")
		return
	}
	switch n.Kind {
	case Number:
		b.WriteString(canonicalNumber(n.Str))
	case Array:
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.canonical(b)
		}
		b.WriteByte(']')
	case Object:
		keys := n.Keys()
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			n.Get(k).canonical(b)
		}
		b.WriteByte('}')
	default:
		n.encode(b, "", "")
	}
}

// String returns the compact JSON encoding of n, object members in order.
func (n *Node) String() string {
	var b strings.Builder
	n.encode(&b, "", "")
	return b.String()
}

// Indent returns the JSON encoding of n indented like json.MarshalIndent.
func (n *Node) Indent(prefix, indent string) string {
	var b strings.Builder
	n.encode(&b, "\n"+prefix, indent)
	return b.String()
}

// MarshalJSON encodes n compactly, keeping member order.
func (n *Node) MarshalJSON() ([]byte, error) { return []byte(n.String()), nil }

func (n *Node) encode(b *strings.Builder, nl, indent string) {
	if n == nil {
		b.WriteString("null")
		return
	}
	switch n.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(n.Bool))
	case Number:
		b.WriteString(n.Str)
	case String:
		writeString(b, n.Str)
	case Array:
		if len(n.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, it := range n.Items {
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
		if len(n.Members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range n.Members {
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
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}
