package schema

import (
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

func parse(t *testing.T, s string) *jsontree.Node {
	t.Helper()
	n, err := jsontree.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestResolve resolves pointers, plain-name anchors, $dynamicAnchor and
// references after the root's $id, and names what does not resolve.
func TestResolve(t *testing.T) {
	doc := parse(t, `{"$id":"https://example.com/s","$defs":{"point":{"$anchor":"pt","type":"object"},"node":{"$dynamicAnchor":"node"},
		"data":{"const":{"$anchor":"notme"}}}}`)
	for _, tc := range []struct{ ref, ptr, err string }{
		{"#", "", ""},
		{"#/$defs/point", "/$defs/point", ""},
		{"#pt", "/$defs/point", ""},
		{"#node", "/$defs/node", ""},
		{"https://example.com/s#pt", "/$defs/point", ""},
		{"https://example.com/s", "", ""},
		{"#/%24defs/point", "/$defs/point", ""},
		{"#notme", "", `$ref "#notme" does not resolve: no $anchor "notme"`},
		{"#/$defs/missing", "", `$ref "#/$defs/missing" does not resolve: no member "missing"`},
		{"other.json#pt", "", `$ref "other.json#pt" points outside the schema, which mcpgen does not fetch`},
		{"#/$defs/a%zz", "", `$ref "#/$defs/a%zz" is not a valid URI reference: invalid URL escape "%zz"`},
	} {
		_, ptr, err := Resolve(doc, tc.ref)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: got error %v, want %s", tc.ref, err, tc.err)
			}
			continue
		}
		if err != nil || ptr != tc.ptr {
			t.Errorf("%s: got %q, %v; want %q", tc.ref, ptr, err, tc.ptr)
		}
	}
}

func TestIntersectTypes(t *testing.T) {
	for _, tc := range []struct{ a, b, want []string }{
		{[]string{"integer", "number"}, []string{"integer", "number"}, []string{"integer", "number"}},
		{[]string{"number"}, []string{"integer", "string"}, []string{"integer"}},
		{[]string{"string", "null"}, []string{"null"}, []string{"null"}},
		{[]string{"string"}, []string{"boolean"}, nil},
	} {
		if got := IntersectTypes(tc.a, tc.b); !slices.Equal(got, tc.want) {
			t.Errorf("IntersectTypes(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSplitNull(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
		null     bool
	}{
		{[]string{"string", "null", "string"}, []string{"string"}, true},
		{[]string{"null"}, nil, true},
		{[]string{"integer", "number"}, []string{"integer", "number"}, false},
		{nil, nil, false},
	} {
		if got, null := SplitNull(tc.in); !slices.Equal(got, tc.want) || null != tc.null {
			t.Errorf("SplitNull(%v) = %v, %v; want %v, %v", tc.in, got, null, tc.want, tc.null)
		}
	}
}

func TestOnlyNull(t *testing.T) {
	for s, want := range map[string]bool{
		`{"type":"null"}`:                  true,
		`{"type":["null"]}`:                true,
		`{"const":null}`:                   true,
		`{"enum":[null]}`:                  true,
		`{"type":["string","null"]}`:       false,
		`{"enum":[null,"a"]}`:              false,
		`{"enum":[]}`:                      false,
		`{}`:                               false,
		`{"type":"null","description":""}`: true,
	} {
		if got := OnlyNull(parse(t, s)); got != want {
			t.Errorf("OnlyNull(%s) = %v, want %v", s, got, want)
		}
	}
}

// TestRefSiblings keeps every keyword beside a $ref in 2020-12 and only the
// annotations up to draft-07.
func TestRefSiblings(t *testing.T) {
	n := parse(t, `{"$ref":"#/$defs/a","type":"integer","description":"d","minimum":1,"title":"t"}`)
	for _, tc := range []struct {
		schema string
		want   string
	}{
		{"http://json-schema.org/draft-07/schema#", `{"description":"d","title":"t"}`},
		{"http://json-schema.org/draft-04/schema#", `{"description":"d","title":"t"}`},
		{"https://json-schema.org/draft/2020-12/schema", `{"type":"integer","description":"d","minimum":1,"title":"t"}`},
		{"", `{"type":"integer","description":"d","minimum":1,"title":"t"}`},
	} {
		if got := DraftNamed(tc.schema).RefSiblings(n).String(); got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.schema, got, tc.want)
		}
	}
}

// TestInvalidRef finds a $ref that is not a URI reference wherever it is,
// but not inside the data of const, enum or default.
func TestInvalidRef(t *testing.T) {
	doc := parse(t, `{"default":{"$ref":"%"},"properties":{"a":{"$ref":"#/$defs/a"},"b":{"anyOf":[{"type":"string"},{"$ref":"#/x%"}]}}}`)
	ptr, err := InvalidRef(doc)
	if ptr != "/properties/b/anyOf/1/$ref" || err == nil || err.Error() != `$ref "#/x%" is not a valid URI reference: invalid URL escape "%"` {
		t.Errorf("InvalidRef = %q, %v", ptr, err)
	}
	if ptr, err := InvalidRef(parse(t, `{"properties":{"a":{"$ref":"#/$defs/a%20b"}},"const":{"$ref":"%"}}`)); err != nil {
		t.Errorf("InvalidRef = %q, %v on well-formed references", ptr, err)
	}
}
