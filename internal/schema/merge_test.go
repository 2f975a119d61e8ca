package schema

import "testing"

// TestMergeKeyword merges the values two allOf parts give one keyword, and
// leaves to the caller what JSON Schema gives no single value for.
func TestMergeKeyword(t *testing.T) {
	for _, tc := range []struct {
		k, a, b string
		want    string // "" when ok is false
		err     string
	}{
		{"type", `["string","null"]`, `"string"`, `"string"`, ""},
		{"type", `"number"`, `["integer","boolean"]`, `"integer"`, ""},
		{"type", `"string"`, `"integer"`, "", `type "string" and type "integer" have no value in common`},
		{"properties", `{"a":{"type":"string"},"b":{}}`, `{"b":{},"c":{"type":"integer"},"a":{"minLength":1}}`,
			`{"a":{"allOf":[{"type":"string"},{"minLength":1}]},"b":{},"c":{"type":"integer"}}`, ""},
		{"properties", `{"a":{}}`, `[]`, "", "properties is not an object"},
		{"required", `["a","b"]`, `["b","c"]`, `["a","b","c"]`, ""},
		{"enum", `["a","b",1]`, `[1.0,"b"]`, `["b",1]`, ""},
		{"enum", `["a"]`, `["b"]`, `[]`, ""},
		{"minimum", `1`, `2`, `2`, ""},
		{"maxLength", `5`, `3`, `3`, ""},
		{"exclusiveMinimum", `true`, `2`, "", ""},
		{"items", `false`, `{"type":"string"}`, `false`, ""},
		{"items", `{}`, `{"type":"string"}`, `{"type":"string"}`, ""},
		{"items", `{"type":"string"}`, `{"minLength":1}`, `{"allOf":[{"type":"string"},{"minLength":1}]}`, ""},
		{"const", `"a"`, `"a"`, `"a"`, ""},
		{"const", `"a"`, `"b"`, "", ""},
		{"pattern", `"^a"`, `"b$"`, "", ""},
	} {
		out, ok, err := MergeKeyword(tc.k, parse(t, tc.a), parse(t, tc.b))
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s %s and %s: got error %v, want %s", tc.k, tc.a, tc.b, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s %s and %s: %v", tc.k, tc.a, tc.b, err)
		case tc.want == "" && ok:
			t.Errorf("%s %s and %s: merged to %s, want no merge", tc.k, tc.a, tc.b, out)
		case tc.want != "" && (!ok || out.String() != tc.want):
			t.Errorf("%s %s and %s: got %s (ok %v), want %s", tc.k, tc.a, tc.b, out, ok, tc.want)
		}
	}
}
