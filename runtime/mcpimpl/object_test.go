package mcpimpl

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

type taggedObject struct {
	Name  string           `json:"name"`
	Note  *string          `json:"note,omitempty" mcpgen:"nullable"`
	Tags  []string         `json:"tags,omitempty" mcpgen:"nonnullelems"`
	Count *int64           `json:"count,omitempty"`
	Extra map[string]int64 `json:"-"`
}

type closedObject struct {
	Name string `json:"name"`
}

// TestDecodeObjectReadsTags checks that DecodeObject takes the members'
// rules from the struct tags of a generated struct.
func TestDecodeObjectReadsTags(t *testing.T) {
	for _, tc := range []struct {
		in, pointer, reason string
	}{
		{`{}`, "", `missing required property "name"`},
		{`{"name":"a","count":null}`, "/count", "must not be null"},
		{`{"name":"a","tags":["x",null]}`, "/tags/1", "must not be null"},
		{`{"name":"a","count":1.5}`, "/count", "must be an integer, not 1.5"},
		{`{"name":"a","other":"x"}`, "/other", "must be an integer, not a string"},
		{`[]`, "", "must be an object, not an array"},
	} {
		var v taggedObject
		err := DecodeObject([]byte(tc.in), &v, false)
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) || ve.Pointer != tc.pointer || ve.Reason != tc.reason {
			t.Errorf("%s: got %v, want %q at %q", tc.in, err, tc.reason, tc.pointer)
		}
	}
	var v taggedObject
	if err := DecodeObject([]byte(`{"name":"a","note":null,"count":2.0,"other":3}`), &v, false); err != nil {
		t.Fatal(err)
	}
	if v.Name != "a" || v.Note != nil || v.Count == nil || *v.Count != 2 || v.Extra["other"] != 3 {
		t.Errorf("decoded %+v", v)
	}
	var c closedObject
	err := DecodeObject([]byte(`{"name":"a","x":1}`), &c, true)
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) || ve.Reason != `unknown property "x" is not allowed` {
		t.Errorf("closed: got %v", err)
	}
	if err := DecodeObject([]byte(`{"name":"a"}`), c, false); err == nil {
		t.Error("decoded into a struct value")
	}
}

type nestedNullsObject struct {
	All   [][]int64           `json:"all,omitempty" mcpgen:"nonnullelems"`
	Inner [][]int64           `json:"inner,omitempty" mcpgen:"nonnullelems=01"`
	Raw   [][]json.RawMessage `json:"raw,omitempty" mcpgen:"nonnullelems"`
	Ptr   [][]*int64          `json:"ptr,omitempty" mcpgen:"nonnullelems"`
	Extra map[string][]int64  `json:"-" mcpgen:"nonnullelems"`
}

