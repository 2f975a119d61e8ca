package mcpimpl

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestDecodeErrorsNameToolAndPointer checks the reasons and pointers the
// decoding helpers give for values encoding/json cannot store, instead of
// its Go-typed messages.
func TestDecodeErrorsNameToolAndPointer(t *testing.T) {
	var small *uint8
	var f *float64
	var list *[]map[string]int32
	cases := []struct {
		branch  UnionBranch
		in      string
		pointer string
		reason  string
	}{
		{Decoded(&small, nil, KindNumber), `300`, "", "must be an integer from 0 to 255, not 300"},
		{Decoded(&small, nil, KindNumber), `-1`, "", "must be an integer from 0 to 255, not -1"},
		{Decoded(&f, nil, KindNumber), `1e400`, "", "must be a number within the range of a float64, not 1e400"},
		{Decoded(&list, nil, KindArray), `[{"a":1},{"a":2,"b/c":1.5}]`, "/1/b~1c", "must be an integer, not 1.5"},
		{Decoded(&list, nil, KindArray), `[{"a":1},{"a":[]}]`, "/1/a", "must be an integer, not an array"},
	}
	for _, c := range cases {
		err := DecodeUnion([]byte(c.in), false, []UnionBranch{c.branch})
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) || ve.Pointer != c.pointer || ve.Reason != c.reason {
			t.Errorf("%s: got %v, want %q at %q", c.in, err, c.reason, c.pointer)
		}
	}
	var withExtra struct {
		Name  string          `json:"name"`
		Extra map[string]bool `json:"-"`
	}
	err := DecodeObject([]byte(`{"name":"x","on":"yes"}`), &withExtra, false)
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) || ve.Pointer != "/on" || ve.Reason != "must be a boolean, not a string" {
		t.Errorf("DecodeObject with Extra: got %v", err)
	}
}

// TestDecodeErrorCutsLongNumbers decodes numbers of 100,000 digits that a
// field cannot hold: the reason shows the first 64 bytes of each. It
// repeated the whole number, 100 KB of a server's text in one error. A
// float32 field's range is named as a float32's, not a float64's.
func TestDecodeErrorCutsLongNumbers(t *testing.T) {
	digits := strings.Repeat("9", 100_000)
	for _, tc := range []struct{ object, pointer, reason, lit string }{
		{`{"f":1,"n":` + digits + `}`, "/n", "must be an integer from -9223372036854775808 to 9223372036854775807", digits},
		{`{"f":1,"n":0.` + digits + `}`, "/n", "must be an integer", "0." + digits},
		{`{"n":1,"f":` + digits + `.5}`, "/f", "must be a number within the range of a float32", digits + ".5"},
	} {
		var v struct {
			N int64   `json:"n"`
			F float32 `json:"f"`
		}
		err := DecodeObject([]byte(tc.object), &v, false)
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) || ve.Pointer != tc.pointer || ve.Reason != tc.reason+", not "+tc.lit[:64]+"…" {
			t.Errorf("%.20s…: got %.200v, want %s, not %.64s…", tc.object, err, tc.reason, tc.lit)
		}
	}
}
