package provschema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestStrictNullableKeepsTypesUnique checks that making an optional property
// nullable for strict mode adds no second "null" to a type list that has
// one (a type list whose items repeat is no valid JSON Schema), nor a second
// null to an enum that has one.
func TestStrictNullableKeepsTypesUnique(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"nullable type, enum without null", `{"type":"object","properties":{"a":{"type":["string","null"],"enum":["x","y"]}}}`,
			`{"type":"object","properties":{"a":{"type":["string","null"],"enum":["x","y",null]}},"required":["a"],"additionalProperties":false}`},
		{"enum with null, type without", `{"type":"object","properties":{"a":{"type":"string","enum":["x",null]}}}`,
			`{"type":"object","properties":{"a":{"type":["string","null"],"enum":["x",null]}},"required":["a"],"additionalProperties":false}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, _, err := Root("t", []byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			out, reason := Strict(root)
			if reason != "" {
				t.Fatalf("reason %q", reason)
			}
			if got := out.String(); got != c.want {
				t.Errorf("strict = %s\nwant     %s", got, c.want)
			}
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(out.String()))
			if err != nil {
				t.Fatal(err)
			}
			comp := jsonschema.NewCompiler()
			if err := comp.AddResource("strict.json", doc); err != nil {
				t.Fatal(err)
			}
			if _, err := comp.Compile("strict.json"); err != nil {
				t.Errorf("the strict schema is not valid JSON Schema: %v", err)
			}
		})
	}
}

// TestStrictEnumLimits checks that a schema over strict mode's documented
// enum limits (1,000 enum values in one schema; 15,000 characters in the
// values of one string enum of more than 250 values) is not declared
// strict, which the API would refuse.
func TestStrictEnumLimits(t *testing.T) {
	values := func(n, size int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + strings.Repeat("v", size) + fmt.Sprint(i) + `"`)
		}
		return b.String()
	}
	cases := []struct{ name, in, reason string }{
		{"1,000 enum values", `{"type":"object","properties":{"a":{"type":"string","enum":[` + values(500, 1) + `]},"b":{"type":"string","enum":[` + values(500, 1) + `]}},"required":["a","b"]}`, ""},
		{"1,001 enum values", `{"type":"object","properties":{"a":{"type":"string","enum":[` + values(500, 1) + `]},"b":{"type":"string","enum":[` + values(501, 1) + `]}},"required":["a","b"]}`,
			"(root): 1001 enum values exceed strict mode's limit of 1000"},
		{"long values of a large enum", `{"type":"object","properties":{"a":{"type":"string","enum":[` + values(251, 60) + `]}},"required":["a"]}`,
			"/properties/a: the 251 values of the enum take 15703 characters, more than strict mode's limit of 15000 for an enum of more than 250 values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, _, err := Root("t", []byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if _, reason := Strict(root); reason != c.reason {
				t.Errorf("reason %q, want %q", reason, c.reason)
			}
		})
	}
}

// TestStrictCharacterLimit checks that a schema whose property names, enum
// values and const values take more than strict mode's documented 120,000
// characters is not declared strict.
func TestStrictCharacterLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range 121 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%03d":{"type":"string","enum":["%s"]}`, i, strings.Repeat("x", 1000))
	}
	b.WriteString(`}}`)
	root, _, err := Root("t", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	want := "(root): property names, definition names, enum values and const values take 121484 characters, more than strict mode's limit of 120000"
	if _, reason := Strict(root); reason != want {
		t.Errorf("reason %q, want %q", reason, want)
	}
}

// TestStripAddedNullsPicksUnionBranch checks that the nulls a strict model
// sends for the optional properties of the second object branch of a union
// (a const-tagged union, say) are removed: only the first object branch was
// read, which does not have them, so the nulls reached the server and the
// call failed its schema.
func TestStripAddedNullsPicksUnionBranch(t *testing.T) {
	schema := `{"type":"object","properties":{"shape":{"anyOf":[
		{"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"number"}},"required":["kind"]},
		{"type":"object","properties":{"kind":{"const":"rect"},"width":{"type":"number"},"height":{"type":"number"}},"required":["kind"]}
	]}},"required":["shape"]}`
	doc, err := jsontree.ParseUnique([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{`{"shape":{"kind":"circle","radius":null}}`, `{"shape":{"kind":"circle"}}`},
		{`{"shape":{"kind":"rect","width":2,"height":null}}`, `{"shape":{"kind":"rect","width":2}}`},
	}
	checkStripped(t, doc, schema, cases)
}

// checkStripped checks that StripAddedNulls turns each case's input into
// its want, and that the server's schema accepts the result.
func checkStripped(t *testing.T, doc *jsontree.Node, schema string, cases []struct{ in, want string }) {
	t.Helper()
	for _, c := range cases {
		got := StripAddedNulls(doc, []byte(c.in))
		if string(got) != c.want {
			t.Errorf("StripAddedNulls(%s) = %s, want %s", c.in, got, c.want)
		}
		if err := runtime.NewSchema("t", []byte(schema)).Validate(got); err != nil {
			t.Errorf("the server's schema refuses %s: %v", got, err)
		}
	}
}

// TestStrictRootMapNotStrict checks that a tool whose arguments are a map
// (no declared properties, a schema for the other keys) is not declared
// strict: strict mode closes the object, so the model could send no key at
// all and every call would miss what the tool needs.
func TestStrictRootMapNotStrict(t *testing.T) {
	cases := []struct{ in, reason string }{
		{`{"type":"object","additionalProperties":{"type":"string"}}`, "(root): an object without declared properties has no strict form"},
		{`{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`, "(root): an object without declared properties has no strict form"},
		{`{"type":"object"}`, ""},
		{`{"type":"object","properties":{},"additionalProperties":false}`, ""},
	}
	for _, c := range cases {
		root, _, err := Root("t", []byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if _, reason := Strict(root); reason != c.reason {
			t.Errorf("%s: reason %q, want %q", c.in, reason, c.reason)
		}
	}
}
