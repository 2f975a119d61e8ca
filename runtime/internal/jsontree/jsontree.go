// Package jsontree holds JSON documents as trees that keep the order of object
// members, so that the provider adapters can rewrite a tool's JSON Schema and
// still emit its properties in the order the server sent them.
package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Kind is the JSON kind of a Node.
type Kind int

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String returns the JSON Schema name of the kind.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Node is one JSON value. Kind tells which of the other fields is meaningful.
type Node struct {
	Kind    Kind
	Bool    bool
	Num     json.Number
	Str     string
	Items   []*Node
	Members []Member
}

// Member is one member of an object, in document order.
type Member struct {
	Key   string
	Value *Node
}

// MaxDepth is the deepest nesting Parse accepts.
const MaxDepth = 1000

// Parse decodes one JSON value, keeping the order of object members. When an
// object repeats a key, the last value wins, in the position of the first.
func Parse(data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec, 0)
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

func parseValue(dec *json.Decoder, depth int) (*Node, error) {
	if depth > MaxDepth {
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
		return &Node{Kind: Number, Num: t}, nil
	case string:
		return &Node{Kind: String, Str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			n := &Node{Kind: Array, Items: []*Node{}}
			for dec.More() {
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
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
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// Get returns the value of an object member, or nil when n is not an object
// or has no such member.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := range n.Members {
		if n.Members[i].Key == key {
			return n.Members[i].Value
		}
	}
	return nil
}

// Has reports whether n is an object with the member key.
func (n *Node) Has(key string) bool { return n.Get(key) != nil }

// Set replaces the value of an object member, or appends the member.
func (n *Node) Set(key string, v *Node) {
	for i := range n.Members {
		if n.Members[i].Key == key {
			n.Members[i].Value = v
			return
		}
	}
	n.Members = append(n.Members, Member{Key: key, Value: v})
}

// Delete removes an object member, if present.
func (n *Node) Delete(key string) {
	for i := range n.Members {
		if n.Members[i].Key == key {
			n.Members = append(n.Members[:i:i], n.Members[i+1:]...)
			return
		}
	}
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
	f, err := strconv.ParseFloat(string(n.Num), 64)
	return f, err == nil
}

// Int returns the value of a Number node that holds a non-negative integer
// small enough for int64.
func (n *Node) Int() (int64, bool) {
	f, ok := n.Float()
	if !ok || f < 0 || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

// MarshalJSON encodes n compactly, object members in order.
func (n *Node) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	n.write(&b)
	return b.Bytes(), nil
}

// JSON returns the compact encoding of n.
func (n *Node) JSON() string {
	var b bytes.Buffer
	n.write(&b)
	return b.String()
}

func (n *Node) write(b *bytes.Buffer) {
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
		b.WriteString(string(n.Num))
	case String:
		writeString(b, n.Str)
	case Array:
		b.WriteByte('[')
		for i, v := range n.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			v.write(b)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, m := range n.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.Key)
			b.WriteByte(':')
			m.Value.write(b)
		}
		b.WriteByte('}')
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}

// Interface returns n as encoding/json would decode it into an any, with
// numbers as json.Number and objects as map[string]any.
func (n *Node) Interface() any {
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		return n.Num
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

// Equal reports whether a and b are the same JSON value. Numbers compare by
// value and object members regardless of order.
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
		fa, oka := a.Float()
		fb, okb := b.Float()
		if oka && okb {
			return fa == fb
		}
		return a.Num == b.Num
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
	case Object:
		if len(a.Members) != len(b.Members) {
			return false
		}
		for _, m := range a.Members {
			if !Equal(m.Value, b.Get(m.Key)) {
				return false
			}
		}
		return true
	}
	return false
}

// Lookup resolves a JSON pointer (RFC 6901) within n. A leading "#" (a URI
// fragment) is accepted, and percent-escapes in it are decoded.
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
		switch cur.Kind {
		case Object:
			next := cur.Get(tok)
			if next == nil {
				return nil, fmt.Errorf("%q does not resolve: no member %q", pointer, tok)
			}
			cur = next
		case Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Items) {
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
