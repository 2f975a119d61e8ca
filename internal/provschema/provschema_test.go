package provschema

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

func TestRoot(t *testing.T) {
	cases := []struct{ name, in, want, note string }{
		{"empty", ``, `{"type":"object","properties":{}}`, ""},
		{"schema only", `{"$schema":"x"}`, `{"type":"object","properties":{},"$schema":"x"}`, ""},
		{"order kept", `{"required":["b"],"properties":{"b":{},"a":{}},"type":"object"}`, `{"type":"object","properties":{"b":{},"a":{}},"required":["b"]}`, ""},
		{"top ref", `{"$ref":"#/$defs/A","description":"D","$defs":{"A":{"type":"object","properties":{"x":{"$ref":"#/$defs/B"}}},"B":{"type":"string"}}}`,
			`{"type":"object","properties":{"x":{"$ref":"#/$defs/B"}},"description":"D","$defs":{"A":{"type":"object","properties":{"x":{"$ref":"#/$defs/B"}}},"B":{"type":"string"}}}`, ""},
		{"top allOf", `{"type":"object","properties":{"a":{"type":"integer"}},"allOf":[{"properties":{"a":{"minimum":1},"b":{}},"required":["b"]}]}`,
			`{"type":"object","properties":{"a":{"allOf":[{"type":"integer"},{"minimum":1}]},"b":{}},"required":["b"]}`, ""},
		{"top oneOf", `{"type":"object","properties":{"a":{}},"oneOf":[{"required":["a"]}]}`,
			`{"type":"object","properties":{"a":{}}}`, `The arguments must also match one of these schemas: [{"required":["a"]}].`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, note, err := Root("t", []byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := root.String(); got != c.want {
				t.Errorf("root = %s\nwant %s", got, c.want)
			}
			if note != c.note {
				t.Errorf("note = %q, want %q", note, c.note)
			}
		})
	}
}

func TestStrict(t *testing.T) {
	cases := []struct{ name, in, want, reason string }{
		{"optional made nullable", `{"type":"object","properties":{"a":{"type":"string","minLength":2},"b":{"type":"integer","enum":[1,2]},"c":{"$ref":"#/$defs/C"},"d":{"type":["string","null"]}},"required":["a"],"$defs":{"C":{"type":"object","properties":{"x":{"type":"boolean"}}}}}`,
			`{"type":"object","properties":{"a":{"type":"string","description":"At least 2 characters."},"b":{"type":["integer","null"],"enum":[1,2,null]},"c":{"anyOf":[{"$ref":"#/$defs/C"},{"type":"null"}]},"d":{"type":["string","null"]}},"required":["a","b","c","d"],"$defs":{"C":{"type":"object","properties":{"x":{"type":["boolean","null"]}},"required":["x"],"additionalProperties":false}},"additionalProperties":false}`, ""},
		{"one character", `{"type":"object","properties":{"a":{"type":"string","minLength":1,"maxLength":1}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"string","description":"At least 1 character. At most 1 character."}},"required":["a"],"additionalProperties":false}`, ""},
		{"oneOf to anyOf", `{"type":"object","properties":{"u":{"oneOf":[{"type":"string"},{"type":"number"}]}},"required":["u"]}`,
			`{"type":"object","properties":{"u":{"anyOf":[{"type":"string"},{"type":"number"}]}},"required":["u"],"additionalProperties":false}`, ""},
		{"format and bounds", `{"type":"object","properties":{"f":{"type":"string","format":"uri"},"n":{"type":"number","minimum":0,"exclusiveMinimum":true}},"required":["f","n"]}`,
			`{"type":"object","properties":{"f":{"type":"string","description":"Format: uri."},"n":{"type":"number","exclusiveMinimum":0}},"required":["f","n"],"additionalProperties":false}`, ""},
		{"free-form", `{"type":"object","properties":{"m":{"type":"object"}}}`, "", "/properties/m: an object without declared properties has no strict form"},
		{"untyped", `{"type":"object","properties":{"v":{"description":"any"}}}`, "", "/properties/v: a schema without a type has no strict form"},
		{"allOf", `{"type":"object","properties":{"v":{"allOf":[{"type":"string"}]}}}`, "", "/properties/v: allOf has no strict form"},
		{"boolean", `{"type":"object","properties":{"v":true}}`, "", "/properties/v: a boolean schema has no strict form"},
		{"too deep", nested(11), "", "/properties/o/properties/o/properties/o/properties/o/properties/o/properties/o/properties/o/properties/o/properties/o/properties/o: objects nest deeper than strict mode's limit of 10 levels"},
		{"deep enough", nested(10), nested(10), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, _, err := Root("t", []byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			out, reason := Strict(root)
			if reason != c.reason {
				t.Errorf("reason = %q, want %q", reason, c.reason)
			}
			if c.reason == "" {
				if got := out.String(); got != c.want {
					t.Errorf("strict =\n %s\nwant %s", got, c.want)
				}
			}
		})
	}
}

