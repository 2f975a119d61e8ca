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

// TestStrictRequiredUndeclaredNotStrict checks that a schema whose required
// list names a property that properties does not describe is not declared
// strict: strict mode closes the object, so the model could never send the
// name the server requires, and every call failed the server's schema.
func TestStrictRequiredUndeclaredNotStrict(t *testing.T) {
	cases := []struct{ in, reason string }{
		{`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["a","missing"]}`,
			`(root): required property "missing" is not declared, and strict mode's closed object would not let the model send it`},
		{`{"type":"object","required":["q"]}`,
			`(root): required property "q" is not declared, and strict mode's closed object would not let the model send it`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string"}},"required":["q"]}},"required":["o"]}`,
			`/properties/o: required property "q" is not declared, and strict mode's closed object would not let the model send it`},
		{`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, ""},
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

// TestStrictTupleNotStrict checks that a tuple (prefixItems beside an items
// schema for the items after them) is not declared strict: strict mode has
// no prefixItems, and dropping it made items describe the first items too,
// so the model could only send arrays the server refuses.
func TestStrictTupleNotStrict(t *testing.T) {
	in := `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"number"},"minItems":1}},"required":["p"]}`
	root, _, err := Root("t", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, reason := Strict(root)
	if want := "/properties/p: a tuple (prefixItems) has no strict form"; reason != want {
		t.Errorf("reason %q, want %q; strict schema %s", reason, want, out)
	}
}

// TestStripAddedNullsLongArguments checks that the nulls of a long argument
// are all handled alike: the schema was flattened again for every value, so
// after about 50,000 values the Flattener's step budget ran out and the
// rest were read as unknown schemas, their nulls removed whether the server
// accepts them or not (a null meaning "clear this field" became "leave it")
// and their nested nulls kept, for the server to refuse.
func TestStripAddedNullsLongArguments(t *testing.T) {
	schema := `{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{
		"a":{"type":"string"},"b":{"type":["string","null"]},"o":{"type":"object","properties":{"x":{"type":"string"}}}}}}},"required":["list"]}`
	doc, err := jsontree.ParseUnique([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	in := `{"list":[` + strings.TrimSuffix(strings.Repeat(`{"a":null,"b":null,"o":{"x":null}},`, n), ",") + `]}`
	want := `{"list":[` + strings.TrimSuffix(strings.Repeat(`{"b":null,"o":{}},`, n), ",") + `]}`
	got := string(StripAddedNulls(doc, []byte(in)))
	if got != want {
		for i := range n {
			item := `{"b":null,"o":{}}`
			at := len(`{"list":[`) + i*(len(item)+1)
			if at+len(item) > len(got) || got[at:at+len(item)] != item {
				end := min(at+60, len(got))
				t.Errorf("item %d of %d: got %s..., want %s", i, n, got[at:end], item)
				break
			}
		}
	}
	if err := runtime.NewSchema("t", []byte(schema)).Validate([]byte(got)); err != nil {
		t.Errorf("the server's schema refuses the stripped arguments: %v", err)
	}
}

// TestStrictDeclUnionRequiresUndeclared checks that a tool whose top-level
// union has a branch requiring a name the top-level object does not declare
// is not declared strict: strict mode closes that object, so the model
// could never send the name, and with no other branch no call could pass.
func TestStrictDeclUnionRequiresUndeclared(t *testing.T) {
	in := `{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["b"]}]}`
	root, _, union, err := rootAndUnion("t", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `(root): branch 0 of the top-level union requires property "b", which the top-level object does not declare`
	if out, reason := StrictDecl(Decl{Root: root, Union: union}); reason != want {
		t.Errorf("reason %q, want %q; strict schema %s", reason, want, out)
	}
}

// TestStrictDanglingRefNotStrict checks that a $ref to a $defs entry the
// schema does not have is not declared strict: strict mode compiles the
// schema, and a reference to nothing would make the API refuse the whole
// request, every other tool's declaration with it.
func TestStrictDanglingRefNotStrict(t *testing.T) {
	in := `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}},"required":["a"],"$defs":{"other":{"type":"string"}}}`
	root, _, err := Root("t", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `/properties/a: $ref "#/$defs/missing" points at no $defs entry`
	if out, reason := Strict(root); reason != want {
		t.Errorf("reason %q, want %q; strict schema %s", reason, want, out)
	}
}
