package corpus

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestInstances checks that the instance generator aims well: its first
// instance of each schema is valid, and it builds invalid ones too, each
// expected mutation among them.
func TestInstances(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		invalid []string // instances that must be among the output
	}{
		{"empty object", `{"type":"object"}`, []string{`[]`}},
		{"required string", `{"type":"object","properties":{"a":{"type":"string","minLength":2,"maxLength":4}},"required":["a"]}`,
			[]string{`{}`, `{"a":1}`, `{"a":"x"}`, `{"a":"xxxxx"}`}},
		{"integer range", `{"type":"object","properties":{"n":{"type":"integer","minimum":3,"maximum":9}},"required":["n"]}`,
			[]string{`{"n":2}`, `{"n":10}`, `{"n":3.5}`, `{"n":"1"}`}},
		{"exclusive bounds", `{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}},"required":["n"]}`,
			[]string{`{"n":-0.5}`}},
		{"enum", `{"type":"object","properties":{"e":{"type":"string","enum":["a","b"]}},"required":["e"]}`,
			[]string{`{"e":"not-in-enum-0"}`}},
		{"integer enum", `{"type":"object","properties":{"e":{"enum":[1,2]}},"required":["e"]}`,
			[]string{`{"e":-7919}`}},
		{"const", `{"type":"object","properties":{"k":{"const":"x"}},"required":["k"]}`,
			[]string{`{"k":12345}`}},
		{"pattern", `{"type":"object","properties":{"p":{"type":"string","pattern":"^[A-Z]{2}-[0-9]+$"}},"required":["p"]}`,
			[]string{"{\"p\":\"\\u0000~\"}"}},
		{"format", `{"type":"object","properties":{"d":{"type":"string","format":"date-time"}},"required":["d"]}`,
			[]string{`{"d":"not a date-time value %%"}`}},
		{"closed", `{"type":"object","properties":{"a":{"type":"boolean"}},"additionalProperties":false}`,
			[]string{`{"a":true,"unknown_property_x":"x"}`}},
		{"array", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}},"required":["l"]}`,
			[]string{`{"l":[]}`, `{"l":[1,1,1]}`, `{"l":{"not":"an array"}}`}},
		{"nullable", `{"type":"object","properties":{"s":{"type":["string","null"]}},"required":["s"]}`, nil},
		{"anyOf", `{"type":"object","properties":{"u":{"anyOf":[{"type":"string"},{"type":"integer","minimum":0}]}},"required":["u"]}`,
			[]string{`{"u":-1}`}},
		{"ref", `{"type":"object","$defs":{"p":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},"properties":{"p":{"$ref":"#/$defs/p"}},"required":["p"]}`,
			[]string{`{"p":{}}`}},
		{"recursive ref", `{"type":"object","properties":{"name":{"type":"string"},"next":{"$ref":"#"}},"required":["name"]}`, nil},
		{"allOf", `{"type":"object","properties":{"x":{"allOf":[{"type":"integer","minimum":0},{"maximum":50}]}},"required":["x"]}`,
			[]string{`{"x":51}`}},
		{"map", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}}},"required":["m"]}`,
			[]string{`{"m":{"key":"1"}}`}},
		{"draft-07 tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}]}},"required":["t"]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Instances([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			s := runtime.NewSchema(tt.name, []byte(tt.schema))
			if err := s.Validate(out[0]); err != nil {
				t.Errorf("first instance %s is invalid: %v", out[0], err)
			}
			have := map[string]bool{}
			rejected := 0
			for _, inst := range out {
				have[string(inst)] = true
				if s.Validate(inst) != nil {
					rejected++
				}
			}
			if rejected == 0 {
				t.Errorf("no invalid instance among %d", len(out))
			}
			for _, want := range tt.invalid {
				if !have[want] {
					t.Errorf("missing instance %s; have %s", want, out)
				} else if s.Validate(json.RawMessage(want)) == nil {
					t.Errorf("mutation %s is valid", want)
				}
			}
			again, _ := Instances([]byte(tt.schema))
			if len(again) != len(out) {
				t.Errorf("a second run gives %d instances, the first %d", len(again), len(out))
			}
		})
	}
}

func TestInstancesBadSchema(t *testing.T) {
	if _, err := Instances([]byte(`{`)); err == nil {
		t.Fatal("no error for malformed JSON")
	}
}

func TestMatching(t *testing.T) {
	for _, p := range []string{`^[a-z]+-[0-9]+$`, `^\d{4}-\d{2}-\d{2}$`, `[0-9]`, `^(foo|bar)?baz$`, `^[^/]+/[^/]+$`, `^.{3,}$`, `^[A-Fa-f0-9]{40}$`} {
		s, ok := matching(p, 5)
		if !ok {
			t.Errorf("%s: no match found", p)
			continue
		}
		if !regexp.MustCompile(p).MatchString(s) {
			t.Errorf("%s: %q does not match", p, s)
		}
	}
	if _, ok := matching(`(?<!x)a`, 0); ok {
		t.Error("a pattern Go cannot read gave a match")
	}
}
