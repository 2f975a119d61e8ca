package mcpimpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"
)

// TestSplitMatchesUnmarshal checks that splitObject and splitArray return
// what json.Unmarshal into a map[string]json.RawMessage and a
// []json.RawMessage returns, which the checks of nested objects used
// before: the same members and items, byte for byte, the same nil or empty
// result, and the same error text, on texts mutated at random from a few
// seeds (escaped keys, invalid UTF-8, repeated keys, whitespace, keys that
// differ only by case). An empty array gave nil, which encodes as null.
func TestSplitMatchesUnmarshal(t *testing.T) {
	seeds := []string{
		`{"a":1,"b":[1,2,{"c":null}],"A":"x","\u0061":2, "d" : true , "e":-1.5e3}`,
		` [1, "x", {"a":[]}, null, true, false, 0.5, [] ]`,
		"{\"\xff\":1,\"a\\\"b\":{\"x\":\"\xfe\"},\"\xc3\":[]}",
		`{"a":{"b":{"c":[[[]]]}},"a":{}}`,
		`{}`, `[]`, `null`, `{"a":1}x`, `{"a" 1}`, `{"a":01}`, `{"a":"\ud800"}`,
	}
	alphabet := []byte("{}[],:\"\\ aAbu0123456789.eE-+tfnrul\xff\xc3\t\n\x01")
	r := rand.New(rand.NewSource(1))
	failures := 0
	check := func(in []byte) {
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(in, &want)
		got, err := splitObject(in)
		if msg := compareSplit(want, wantErr, got, err); msg != "" {
			t.Errorf("splitObject(%q): %s", in, msg)
			failures++
		}
		var wantItems []json.RawMessage
		wantErr = json.Unmarshal(in, &wantItems)
		items, err := splitArray(in)
		if msg := compareSplit(wantItems, wantErr, items, err); msg != "" {
			t.Errorf("splitArray(%q): %s", in, msg)
			failures++
		}
	}
	for _, s := range seeds {
		check([]byte(s))
		for range 2000 {
			b := []byte(s)
			for range 1 + r.Intn(3) {
				switch i := r.Intn(len(b) + 1); r.Intn(3) {
				case 0:
					if i < len(b) {
						b[i] = alphabet[r.Intn(len(alphabet))]
					}
				case 1:
					b = append(b[:i:i], append([]byte{alphabet[r.Intn(len(alphabet))]}, b[i:]...)...)
				case 2:
					if i < len(b) {
						b = append(b[:i:i], b[i+1:]...)
					}
				}
			}
			check(b)
			if failures > 10 {
				t.Fatal("too many differences")
			}
		}
	}
}

// compareSplit describes how a split result got, err differs from want,
// wantErr, the result of json.Unmarshal; "" when it does not.
func compareSplit[T map[string]json.RawMessage | []json.RawMessage](want T, wantErr error, got T, err error) string {
	switch {
	case (wantErr == nil) != (err == nil) || (wantErr != nil && wantErr.Error() != err.Error()):
		return fmt.Sprintf("error %v, want %v", err, wantErr)
	case wantErr != nil:
		return ""
	case (want == nil) != (got == nil) || len(want) != len(got):
		return fmt.Sprintf("got %#v, want %#v", got, want)
	}
	switch w := any(want).(type) {
	case map[string]json.RawMessage:
		g := any(got).(map[string]json.RawMessage)
		for k, v := range w {
			if !bytes.Equal(v, g[k]) {
				return fmt.Sprintf("member %q is %q, want %q", k, g[k], v)
			}
		}
	case []json.RawMessage:
		g := any(got).([]json.RawMessage)
		for i, v := range w {
			if !bytes.Equal(v, g[i]) {
				return fmt.Sprintf("item %d is %q, want %q", i, g[i], v)
			}
		}
	}
	return ""
}

type rawInner struct {
	Raw json.RawMessage `json:"raw"`
}

type rawOuter struct {
	Raw   json.RawMessage            `json:"raw"`
	Inner []rawInner                 `json:"inner"`
	Map   map[string]json.RawMessage `json:"map"`
	Extra map[string]json.RawMessage `json:"-"`
}

func (o *rawOuter) UnmarshalJSON(data []byte) error { return DecodeObject(data, o, false) }

// TestDecodedValuesDoNotAliasInput checks that no decoded value, of
// json.RawMessage fields, maps of them or Extra, shares memory with the
// input, which the caller may reuse once Unmarshal returns: the checks
// split the input into slices of it, which must not reach the value. The
// member "Raw", which matches a field but for case, makes the decoder
// rewrite the input without it first.
func TestDecodedValuesDoNotAliasInput(t *testing.T) {
	for _, in := range []string{
		`{"raw":{"a":"xxxx"},"inner":[{"raw":[1,"yyyy"]}],"map":{"k":"zzzz"},"other":{"q":"wwww"}}`,
		`{"raw":{"a":"xxxx"},"inner":[{"raw":[1,"yyyy"]}],"map":{"k":"zzzz"},"other":{"q":"wwww"},"Raw":"vvvv"}`,
	} {
		data := []byte(in)
		var v rawOuter
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		before, _ := json.Marshal(v)
		extra, _ := json.Marshal(v.Extra)
		for i := range data {
			data[i] = ' '
		}
		after, _ := json.Marshal(v)
		if extraAfter, _ := json.Marshal(v.Extra); string(before) != string(after) || string(extra) != string(extraAfter) {
			t.Errorf("%s: overwriting the input changed the value from %s %s to %s %s", in, before, extra, after, extraAfter)
		}
		if len(v.Extra) == 0 || v.Map == nil || len(v.Inner) != 1 {
			t.Errorf("%s: decoded %s, extra %s", in, before, extra)
		}
	}
}