// nested returns an object schema with levels nested objects, each with one
// required property.
func nested(levels int) string {
	s := `{"type":"string"}`
	for i := 0; i < levels; i++ {
		if i == levels-1 {
			return `{"type":"object","properties":{"o":` + s + `},"required":["o"],"additionalProperties":false}`
		}
		s = `{"type":"object","properties":{"o":` + s + `},"required":["o"],"additionalProperties":false}`
	}
	return s
}

func TestStripAddedNulls(t *testing.T) {
	schema := `{"type":"object","properties":{
		"req":{"type":"string"},
		"opt":{"type":"string"},
		"nul":{"type":["string","null"]},
		"ref":{"$ref":"#/$defs/R"},
		"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer"},"y":{"anyOf":[{"type":"integer"},{"type":"null"}]}}}},
		"union":{"anyOf":[{"type":"object","properties":{"k":{"type":"string"}}},{"type":"string"}]}
	},"required":["req"],"$defs":{"R":{"type":"object","properties":{"z":{"type":"boolean"}}}}}`
	doc, err := jsontree.ParseUnique([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{`{"req":"a","opt":null,"nul":null,"ref":null}`, `{"req":"a","nul":null}`},
		{`{"req":null}`, `{"req":null}`},
		{`{"req":"a","ref":{"z":null}}`, `{"req":"a","ref":{}}`},
		{`{"req":"a","list":[{"x":null,"y":null},{"x":1}]}`, `{"req":"a","list":[{"y":null},{"x":1}]}`},
		{`{"req":"a","union":{"k":null}}`, `{"req":"a","union":{}}`},
		{`{"req":"a","opt":"b"}`, `{"req":"a","opt":"b"}`},
		{`not json`, `not json`},
	}
	for _, c := range cases {
		if got := string(StripAddedNulls(doc, []byte(c.in))); got != c.want {
			t.Errorf("StripAddedNulls(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestRootRefSiblingsMerged checks that the keywords beside a top-level
// $ref are merged with the target's, as allOf does: properties and required
// beside the $ref replaced the target's, losing its properties.
func TestRootRefSiblingsMerged(t *testing.T) {
	in := `{"$ref":"#/$defs/A","properties":{"b":{"type":"string"},"a":{"minimum":1}},"required":["b"],
		"$defs":{"A":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"allOf":[{"properties":{"c":{}}}]}}}`
	root, _, err := Root("t", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"b":{"type":"string"},"a":{"allOf":[{"minimum":1},{"type":"integer"}]},"c":{}},"required":["b","a"]}`
	root.Delete("$defs")
	if got := root.String(); got != want {
		t.Errorf("root = %s\nwant %s", got, want)
	}
}

// TestRootRefErrorsNamePointer checks that a top-level $ref that cannot be
// followed is an error naming the tool and the JSON pointer.
func TestRootRefErrorsNamePointer(t *testing.T) {
	for in, want := range map[string]string{
		`{"$ref":"#/$defs/missing"}`: `tool t: input schema at /$ref: $ref "#/$defs/missing" does not resolve: no member "$defs"`,
		`{"$ref":"#"}`:               `tool t: input schema at /$ref: $ref "#" is reached again inside itself: a recursive schema cannot be merged`,
		`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`: `tool t: input schema at (root): type is "string", not object`,
	} {
		if _, _, err := Root("t", []byte(in)); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", in, err, want)
		}
	}
}

// TestStripAddedNullsAllOfRequired checks that a property one allOf part
// describes and another requires keeps its null: each part was read alone,
// so the first found the property optional and removed the null the server
// must see and reject.
func TestStripAddedNullsAllOfRequired(t *testing.T) {
	doc, err := jsontree.Parse([]byte(`{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}},{"$ref":"#/$defs/r"}],"$defs":{"r":{"required":["a"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(StripAddedNulls(doc, []byte(`{"a":null}`))); got != `{"a":null}` {
		t.Errorf("StripAddedNulls = %s, want the null kept", got)
	}
	// Optional in every part, the null is still removed.
	doc, _ = jsontree.Parse([]byte(`{"allOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{}}}]}`))
	if got := string(StripAddedNulls(doc, []byte(`{"a":null,"b":1}`))); got != `{"b":1}` {
		t.Errorf("StripAddedNulls = %s, want {\"b\":1}", got)
	}
}
