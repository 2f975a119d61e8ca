package mcpimpl

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// treeNode is a recursive object type as the generator writes it for a
// schema that refers to itself: no UnmarshalJSON, checked by the decoder
// of the value that holds it.
type treeNode struct {
	Name  string    `json:"name"`
	Child *treeNode `json:"child,omitempty"`
}

type treeArgs struct {
	Root treeNode `json:"root"`
}

func (a *treeArgs) UnmarshalJSON(data []byte) error { return DecodeObject(data, a, false) }

// closedNode is a recursive closed object type, which decodes itself.
type closedNode struct {
	Name  string      `json:"name"`
	Child *closedNode `json:"child,omitempty"`
}

func (n *closedNode) UnmarshalJSON(data []byte) error { return DecodeObject(data, n, true) }

// flatArgs is not recursive, and holds any JSON in Raw.
type flatArgs struct {
	Raw json.RawMessage `json:"raw"`
}

func (a *flatArgs) UnmarshalJSON(data []byte) error { return DecodeObject(data, a, false) }

// chain returns a value of depth nodes, each the child of the one before,
// the last one named last, after prefix.
func chain(prefix string, depth int, last string) []byte {
	return []byte(prefix + strings.Repeat(`{"name":"a","child":`, depth-1) + `{"name":"` + last + `"}` + strings.Repeat(`}`, depth-1))
}

// TestRecursiveNestingBounded checks that a value of a recursive type nested
// deeper than 128 is refused, with the pointer of the first
// level too deep, before its levels are checked one by one, which cost a
// hostile server's chain of 9,000 nodes 13 s of CPU; that one within the
// bound decodes, counted from the recursive value whether it checks itself
// or the value holding it does; and that a type that does not refer to
// itself takes any nesting encoding/json takes.
func TestRecursiveNestingBounded(t *testing.T) {
	deepPointer := "/root" + strings.Repeat("/child", 128)
	for _, tc := range []struct {
		name    string
		data    []byte
		v       any
		pointer string
	}{
		{"parent-checked, at the bound", append(chain(`{"root":`, 128, "z"), '}'), &treeArgs{}, ""},
		{"parent-checked, beyond it", append(chain(`{"root":`, 128+1, "z"), '}'), &treeArgs{}, deepPointer},
		{"parent-checked, 9000 deep", append(chain(`{"root":`, 9000, "z"), '}'), &treeArgs{}, deepPointer},
		{"closed, at the bound", chain("", 128, "z"), &closedNode{}, ""},
		{"closed, beyond it", chain("", 128+1, "z"), &closedNode{}, strings.Repeat("/child", 128)},
		{"not recursive", []byte(`{"raw":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`), &flatArgs{}, ""},
	} {
		err := json.Unmarshal(tc.data, tc.v)
		if tc.pointer == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var ve *mcpruntime.ValidationError
		if !errors.As(err, &ve) || ve.Pointer != tc.pointer || !strings.Contains(ve.Reason, "nests more than 128 arrays and objects deep") {
			t.Errorf("%s: got %v, want a validation error at %.60s…", tc.name, err, tc.pointer)
		}
	}
	var a treeArgs
	if err := json.Unmarshal(append(chain(`{"root":`, 3, "z"), '}'), &a); err != nil || a.Root.Child.Child.Name != "z" {
		t.Errorf("decoded %+v, %v", a, err)
	}
}

// TestNestedChecksDoNotCopy checks that the checks of nested objects take
// each level apart without copying it: a 1 MiB string 100 levels down was
// copied at every level above it, 100 MiB for 1 MiB of input.
func TestNestedChecksDoNotCopy(t *testing.T) {
	data := append(chain(`{"root":`, 100, strings.Repeat("x", 1<<20)), '}')
	for _, v := range []any{&treeArgs{}, &closedNode{}} {
		in := data
		if _, ok := v.(*closedNode); ok {
			in = chain("", 100, strings.Repeat("x", 1<<20))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := json.Unmarshal(in, v); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		// The decoded string and a few copies made by encoding/json.
		if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
			t.Errorf("%T: decoding 1 MiB nested 100 deep allocated %d MiB", v, got>>20)
		}
	}
}

// BenchmarkDecodeDeepRecursive decodes a 4 MiB string at the bottom of a
// chain of 100 nodes of a recursive type.
func BenchmarkDecodeDeepRecursive(b *testing.B) {
	data := append(chain(`{"root":`, 100, strings.Repeat("x", 4<<20)), '}')
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var a treeArgs
		if err := json.Unmarshal(data, &a); err != nil {
			b.Fatal(err)
		}
	}
}

// treeAndRawArgs holds a recursive type beside any JSON: it does not refer
// to itself.
type treeAndRawArgs struct {
	Root treeNode        `json:"root"`
	Raw  json.RawMessage `json:"raw"`
}

func (a *treeAndRawArgs) UnmarshalJSON(data []byte) error { return DecodeObject(data, a, false) }

// TestRecursiveNestingBoundsOnlyRecursiveValues checks that the bound
// applies to the values of recursive types only: JSON beside one, in a
// json.RawMessage field of a type that does not refer to itself, takes any
// nesting encoding/json takes, as it did before the bound, and a tree
// within the bound decodes however deep it lies. The whole value was
// measured, since its type reaches a recursive one.
func TestRecursiveNestingBoundsOnlyRecursiveValues(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	var a treeAndRawArgs
	in := `{"root":{"name":"a","child":{"name":"z"}},"raw":` + deep + `}`
	if err := json.Unmarshal([]byte(in), &a); err != nil || a.Root.Child.Name != "z" || string(a.Raw) != deep {
		t.Errorf("JSON 200 deep beside a tree: %v", err)
	}
	var w struct {
		Args []treeAndRawArgs `json:"args"`
	}
	in = `{"args":[` + strings.Repeat(`{"raw":1,"root":{"name":"a","child":{"name":"b","child":`, 1) + string(chain("", 128-2, "z")) + `}}}]}`
	if err := decodeChecked([]byte(in), &w); err != nil {
		t.Errorf("a tree 128 nodes deep, itself 3 levels down: %v", err)
	}
	var c closedNode
	if err := json.Unmarshal(chain("", 128, "z"), &c); err != nil {
		t.Errorf("a closed tree 128 nodes deep: %v", err)
	}
	// A list of itself, which holds no object to check, is bounded below
	// a type that is not recursive too.
	for _, depth := range []int{128, 129} {
		var l listsArgs
		in := `{"lists":[` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `]}`
		err := json.Unmarshal([]byte(in), &l)
		var ve *mcpruntime.ValidationError
		if depth <= 128 && err != nil {
			t.Errorf("a list of itself %d deep: %v", depth, err)
		} else if depth > 128 && (!errors.As(err, &ve) || ve.Pointer != "/lists/0"+strings.Repeat("/0", 128)) {
			t.Errorf("a list of itself %d deep: got %v, want a validation error", depth, err)
		}
	}
}

// listOfSelf is an array of itself.
type listOfSelf []listOfSelf

type listsArgs struct {
	Lists []listOfSelf `json:"lists"`
}

func (a *listsArgs) UnmarshalJSON(data []byte) error { return DecodeObject(data, a, false) }
