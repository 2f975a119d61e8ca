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
// bound decodes; and that a type that does not refer to itself takes any
// nesting encoding/json takes.
func TestRecursiveNestingBounded(t *testing.T) {
	deepPointer := "/root" + strings.Repeat("/child", 128-1)
	for _, tc := range []struct {
		name    string
		data    []byte
		v       any
		pointer string
	}{
		{"parent-checked, at the bound", append(chain(`{"root":`, 128-1, "z"), '}'), &treeArgs{}, ""},
		{"parent-checked, beyond it", append(chain(`{"root":`, 128, "z"), '}'), &treeArgs{}, deepPointer},
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
