package mcpimpl

import (
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// validations counts the Validate calls of the recursive union's branches;
// past validationBudget they fail, so that a decoder whose work doubles at
// every level stops at once instead of running for hours.
var validations atomic.Int64

const validationBudget = 100000

// recUnion is a generated union that holds itself in two object branches,
// told apart only by the const their Validate checks.
type recUnion struct {
	A *recA `mcpgen:"object"`
	B *recB `mcpgen:"object"`
}

func (u *recUnion) UnmarshalJSON(data []byte) error { return DecodeTaggedUnion(data, u, false) }

type recA struct {
	Kids []recUnion `json:"kids,omitempty"`
	Kind string     `json:"kind"`
}

func (a *recA) Validate() error {
	if validations.Add(1) > validationBudget {
		return Invalid("", "over budget")
	}
	if a.Kind != "a" {
		return Invalid("/kind", `must be "a"`)
	}
	return nil
}

type recB struct {
	Kids []recUnion `json:"kids,omitempty"`
	Kind string     `json:"kind"`
}

func (b *recB) Validate() error {
	if validations.Add(1) > validationBudget {
		return Invalid("", "over budget")
	}
	if b.Kind != "b" {
		return Invalid("/kind", `must be "b"`)
	}
	return nil
}

// recClosure is the same union decoded by DecodeUnion, as a union with a
// branch checked by a function of validate.go is.
type recClosure struct {
	A *recCA
	B *recCB
}

type recCA struct {
	Kids []recClosure `json:"kids,omitempty"`
	Kind string       `json:"kind"`
}

type recCB recCA

func (u *recClosure) UnmarshalJSON(data []byte) error {
	var out recClosure
	if err := DecodeUnion(data, false, []UnionBranch{
		Decoded(&out.A, checkKind[recCA]("a"), KindObject),
		Decoded(&out.B, checkKind[recCB]("b"), KindObject),
	}); err != nil {
		return err
	}
	*u = out
	return nil
}

// kindChecks holds one check per kind, as generated code has one function
// per branch.
var kindChecks = map[string]any{
	"a": func(v *recCA) error { return kindIs(v.Kind, "a") },
	"b": func(v *recCB) error { return kindIs(v.Kind, "b") },
}

func checkKind[T any](kind string) func(*T) error { return kindChecks[kind].(func(*T) error) }

func kindIs(got, want string) error {
	if validations.Add(1) > validationBudget {
		return Invalid("", "over budget")
	}
	if got != want {
		return Invalid("/kind", "must be "+want)
	}
	return nil
}

// nestedKinds returns a chain of depth nodes, each holding the next in
// kids, with kind after kids (the server orders members, so a branch's
// const is read after all it holds): the innermost is kind last, the
// others alternately b and a.
func nestedKinds(depth int, last string) string {
	if depth == 1 {
		return `{"kids":[],"kind":"` + last + `"}`
	}
	kind := "b"
	if depth%2 == 0 {
		kind = "a"
	}
	return `{"kids":[` + nestedKinds(depth-1, last) + `],"kind":"` + kind + `"}`
}

// TestRecursiveUnionLinear checks that a union holding itself in two
// branches of one kind decodes a value 12 levels deep, valid or refused at
// its innermost level, in work that grows with the depth, not with two to
// the depth (each level decoded the one below once per branch it tried:
// a 600-byte value 30 deep ran for hours), and that each level decodes
// into the branch its kind names, as before.
func TestRecursiveUnionLinear(t *testing.T) {
	for _, tc := range []struct {
		name   string
		decode func([]byte) (string, error)
	}{
		{"tagged", func(data []byte) (string, error) {
			return decodedKinds(data, func(u *recUnion) (string, []recUnion) {
				switch {
				case u.A != nil:
					return "a", u.A.Kids
				case u.B != nil:
					return "b", u.B.Kids
				}
				return "", nil
			})
		}},
		{"closures", func(data []byte) (string, error) {
			return decodedKinds(data, func(u *recClosure) (string, []recClosure) {
				switch {
				case u.A != nil:
					return "a", u.A.Kids
				case u.B != nil:
					return "b", u.B.Kids
				}
				return "", nil
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const depth = 12
			validations.Store(0)
			got, err := tc.decode([]byte(nestedKinds(depth, "b")))
			want := strings.Repeat("ab", depth/2)[:depth-1] + "b"
			if err != nil || got != want {
				t.Fatalf("decoded %q, %v; want %q", got, err, want)
			}
			if n := validations.Load(); n > 20*depth*depth {
				t.Errorf("a valid value %d deep took %d validations", depth, n)
			}
			validations.Store(0)
			if _, err := tc.decode([]byte(nestedKinds(depth, "c"))); err == nil || strings.Contains(err.Error(), "over budget") {
				t.Errorf("a value refused at its innermost level: %v, want the refusal", err)
			}
			if n := validations.Load(); n > 20*depth*depth {
				t.Errorf("a value %d deep refused at its innermost level took %d validations", depth, n)
			}
		})
	}
}

// decodedKinds decodes data into a U and names the branch set at each
// level, as branch reports it, following the first kid down.
func decodedKinds[U any](data []byte, branch func(*U) (kind string, kids []U)) (string, error) {
	var u U
	if err := json.Unmarshal(data, &u); err != nil {
		return "", err
	}
	var kinds []string
	for cur := &u; cur != nil; {
		kind, kids := branch(cur)
		kinds = append(kinds, kind)
		cur = nil
		if len(kids) > 0 {
			cur = &kids[0]
		}
	}
	return strings.Join(kinds, ""), nil
}

// TestRecursiveUnionConcurrent checks that goroutines decoding one text,
// and others decoding texts of their own, at once, each get the value
// their text holds: what a union remembers is kept by where its JSON lies,
// and only while a text around it is being decoded.
func TestRecursiveUnionConcurrent(t *testing.T) {
	shared := []byte(nestedKinds(10, "b"))
	done := make(chan string, 16)
	for i := range 16 {
		go func() {
			data := shared
			if i%2 == 1 {
				data = []byte(nestedKinds(9+i%3, "a"))
			}
			var u recUnion
			if err := json.Unmarshal(data, &u); err != nil {
				done <- err.Error()
				return
			}
			var got []string
			for cur := &u; cur != nil; {
				var kids []recUnion
				switch {
				case cur.A != nil:
					got, kids = append(got, "a"), cur.A.Kids
				case cur.B != nil:
					got, kids = append(got, "b"), cur.B.Kids
				}
				cur = nil
				if len(kids) > 0 {
					cur = &kids[0]
				}
			}
			// The kinds the text names, outermost first.
			var want []string
			for _, m := range strings.Split(string(data), `"kind":"`)[1:] {
				want = append(want, m[:1])
			}
			slices.Reverse(want)
			if strings.Join(got, "") != strings.Join(want, "") {
				done <- "decoded the kinds " + strings.Join(got, "") + ", want " + strings.Join(want, "")
				return
			}
			done <- ""
		}()
	}
	for range 16 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
