package ir

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

// build builds the tools of the snapshot doc with the reserved names.
func build(t *testing.T, doc string, reserved ...string) (*Package, error) {
	t.Helper()
	s, err := snapshot.Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return BuildOptions(s.Tools, Options{Reserved: reserved})
}

// TestUnmappableSchemasAreErrors checks that constructs the IR cannot map
// are errors naming the tool and the JSON pointer, never a silent fallback.
// Without strict mode, those the meta-schema rejects too (uncallable) leave
// their tool out instead, with the same words in Package.Skipped; the
// others, which a server can still call, stay errors.
func TestUnmappableSchemasAreErrors(t *testing.T) {
	uncallable := map[string]bool{"unknown type": true, "type not string": true, "schema not object": true, "bad pattern": true, "bad minLength": true, "empty anyOf": true}
	for _, tc := range []struct{ name, schema, want string }{
		{"allOf types", `{"properties":{"x":{"allOf":[{"type":"string"},{"type":"integer"}]}}}`,
			`tool "t": /inputSchema/properties/x/allOf/1/type: allOf parts have types "string" and "integer"`},
		{"allOf consts", `{"properties":{"x":{"allOf":[{"const":1},{"const":2}]}}}`,
			`tool "t": /inputSchema/properties/x/allOf/1/const: allOf parts disagree on const`},
		{"allOf formats", `{"properties":{"x":{"allOf":[{"type":"string","format":"email"},{"format":"uri"}]}}}`,
			`/inputSchema/properties/x/allOf/1/format: allOf parts disagree on format`},
		{"recursive allOf", `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}],"type":"object","properties":{"p":{"type":"string"}}}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
			`a recursive schema cannot be merged`},
		{"unknown type", `{"properties":{"x":{"type":"decimal"}}}`, `tool "t": /inputSchema/properties/x/type: unknown type "decimal"`},
		{"type not string", `{"properties":{"x":{"type":5}}}`, `/inputSchema/properties/x/type: type is a JSON number`},
		{"schema not object", `{"properties":{"x":"string"}}`, `/inputSchema/properties/x: schema is a JSON string`},
		{"bad pattern", `{"properties":{"x":{"type":"string","pattern":"(a"}}}`, `/inputSchema/properties/x/pattern: pattern "(a" is not an ECMA-262 regular expression`},
		{"bad minLength", `{"properties":{"x":{"type":"string","minLength":-1}}}`, `/inputSchema/properties/x/minLength: minLength is -1`},
		{"tag name", "{\"properties\":{\"a,b\":{\"type\":\"string\"}}}", `/inputSchema/properties/a,b: property name "a,b" cannot be named in a Go struct tag`},
		{"empty name", `{"properties":{"":{"type":"string"}}}`, `property name "" cannot be named`},
		{"anyOf and oneOf", `{"properties":{"x":{"anyOf":[{"type":"string"}],"oneOf":[{"type":"integer"}]}}}`, `anyOf and oneOf on the same schema`},
		{"empty anyOf", `{"properties":{"x":{"anyOf":[]}}}`, `/inputSchema/properties/x/anyOf: anyOf must be a non-empty array`},
		{"root not object", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `tool "t": /inputSchema: the schema does not describe a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := snapshot.Read("t.json", []byte(`[{"name":"t","inputSchema":`+tc.schema+`},{"name":"u","inputSchema":{}}]`))
			if err != nil {
				t.Fatal(err)
			}
			_, err = BuildOptions(s.Tools, Options{Strict: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("strict Build error = %v, want %q", err, tc.want)
			}
			var ie *Error
			if errors.As(err, &ie) && ie.Uncallable != uncallable[tc.name] {
				t.Errorf("Uncallable = %v, want %v", ie.Uncallable, uncallable[tc.name])
			}
			pkg, err := BuildOptions(s.Tools, Options{})
			switch {
			case !uncallable[tc.name]:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Build error = %v, want %q", err, tc.want)
				}
			case err != nil:
				t.Errorf("Build error = %v, want tool t left out", err)
			case len(pkg.Tools) != 1 || pkg.Tools[0].Name != "u" || len(pkg.Skipped) != 1 || !strings.Contains(pkg.Skipped[0].Error(), tc.want):
				t.Errorf("Build kept %d tools and left out %v, want u kept and t left out with %q", len(pkg.Tools), pkg.Skipped, tc.want)
			}
		})
	}
}

func TestNamesAreStableAndCollisionFree(t *testing.T) {
	pkg, err := build(t, `[
		{"name":"list_events","inputSchema":{}},
		{"name":"list-events","inputSchema":{}},
		{"name":"Client","inputSchema":{}},
		{"name":"snapshot","inputSchema":{"properties":{"hash":{"type":"object","properties":{"a":{"type":"string"}}}}}}]`, "SnapshotHash")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range pkg.Tools {
		got = append(got, tool.Name+"="+tool.GoName)
	}
	// Both dashed and underscored names are two edits away from ListEvents;
	// the tie goes to the one that sorts first, and the other gets a suffix
	// from the hash of its own name.
	if want := "Client=Client list-events=ListEvents list_events=ListEvents_23e2 snapshot=Snapshot"; strings.Join(got, " ") != want {
		t.Errorf("tool names = %s, want %s", strings.Join(got, " "), want)
	}
	seen := map[string]bool{}
	for _, typ := range pkg.Types {
		if seen[typ.Name] {
			t.Errorf("type name %s used twice", typ.Name)
		}
		seen[typ.Name] = true
	}
	if !seen["SnapshotHash_8312"] || seen["SnapshotHash"] {
		t.Errorf("the nested type of snapshot.hash must not take the reserved SnapshotHash: %v", seen)
	}
	// Adding a tool that sorts last renames nothing.
	more, err := build(t, `[
		{"name":"list_events","inputSchema":{}},
		{"name":"list-events","inputSchema":{}},
		{"name":"Client","inputSchema":{}},
		{"name":"snapshot","inputSchema":{"properties":{"hash":{"type":"object","properties":{"a":{"type":"string"}}}}}},
		{"name":"zz","inputSchema":{}}]`)
	if err != nil {
		t.Fatal(err)
	}
	for i, tool := range pkg.Tools {
		if more.Tools[i].GoName != tool.GoName {
			t.Errorf("adding a tool renamed %s to %s", tool.GoName, more.Tools[i].GoName)
		}
	}
}

