package diff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// kind is the JSON kind of a node.
type kind int

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// node is one decoded JSON value. Objects keep their keys in the order the
// server sent them, so that reports follow the schema's own order.
type node struct {
	kind  kind
	b     bool
	num   string // the number as written
	str   string
	items []*node
	keys  []string
	vals  map[string]*node
}

// get returns the member key of an object node, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	return n.vals[key]
}

// stringValue returns the string of a string node, or "".
func (n *node) stringValue() string {
	if n == nil || n.kind != kString {
		return ""
	}
	return n.str
}

// has reports whether an object node has the member key.
func (n *node) has(key string) bool { return n.get(key) != nil }

// set adds or replaces a member of an object node, keeping the first
// position of a key.
func (n *node) set(key string, v *node) {
	if _, ok := n.vals[key]; !ok {
		n.keys = append(n.keys, key)
	}
	n.vals[key] = v
}

func newObject() *node { return &node{kind: kObject, vals: map[string]*node{}} }

// parse decodes one JSON value, keeping object key order. A repeated key
// keeps its first position and its last value, as encoding/json would.
func parse(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, fmt.Errorf("unexpected data after the JSON value at offset %d", dec.InputOffset())
		}
		return nil, err
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, errors.New("unexpected end of JSON input")
	}
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: kNull}, nil
	case bool:
		return &node{kind: kBool, b: t}, nil
	case json.Number:
		return &node{kind: kNumber, num: string(t)}, nil
	case string:
		return &node{kind: kString, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			n := &node{kind: kArray}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		case '{':
			n := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is not a string at offset %d", dec.InputOffset())
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		}
	}
	return nil, fmt.Errorf("unexpected token %v at offset %d", tok, dec.InputOffset())
}

// rat returns the value of a number node; ok is false for any other node.
func (n *node) rat() (r *big.Rat, ok bool) {
	if n == nil || n.kind != kNumber {
		return nil, false
	}
	return new(big.Rat).SetString(n.num)
}

// canon returns a canonical text of n: object keys sorted, numbers normalized
// (1, 1.0 and 1e0 are the same), no whitespace. Two values are semantically
// equal exactly when their canonical texts are equal.
func canon(n *node) string {
	var b strings.Builder
	writeCanon(&b, n)
	return b.String()
}

func writeCanon(b *strings.Builder, n *node) {
	if n == nil {
		b.WriteString("null")
		return
	}
	switch n.kind {
	case kNull:
		b.WriteString("null")
	case kBool:
		if n.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case kNumber:
		if r, ok := n.rat(); ok {
			b.WriteString(r.RatString())
		} else {
			b.WriteString(n.num)
		}
	case kString:
		writeString(b, n.str)
	case kArray:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanon(b, it)
		}
		b.WriteByte(']')
	case kObject:
		keys := append([]string(nil), n.keys...)
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCanon(b, n.vals[k])
		}
		b.WriteByte('}')
	}
}

// compact returns n as compact JSON text in its original key order, the form
// reports show values in.
func compact(n *node) string {
	var b strings.Builder
	writeCompact(&b, n)
	return b.String()
}

func writeCompact(b *strings.Builder, n *node) {
	if n == nil {
		return
	}
	switch n.kind {
	case kArray:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompact(b, it)
		}
		b.WriteByte(']')
	case kObject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCompact(b, n.vals[k])
		}
		b.WriteByte('}')
	case kNumber:
		b.WriteString(n.num)
	default:
		writeCanon(b, n)
	}
}

func writeString(b *strings.Builder, s string) {
	enc, _ := json.Marshal(s) // marshaling a string cannot fail
	b.Write(enc)
}

// equal reports whether a and b are semantically equal JSON values.
func equal(a, b *node) bool {
	if a == nil || b == nil {
		return a == b
	}
	return canon(a) == canon(b)
}

// tree returns n as a jsontree node.
func (n *node) tree() *jsontree.Node {
	t := &jsontree.Node{Bool: n.b}
	switch n.kind {
	case kNull:
		t.Kind = jsontree.Null
	case kBool:
		t.Kind = jsontree.Bool
	case kNumber:
		t.Kind, t.Str = jsontree.Number, n.num
	case kString:
		t.Kind, t.Str = jsontree.String, n.str
	case kArray:
		t.Kind = jsontree.Array
		for _, it := range n.items {
			t.Items = append(t.Items, it.tree())
		}
	case kObject:
		t.Kind = jsontree.Object
		for _, k := range n.keys {
			t.Members = append(t.Members, jsontree.Member{Key: k, Value: n.vals[k].tree()})
		}
	}
	return t
}

// lookupPointer resolves an RFC 6901 JSON pointer (without the leading '#')
// inside root.
func lookupPointer(root *node, ptr string) (*node, bool) {
	if ptr == "" {
		return root, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case cur == nil:
			return nil, false
		case cur.kind == kObject:
			cur = cur.vals[tok]
		case cur.kind == kArray:
			i, ok := arrayIndex(tok)
			if !ok || i >= len(cur.items) {
				return nil, false
			}
			cur = cur.items[i]
		default:
			return nil, false
		}
	}
	return cur, cur != nil
}

func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 9 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	i := 0
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
	}
	return i, true
}