// TestDecodeObjectNestedNulls checks that the nonnullelems flag refuses
// null at every level of nested slices and maps, or at the levels it
// names, and in Extra, and lets pointers and json.RawMessage be null.
func TestDecodeObjectNestedNulls(t *testing.T) {
	for _, tc := range []struct {
		in, pointer string
	}{
		{`{"all":[null]}`, "/all/0"},
		{`{"all":[[1],[2,null]]}`, "/all/1/1"},
		{`{"inner":[null,[1,null]]}`, "/inner/1/1"},
		{`{"k":null}`, "/k"},
		{`{"k":[1,null]}`, "/k/1"},
	} {
		var v nestedNullsObject
		err := DecodeObject([]byte(tc.in), &v, false)
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) || ve.Pointer != tc.pointer || ve.Reason != "must not be null" {
			t.Errorf("%s: got %v, want a null refused at %q", tc.in, err, tc.pointer)
		}
	}
	for _, in := range []string{
		`{"all":[[1],[]],"inner":[null,[1]],"raw":[[null]],"ptr":[[null,1]],"k":[1]}`,
	} {
		var v nestedNullsObject
		if err := DecodeObject([]byte(in), &v, false); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

type taggedKind string

func (k taggedKind) Validate() error {
	if k != "up" && k != "down" {
		return Invalid("", `must be one of "up", "down"`)
	}
	return nil
}

type taggedUnion struct {
	Kind   *taggedKind `mcpgen:"string"`
	Number *int64      `mcpgen:"number"`
	Any    *string     `mcpgen:"string"`
}

// TestTaggedUnion checks that DecodeTaggedUnion tries the branches in
// order by the kinds in their tags, validates with the branch type's
// Validate, and that EncodeUnion writes the branch that is set.
func TestTaggedUnion(t *testing.T) {
	var u taggedUnion
	if err := DecodeTaggedUnion([]byte(`"up"`), &u, false); err != nil || u.Kind == nil || *u.Kind != "up" || u.Any != nil {
		t.Errorf("up: %+v, %v", u, err)
	}
	if err := DecodeTaggedUnion([]byte(`"sideways"`), &u, false); err != nil || u.Kind != nil || u.Any == nil || *u.Any != "sideways" {
		t.Errorf("sideways: %+v, %v", u, err)
	}
	if err := DecodeTaggedUnion([]byte(`"up"`), &u, true); err == nil || err.(*runtime.ValidationError).Reason != "matches more than one branch of oneOf" {
		t.Errorf("oneOf: got %v", err)
	}
	if err := DecodeTaggedUnion([]byte(`true`), &u, false); err == nil || err.(*runtime.ValidationError).Reason != "must be a string or a number, not a boolean" {
		t.Errorf("boolean: got %v", err)
	}
	n := int64(5)
	data, err := EncodeUnion(&taggedUnion{Number: &n})
	if err != nil || string(data) != "5" {
		t.Errorf("EncodeUnion = %s, %v", data, err)
	}
	if data, _ := EncodeUnion(taggedUnion{}); string(data) != "null" {
		t.Errorf("EncodeUnion of no branch = %s", data)
	}
}

type caseInner struct {
	ID *int64 `json:"id,omitempty"`
}

type caseOuter struct {
	Name  *string          `json:"name,omitempty"`
	Inner []caseInner      `json:"inner,omitempty"`
	Extra map[string]int64 `json:"-"`
}

// TestDecodeObjectMatchesMembersExactly checks that a member whose name
// matches a field's only but for case is not decoded into that field, as
// encoding/json would: JSON Schema takes it for another property. It goes
// to Extra, as any other member that is no field does.
func TestDecodeObjectMatchesMembersExactly(t *testing.T) {
	var v caseOuter
	in := `{"name":"a","Name":7,"inner":[{"id":1,"ID":2},{"İd":3}],"NAME":8}`
	if err := DecodeObject([]byte(in), &v, false); err != nil {
		t.Fatal(err)
	}
	if v.Name == nil || *v.Name != "a" || len(v.Inner) != 2 || v.Inner[0].ID == nil || *v.Inner[0].ID != 1 || v.Inner[1].ID != nil {
		t.Errorf("decoded %s as name %v, inner %+v", in, v.Name, v.Inner)
	}
	if len(v.Extra) != 2 || v.Extra["Name"] != 7 || v.Extra["NAME"] != 8 {
		t.Errorf("extra: got %v, want Name and NAME", v.Extra)
	}
	var w caseOuter
	if err := DecodeObject([]byte(`{"Name":"x"}`), &w, false); err == nil || w.Name != nil {
		t.Errorf(`{"Name":"x"}: got name %v, error %v; want no name and Extra refusing a string`, w.Name, err)
	}
}

// TestDecodeObjectMatchesMembersExactlyKeepsEmptyArrays checks that an
// empty array stays one when the members that match a field only but for
// case are dropped: the value rewritten without them had null in its
// place, which decoded into a nil slice rather than an empty one.
func TestDecodeObjectMatchesMembersExactlyKeepsEmptyArrays(t *testing.T) {
	var v caseOuter
	in := `{"name":"a","Name":7,"inner":[]}`
	if err := DecodeObject([]byte(in), &v, false); err != nil {
		t.Fatal(err)
	}
	if v.Inner == nil || len(v.Inner) != 0 {
		t.Errorf("decoded %s with inner %#v, want an empty slice", in, v.Inner)
	}
	if out, err := json.Marshal(v.Inner); err != nil || string(out) != "[]" {
		t.Errorf("inner encodes as %s (%v), want []", out, err)
	}
}
