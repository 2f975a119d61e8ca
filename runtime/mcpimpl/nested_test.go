package mcpimpl

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// nestedInner is a nested object type as the generator now writes it:
// tags, and no UnmarshalJSON.
type nestedInner struct {
	ID   string  `json:"id"`
	Note *string `json:"note,omitempty" mcpgen:"nullable"`
	Deep *struct {
		Level int64 `json:"level"`
	} `json:"deep,omitempty"`
}

type nestedOuter struct {
	One   *nestedInner            `json:"one,omitempty"`
	Value nestedInner             `json:"value"`
	List  []nestedInner           `json:"list,omitempty"`
	Table map[string]*nestedInner `json:"table,omitempty"`
}

func (o *nestedOuter) UnmarshalJSON(data []byte) error {
	return DecodeObject(data, o, false)
}

// TestNestedObjectsWithoutUnmarshalJSONAreChecked checks that the decoder
// of the value that holds a nested object type checks it by its tags,
// wherever it is: a field, a pointer, an array item, a map entry, and an
// object in one of those.
func TestNestedObjectsWithoutUnmarshalJSONAreChecked(t *testing.T) {
	for _, tc := range []struct {
		data, pointer, reason string
	}{
		{`{"value":{}}`, "/value", `missing required property "id"`},
		{`{"value":{"id":"a","note":null},"one":{"id":null}}`, "/one/id", "must not be null"},
		{`{"value":{"id":"a"},"list":[{"id":"b"},{"note":"x"}]}`, "/list/1", `missing required property "id"`},
		{`{"value":{"id":"a"},"table":{"k":{"id":"b","deep":{}}}}`, "/table/k/deep", `missing required property "level"`},
		{`{"value":{"id":"a","deep":{"level":null}}}`, "/value/deep/level", "must not be null"},
	} {
		var o nestedOuter
		err := json.Unmarshal([]byte(tc.data), &o)
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) || ve.Pointer != tc.pointer || ve.Reason != tc.reason {
			t.Errorf("%s: got %v, want %q at %s", tc.data, err, tc.reason, tc.pointer)
		}
	}
	var o nestedOuter
	good := `{"value":{"id":"a","note":null},"one":{"id":"b"},"list":[{"id":"c","deep":{"level":2}}],"table":{"k":null,"m":{"id":"d"}}}`
	if err := json.Unmarshal([]byte(good), &o); err != nil {
		t.Fatalf("valid data: %v", err)
	}
	if o.Value.ID != "a" || o.One.ID != "b" || o.List[0].Deep.Level != 2 || o.Table["m"].ID != "d" || o.Table["k"] != nil {
		t.Errorf("decoded %+v", o)
	}
}

// TestNestedObjectsInUnionBranches checks the same for a union branch and
// for DecodeValid.
func TestNestedObjectsInUnionBranches(t *testing.T) {
	var got *nestedInner
	err := DecodeUnion([]byte(`{"note":"x"}`), false, []UnionBranch{Decoded(&got, nil, KindObject)})
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) || ve.Reason != `missing required property "id"` {
		t.Errorf("union branch: %v", err)
	}
	var list nestedList
	if err := DecodeValid([]byte(`[{"id":"a"},{}]`), &list); !errors.As(err, &ve) || ve.Pointer != "/1" {
		t.Errorf("DecodeValid: %v, want an error at /1", err)
	}
}

type nestedList []nestedInner

func (nestedList) Validate() error { return nil }