// identifiers maps what each identifier of pkg stands for to the
// identifier: tools, named types, struct fields and enum constants.
func identifiers(pkg *Package) map[string]string {
	ids := map[string]string{}
	for _, tool := range pkg.Tools {
		ids["tool "+tool.Name] = tool.GoName
	}
	for _, typ := range pkg.Types {
		key := typ.origin
		if key == "" {
			key = typ.Name // a tool's Args or Result
		}
		ids["type "+key] = typ.Name
		for _, f := range typ.Fields {
			ids["field "+key+"."+f.JSONName] = f.GoName
		}
		for _, v := range typ.Values {
			ids["const "+key+"="+scalarText(v.Value)] = v.GoName
		}
	}
	return ids
}

// TestAddingACollidingNameRenamesNothing builds a tool list, then the same
// list with one more element that wants an identifier already handed out
// and comes first (sorts first, or comes first in schema order): no
// identifier of the first build changes, and the new element gets a
// suffix derived from its own name.
func TestAddingACollidingNameRenamesNothing(t *testing.T) {
	for _, tc := range []struct {
		name, before, after, added string
	}{
		{"tool",
			`[{"name":"listEvents","inputSchema":{}}]`,
			`[{"name":"listEvents","inputSchema":{}},{"name":"list-events","inputSchema":{}}]`,
			"tool list-events"},
		{"exact tool name",
			`[{"name":"HassTurnOn","inputSchema":{}}]`,
			`[{"name":"HassTurnOn","inputSchema":{}},{"name":"Hass-Turn-On","inputSchema":{}}]`,
			"tool Hass-Turn-On"},
		{"property",
			`[{"name":"t","inputSchema":{"properties":{"userId":{"type":"string"}}}}]`,
			`[{"name":"t","inputSchema":{"properties":{"user-id":{"type":"string"},"userId":{"type":"string"}}}}]`,
			"field TArgs.user-id"},
		{"enum constant",
			`[{"name":"t","inputSchema":{"properties":{"answer":{"enum":["yes","no"]}}}}]`,
			`[{"name":"t","inputSchema":{"properties":{"answer":{"enum":["_yes","yes","no"]}}}}]`,
			"const t#/inputSchema/properties/answer=_yes"},
		{"type",
			`[{"name":"list_user","inputSchema":{"properties":{"filter":{"type":"object","properties":{"q":{"type":"string"}}}}}}]`,
			`[{"name":"list_user","inputSchema":{"properties":{"filter":{"type":"object","properties":{"q":{"type":"string"}}}}}},
			  {"name":"list","inputSchema":{"properties":{"user_filter":{"type":"object","properties":{"q":{"type":"string"}}}}}}]`,
			"type list#/inputSchema/properties/user_filter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := build(t, tc.before)
			if err != nil {
				t.Fatal(err)
			}
			after, err := build(t, tc.after)
			if err != nil {
				t.Fatal(err)
			}
			old, now := identifiers(before), identifiers(after)
			for k, id := range old {
				if now[k] != id {
					t.Errorf("%s was %s, is now %s", k, id, now[k])
				}
			}
			added, ok := now[tc.added]
			if !ok || !strings.Contains(added, "_") {
				t.Errorf("%s is named %q, want a suffixed name (all: %v)", tc.added, added, now)
			}
			// The same list in another order gives the same names.
			var list []json.RawMessage
			if err := json.Unmarshal([]byte(tc.after), &list); err != nil {
				t.Fatal(err)
			}
			slices.Reverse(list)
			rev, _ := json.Marshal(list)
			reversed, err := build(t, string(rev))
			if err != nil {
				t.Fatal(err)
			}
			if got := identifiers(reversed); !maps.Equal(got, now) {
				t.Errorf("reversing the tools changed the names:\n%v\n%v", now, got)
			}
		})
	}
}

func TestRawChecksNameTheirKeywords(t *testing.T) {
	pkg, err := build(t, `[{"name":"t","inputSchema":{"properties":{"x":{"type":"string","not":{"const":"a"}},
		"y":{"type":"array","uniqueItems":true}},"if":{"required":["x"]},"then":{"required":["y"]}}}]`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pkg.Tools[0].RawChecks, ","); got != "if,not,then,uniqueItems" {
		t.Errorf("RawChecks = %s", got)
	}
	plain, err := build(t, `[{"name":"t","inputSchema":{"properties":{"x":{"type":"string","uniqueItems":false}}}}]`)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Tools[0].RawChecks) != 0 {
		t.Errorf("RawChecks = %v for a schema Go checks fully", plain.Tools[0].RawChecks)
	}
}
