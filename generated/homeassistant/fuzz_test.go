package homeassistant

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// FuzzUnionUnmarshalJSON decodes arbitrary JSON into the volume_step union
// and into the Args of its tool. Decoding never panics; a decoded union has
// exactly one branch set and encodes back to a value that decodes to the same
// union; and arguments the typed decoder and Validate accept are accepted by
// the tool's own schema too, but for one documented limit: the schema's
// validator refuses a number a float64 cannot hold wherever it is
// (docs/reliability.md, "Limits"), where the typed decoder drops unread a
// member it has no field for.
func FuzzUnionUnmarshalJSON(f *testing.F) {
	for _, s := range []string{
		`"up"`, `"down"`, `"sideways"`, `10`, `-100`, `101`, `1.5`, `1e2`, `-0`, `null`, `true`, `[]`, `{}`,
		`{"volume_step":"up"}`, `{"volume_step":-5,"name":"tv"}`, `{"volume_step":null}`,
		`{"volume_step":"UP","domain":["media_player"]}`, `{"device_class":["tv"],"volume_step":100}`,
		`{"volume_step":9223372036854775808}`, `{"volume_step":"\u0075p"}`, `{"volume_step":1,"volume_step":"up"}`,
		`{"":2e808}`, `{"volume_step":1,"x":1e-400}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var u HassSetVolumeRelativeVolumeStep
		if err := json.Unmarshal(data, &u); err == nil {
			if (u.String != nil) == (u.Int != nil) {
				t.Fatalf("%s decoded to %+v: want exactly one branch", data, u)
			}
			enc, err := json.Marshal(u)
			if err != nil {
				t.Fatalf("encoding %+v: %v", u, err)
			}
			var again HassSetVolumeRelativeVolumeStep
			if err := json.Unmarshal(enc, &again); err != nil {
				t.Fatalf("%s (from %s) does not decode again: %v", enc, data, err)
			}
			if enc2, _ := json.Marshal(again); !bytes.Equal(enc, enc2) {
				t.Fatalf("round trip of %s: %s then %s", data, enc, enc2)
			}
		}
		var a HassSetVolumeRelativeArgs
		if err := json.Unmarshal(data, &a); err != nil || a.Validate() != nil {
			return
		}
		err := ValidateArguments("HassSetVolumeRelative", data)
		if err != nil && holdsUnreadableNumber(data) && strings.Contains(err.Error(), "float64") {
			return // the limit above
		}
		if err != nil {
			t.Fatalf("%s: the typed decoder and Validate accept it, the tool's schema does not: %v", data, err)
		}
	})
}

// holdsUnreadableNumber reports whether the JSON data holds a number that a
// float64 cannot hold: beyond its range, or nonzero but read as 0.
func holdsUnreadableNumber(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(v), 64)
			mant, _, _ := strings.Cut(strings.ToLower(string(v)), "e")
			return err != nil || (f == 0 && strings.ContainsAny(mant, "123456789"))
		case map[string]any:
			for _, m := range v {
				if walk(m) {
					return true
				}
			}
		case []any:
			for _, it := range v {
				if walk(it) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
