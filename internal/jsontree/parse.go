package jsontree

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// maxNesting is the number of open arrays and objects encoding/json
// accepts.
const maxNesting = 10000

// parseFast reads a document in one pass and builds the tree Parse (or,
// with unique set, ParseUnique) gives. It accepts exactly the documents
// encoding/json does, under the same limits; on anything else (malformed
// text, a repeated key for Parse, a number beyond a float64 for Parse,
// nesting too deep) it gives up and returns false, leaving the error to the
// decoder-based path, which reads the document again and reports it.
func parseFast(data []byte, unique bool) (*Node, bool) {
	p := parser{data: data, unique: unique, maxDepth: MaxDepth}
	if !unique {
		// A value at depth d is inside d containers; a scalar at depth
		// maxNesting would be accepted too, but takes the slow path.
		p.maxDepth = maxNesting - 1
	}
	p.skipSpace()
	n, ok := p.value(0)
	p.skipSpace()
	return n, ok && p.i == len(data)
}

// parser is the state of parseFast. The items and members of the arrays
// and objects being read wait in shared stacks, so that each container
// gets a slice of its exact size.
type parser struct {
	data     []byte
	i        int
	unique   bool
	maxDepth int
	items    []*Node
	members  []Member
	// nodes are allocated Nodes not yet used.
	nodes []Node
}

// maxNodeBlock is the most Nodes the parser allocates at once.
const maxNodeBlock = 512

// node returns a new Node holding n. Nodes are allocated in blocks, of one
// Node for every 32 bytes of the text but at most maxNodeBlock, which costs
// far less than an allocation each; a block stays in memory as long as any
// of its Nodes is reachable.
func (p *parser) node(n Node) *Node {
	if len(p.nodes) == 0 {
		p.nodes = make([]Node, min(len(p.data)/32+1, maxNodeBlock))
	}
	p.nodes[0] = n
	x := &p.nodes[0]
	p.nodes = p.nodes[1:]
	return x
}

func (p *parser) skipSpace() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// next skips white space and returns the byte that follows, 0 at the end.
func (p *parser) next() byte {
	p.skipSpace()
	if p.i < len(p.data) {
		return p.data[p.i]
	}
	return 0
}

// value reads the value at p.i, at the given depth (0 for the document).
func (p *parser) value(depth int) (*Node, bool) {
	if depth > p.maxDepth || p.i >= len(p.data) {
		return nil, false
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, ok := p.string()
		return p.node(Node{Kind: String, Str: s}), ok
	case c == 't':
		return p.node(Node{Kind: Bool, Bool: true}), p.literal("true")
	case c == 'f':
		return p.node(Node{Kind: Bool}), p.literal("false")
	case c == 'n':
		return p.node(Node{Kind: Null}), p.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		s, ok := p.number()
		return p.node(Node{Kind: Number, Str: s}), ok
	}
	return nil, false
}

func (p *parser) literal(word string) bool {
	if len(p.data)-p.i < len(word) || string(p.data[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return true
}

func (p *parser) array(depth int) (*Node, bool) {
	p.i++ // [
	start := len(p.items)
	for c := p.next(); c != ']'; {
		item, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		p.items = append(p.items, item)
		if c, ok = p.comma(']'); !ok {
			return nil, false
		}
	}
	p.i++ // ]
	n := p.node(Node{Kind: Array, Items: make([]*Node, len(p.items)-start)})
	copy(n.Items, p.items[start:])
	p.items = p.items[:start]
	return n, true
}

func (p *parser) object(depth int) (*Node, bool) {
	p.i++ // {
	start := len(p.members)
	// index holds the positions of the keys in p.members[start:] once the
	// object has more than smallObject members, so that a hostile object
	// with many keys costs linear time.
	var index map[string]int
	c := p.next()
	for c != '}' {
		if c != '"' {
			return nil, false
		}
		key, ok := p.string()
		if !ok || p.next() != ':' {
			return nil, false
		}
		p.i++
		p.skipSpace()
		val, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		own := p.members[start:]
		at, seen := index[key]
		if index == nil {
			at, seen = memberIndex(own, key)
		}
		switch {
		case seen && !p.unique:
			return nil, false // Parse reports the repeated key
		case seen:
			own[at].Value = val // the last value wins, in the position of the first
		default:
			p.members = append(p.members, Member{Key: key, Value: val})
			if index != nil {
				index[key] = len(own)
			} else if len(own) == smallObject {
				index = make(map[string]int, 4*smallObject)
				for j, m := range p.members[start:] {
					index[m.Key] = j
				}
			}
		}
		if c, ok = p.comma('}'); !ok {
			return nil, false
		}
	}
	p.i++ // }
	n := p.node(Node{Kind: Object, Members: make([]Member, len(p.members)-start)})
	copy(n.Members, p.members[start:])
	p.members = p.members[:start]
	return n, true
}

// comma reads what follows a member or item: a comma and the start of the
// next one, or the closing bracket, which it does not consume. It returns
// that byte.
func (p *parser) comma(closing byte) (byte, bool) {
	switch c := p.next(); c {
	case ',':
		p.i++
		c = p.next()
		return c, c != closing
	case closing:
		return c, true
	}
	return 0, false
}

func memberIndex(members []Member, key string) (int, bool) {
	for i := range members {
		if members[i].Key == key {
			return i, true
		}
	}
	return 0, false
}

// string reads the string at p.i. Text without escapes that is valid UTF-8
// is taken as it is; other strings are decoded by encoding/json, which
// replaces invalid UTF-8 and lone surrogates with U+FFFD.
func (p *parser) string() (string, bool) {
	d := p.data
	start := p.i
	escaped, ascii := false, true
	i := start + 1
	for ; i < len(d) && d[i] != '"'; i++ {
		switch c := d[i]; {
		case c == '\\':
			escaped = true
			i++
		case c < ' ':
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if i >= len(d) {
		return "", false
	}
	p.i = i + 1
	if raw := d[start+1 : i]; !escaped && (ascii || utf8.Valid(raw)) {
		return string(raw), true
	}
	var s string
	if json.Unmarshal(d[start:p.i], &s) != nil {
		return "", false
	}
	return s, true
}

// number reads the number at p.i and returns its literal. For Parse, it
// must fit a float64, as encoding/json requires when it decodes into an
// any; a literal without an exponent and of at most 300 characters always
// does.
func (p *parser) number() (string, bool) {
	d := p.data
	i := p.i
	digits := func() bool {
		from := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i > from
	}
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		return "", false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return "", false
		}
	}
	exp := i < len(d) && (d[i] == 'e' || d[i] == 'E')
	if exp {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return "", false
		}
	}
	lit := string(d[p.i:i])
	p.i = i
	if !p.unique && (exp || len(lit) > 300) {
		if _, err := strconv.ParseFloat(lit, 64); err != nil {
			return "", false
		}
	}
	return lit, true
}
