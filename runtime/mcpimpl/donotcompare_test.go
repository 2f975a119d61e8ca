package mcpimpl

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// uncomparableObject is a generated struct as the generator writes it: its
// first field makes == on it a compile error.
type uncomparableObject struct {
	_ DoNotCompare

	Name  string           `json:"name"`
	Count *int64           `json:"count,omitempty"`
	Inner *closedObject    `json:"inner,omitempty"`
	Extra map[string]int64 `json:"-"`
}

type uncomparableUnion struct {
	_ DoNotCompare

	Kind   *taggedKind `mcpgen:"string"`
	Number *int64      `mcpgen:"number"`
}

// TestDecodingSkipsTheBlankField checks that the decoders and encoders of
// generated values leave the blank field that makes generated structs
// not comparable alone: it is neither a member nor a branch.
func TestDecodingSkipsTheBlankField(t *testing.T) {
	if reflect.TypeFor[uncomparableObject]().Comparable() {
		t.Fatal("uncomparableObject is comparable")
	}
	var v uncomparableObject
	if err := DecodeObject([]byte(`{"name":"a","count":2,"inner":{"name":"b"},"x":3}`), &v, false); err != nil {
		t.Fatal(err)
	}
	if v.Name != "a" || v.Count == nil || *v.Count != 2 || v.Inner == nil || v.Inner.Name != "b" || v.Extra["x"] != 3 {
		t.Errorf("decoded %+v", v)
	}
	err := DecodeObject([]byte(`{"count":1}`), &v, true)
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) || ve.Reason != `missing required property "name"` {
		t.Errorf("missing name: got %v", err)
	}
	err = DecodeObject([]byte(`{"name":"a","count":"x"}`), &v, false)
	if !errors.As(err, &ve) || ve.Pointer != "/count" {
		t.Errorf("count of the wrong kind: got %v", err)
	}
	data, err := json.Marshal(uncomparableObject{Name: "a"})
	if err != nil || string(data) != `{"name":"a"}` {
		t.Errorf("json.Marshal = %s, %v", data, err)
	}

	var u uncomparableUnion
	if err := DecodeTaggedUnion([]byte(`"up"`), &u, false); err != nil || u.Kind == nil || *u.Kind != "up" {
		t.Errorf("up: %+v, %v", u, err)
	}
	if err := DecodeTaggedUnion([]byte(`7`), &u, true); err != nil || u.Kind != nil || u.Number == nil || *u.Number != 7 {
		t.Errorf("7: %+v, %v", u, err)
	}
	if data, err := EncodeUnion(&u); err != nil || string(data) != "7" {
		t.Errorf("EncodeUnion = %s, %v", data, err)
	}
	var un uncomparableUnion
	if err := DecodeUnion([]byte(`"down"`), false, []UnionBranch{Decoded(&un.Kind, nil, KindString), Decoded(&un.Number, nil, KindNumber)}); err != nil || un.Kind == nil {
		t.Errorf("DecodeUnion: %+v, %v", un, err)
	}
}
