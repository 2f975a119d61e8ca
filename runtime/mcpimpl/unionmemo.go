package mcpimpl

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/mcpgen/mcpgen/runtime"
)

// A union decodes a branch whole before it knows whether the branch takes
// the value, and tries the next one when it does not. A union that holds
// itself in two branches of one JSON kind (two object branches, each with
// a list of the union, told apart by a const their Validate checks) would
// decode the value below it once per branch tried, at every level: time
// doubling with the depth, hours for a 600-byte value 30 levels deep.
//
// So while a value is decoded, each union in it remembers which branch
// took its JSON, or why none did, by where that JSON lies in the text
// being decoded (encoding/json hands each UnmarshalJSON a slice of the
// text it was given). When a later attempt at an enclosing branch decodes
// the same union again, only the branch that took it is decoded: the work
// grows with the depth times the size, not two to the depth. Only a
// branch index is remembered, never a decoded value, so no two results
// share memory. What is remembered lasts while the outermost union of the
// text is being decoded, and is forgotten when it returns. A union whose
// JSON kind only one branch takes tries no other, and remembers nothing:
// only unions that try several can decode a value twice.

// decodeRemembered decodes data, the JSON of a union that id tells apart
// from others, with search, which tries the branches as the union's
// decoder does and returns the index of the branch it set, or -1. When
// several branches take the JSON's kind, it first looks for what an
// earlier attempt at the same JSON came to, and decodes only the branch
// that took it, with decode, which reports whether that branch decoded and
// is set; what search comes to is remembered for later attempts.
func decodeRemembered(data []byte, id any, oneOf, several bool, decode func(branch int) bool, search func() (int, error)) error {
	if !several {
		// One branch at most is tried: nothing to remember.
		_, err := search()
		return err
	}
	key, leave, memo := enterUnion(data, id, oneOf)
	if leave != nil {
		defer leave()
	}
	if memo {
		if o, ok := recalled(key); ok {
			if o.branch < 0 {
				return o.err
			}
			if decode(o.branch) {
				return nil
			}
		}
	}
	branch, err := search()
	if memo {
		remember(key, unionOutcome{branch: branch, err: err})
	}
	return err
}

// takers returns how many of the branches, by the kinds each takes, take
// the JSON kind k.
func takers(k byte, kinds [][]byte) int {
	n := 0
	for _, ks := range kinds {
		if bytes.IndexByte(ks, k) >= 0 {
			n++
		}
	}
	return n
}

// unionKey names one union's JSON: where it starts and ends in memory, the
// union's identity (its type, or the types of its branches), and oneOf.
type unionKey struct {
	start, n uintptr
	id       any
	oneOf    bool
}

// unionOutcome is what decoding a union's JSON came to: the index of the
// branch that took it, or the error when none did (branch -1).
type unionOutcome struct {
	branch int
	err    error
}

// unionMemo holds the outcomes of the unions decoded within the texts
// being decoded by an outermost union, and the spans of those texts.
var unionMemo struct {
	mu       sync.Mutex
	spans    [][2]uintptr
	outcomes map[unionKey]unionOutcome
}

// enterUnion returns the key of the union id decoding data, and leave,
// non-nil when this union is the outermost of its text, to call when it
// returns. ok is false for empty data, which names no place.
func enterUnion(data []byte, id any, oneOf bool) (key unionKey, leave func(), ok bool) {
	if len(data) == 0 {
		return unionKey{}, nil, false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	end := start + uintptr(len(data))
	key = unionKey{start: start, n: uintptr(len(data)), id: id, oneOf: oneOf}
	unionMemo.mu.Lock()
	defer unionMemo.mu.Unlock()
	for _, s := range unionMemo.spans {
		if start >= s[0] && end <= s[1] {
			return key, nil, true // inside a text being decoded
		}
	}
	span := [2]uintptr{start, end}
	unionMemo.spans = append(unionMemo.spans, span)
	return key, func() { forgetSpan(span) }, true
}

// forgetSpan ends the span of an outermost union's text, with the outcomes
// remembered within it.
func forgetSpan(span [2]uintptr) {
	unionMemo.mu.Lock()
	defer unionMemo.mu.Unlock()
	for i, s := range unionMemo.spans {
		if s == span {
			unionMemo.spans = append(unionMemo.spans[:i], unionMemo.spans[i+1:]...)
			break
		}
	}
	if len(unionMemo.spans) == 0 {
		unionMemo.outcomes = nil
		return
	}
	for k := range unionMemo.outcomes {
		if k.start >= span[0] && k.start+k.n <= span[1] {
			delete(unionMemo.outcomes, k)
		}
	}
}

// recalled returns the outcome remembered for key. Its error is a copy,
// which the caller may place with Within as it places its own.
func recalled(key unionKey) (unionOutcome, bool) {
	unionMemo.mu.Lock()
	o, ok := unionMemo.outcomes[key]
	unionMemo.mu.Unlock()
	o.err = copyError(o.err)
	return o, ok
}

// remember keeps the outcome of key while a text that holds it is being
// decoded: once that text's outermost union has returned, a later text
// may lie at the same place.
func remember(key unionKey, o unionOutcome) {
	unionMemo.mu.Lock()
	defer unionMemo.mu.Unlock()
	held := false
	for _, s := range unionMemo.spans {
		if key.start >= s[0] && key.start+key.n <= s[1] {
			held = true
			break
		}
	}
	if !held {
		return
	}
	if unionMemo.outcomes == nil {
		unionMemo.outcomes = make(map[unionKey]unionOutcome)
	}
	o.err = copyError(o.err)
	unionMemo.outcomes[key] = o
}

// copyError returns a copy of a *runtime.ValidationError, whose Pointer
// Within extends in place, and err itself otherwise.
func copyError(err error) error {
	if ve, ok := err.(*runtime.ValidationError); ok {
		c := *ve
		return &c
	}
	return err
}
