package diff

import (
	"github.com/mcpgen/mcpgen/internal/jsontree"

	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestBadTools(t *testing.T) {
	good := inTool(`{"type":"object"}`)
	for _, tc := range []struct {
		name     string
		old, new []runtime.Tool
		want     string
	}{
		{"input schema is not JSON", []runtime.Tool{good}, []runtime.Tool{inTool(`{"type":`)},
			"tool t in the new list: inputSchema: not valid JSON"},
		{"output schema is not JSON", []runtime.Tool{{Name: "t", InputSchema: []byte(`{}`), OutputSchema: []byte(`{]`)}}, []runtime.Tool{good},
			"tool t in the old list: outputSchema: not valid JSON"},
		{"schema is a string", []runtime.Tool{good}, []runtime.Tool{inTool(`"object"`)},
			`tool t in the new list: inputSchema: a schema must be an object or a boolean, not "object"`},
		{"annotations are not JSON", []runtime.Tool{good}, []runtime.Tool{{Name: "t", InputSchema: []byte(`{}`), Annotations: []byte(`{x}`)}},
			"tool t in the new list: annotations: not valid JSON"},
		{"two tools with one name", []runtime.Tool{good, good}, []runtime.Tool{good},
			`old tool list has two tools named "t"`},
		{"trailing data", []runtime.Tool{good}, []runtime.Tool{inTool(`{} {}`)},
			"unexpected data after the JSON value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Tools(tc.old, tc.new)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestHostileSchemas checks that odd and cyclic schemas end in a report,
// never a hang or a panic.
func TestHostileSchemas(t *testing.T) {
	schemas := []string{
		`{"$ref":"#"}`,
		`{"type":"object","properties":{"a":{"$ref":"#"}}}`,
		`{"allOf":[{"$ref":"#"}],"properties":{"x":{"type":"string"}}}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"properties":{"x":{"$ref":"#/$defs/missing"}}}`,
		`{"properties":{"x":{"$ref":"https://example.com/schema.json"}}}`,
		`{"properties":{"x":{"$ref":"#/properties/y/anyOf/0"},"y":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
		`{"properties":"not an object","required":"nor an array","type":5}`,
		`{"properties":{"x":false,"y":true},"items":[true,false],"anyOf":[]}`,
		`{"type":["null"],"enum":[null],"const":null}`,
		`{"oneOf":[{"type":"null"},{"const":null}]}`,
		`{"properties":{"a/b~c":{"type":"string"},"":{"type":"integer"}}}`,
		`{"exclusiveMinimum":true,"minimum":"zero","multipleOf":0,"maxLength":-1}`,
		`false`,
		`true`,
	}
	for _, a := range schemas {
		for _, b := range schemas {
			for _, mk := range []func(string) runtime.Tool{inTool, outTool} {
				changes, err := Tools([]runtime.Tool{mk(a)}, []runtime.Tool{mk(b)})
				if err != nil {
					t.Fatalf("%s → %s: %v", a, b, err)
				}
				if a == b && len(changes) != 0 {
					t.Errorf("%s with itself:%s", a, fmtWants(wants(changes)))
				}
				for _, c := range changes {
					if c.Why == "" || c.Summary == "" || strings.Contains(c.Why, "%!") || strings.Contains(c.Summary, "%!") {
						t.Errorf("%s → %s: badly worded change %+v", a, b, c)
					}
				}
			}
		}
	}
	// The escaped property name appears escaped in the pointer.
	changes, _ := Tools([]runtime.Tool{inTool(`{"properties":{}}`)}, []runtime.Tool{inTool(schemas[11])})
	if len(changes) != 2 || changes[0].Pointer != "/properties/a~1b~0c" || changes[1].Pointer != "/properties/" {
		t.Errorf("escaped pointers:%s", fmtWants(wants(changes)))
	}
}

func FuzzTools(f *testing.F) {
	for _, tc := range ruleCases {
		f.Add(tc.old, tc.new)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		changes, err := Tools([]runtime.Tool{inTool(a)}, []runtime.Tool{inTool(b)})
		if err != nil {
			return
		}
		if a == b && len(changes) != 0 {
			t.Errorf("%s with itself:%s", a, fmtWants(wants(changes)))
		}
		r := &Report{Changes: changes}
		for _, f := range []Format{FormatText, FormatJSON, FormatMarkdown} {
			if err := r.Write(&strings.Builder{}, f); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestChangeBehindCyclicRefs checks that a change reached only through a
// cycle of references is found, and reported once at its definition with
// the places that use it.
func TestChangeBehindCyclicRefs(t *testing.T) {
	const defs = `"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"},"c":{"$ref":"#/$defs/C"}}},` +
		`"B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}},"C":{"type":"%s"}}`
	mk := func(ctype string) runtime.Tool {
		return inTool(`{"type":"object","properties":{"x":{"$ref":"#/$defs/B"},"y":{"$ref":"#/$defs/A"}},` +
			strings.Replace(defs, "%s", ctype, 1) + `}`)
	}
	changes, err := Tools([]runtime.Tool{mk("string")}, []runtime.Tool{mk("integer")})
	if err != nil {
		t.Fatal(err)
	}
	got := wants(changes)
	exp := []want{{TypeChanged, "/$defs/A/properties/c/type", Err, true}}
	if !sameWants(got, exp) {
		t.Fatalf("changes:%s\nwant:%s", fmtWants(got), fmtWants(exp))
	}
	if uses := strings.Join(changes[0].UsedAt, " "); uses != "inputSchema/$defs/B/properties/a inputSchema/properties/y" || changes[0].MoreUses != 0 {
		t.Errorf("used at %s and %d more, want inputSchema/$defs/B/properties/a inputSchema/properties/y", uses, changes[0].MoreUses)
	}
}

// TestHostileText checks that text from a server cannot break out of a
// report: no terminal escapes or line breaks in the text report, and no raw
// HTML, table breaks or unbalanced code spans in the Markdown report.
func TestHostileText(t *testing.T) {
	evil := "line one\nline two \x1b[31mred\x1b[0m \u202eevil | <script>alert(1)</script> ``code``"
	old := runtime.Tool{Name: "t`|<b>", Description: "plain", InputSchema: []byte(`{"type":"object","properties":{"a|b":{"type":"string"}}}`)}
	newTool := old
	newTool.Description = evil
	newTool.InputSchema = []byte(`{"type":"object","properties":{"a|b":{"type":"string","description":` + jsonQuote(evil) + `}}}`)
	changes, err := Tools([]runtime.Tool{old}, []runtime.Tool{newTool})
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Old: "a\nb", New: "c", Changes: changes}
	var text, md strings.Builder
	if err := r.Write(&text, FormatText); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(&md, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\x1b", "\u202e", "line one\n"} {
		if strings.Contains(text.String(), bad) || strings.Contains(md.String(), bad) {
			t.Errorf("report holds %q:\n%s\n%s", bad, text.String(), md.String())
		}
	}
	if outside := stripCodeSpans(md.String()); strings.Contains(outside, "<script>") || strings.Contains(outside, "<b>") {
		t.Errorf("markdown holds raw HTML outside code spans:\n%s", md.String())
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 6 {
			t.Errorf("table row has %d cell separators, want 6: %s", n, line)
		}
	}
}

func jsonQuote(s string) string {
	return (&jsontree.Node{Kind: jsontree.String, Str: s}).String()
}

// stripCodeSpans removes Markdown code spans: a run of n backticks up to
// the next run of exactly n.
func stripCodeSpans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		j := i + n
		for j < len(s) {
			if s[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(s) && s[j+m] == '`' {
				m++
			}
			if m == n {
				break
			}
			j += m
		}
		i = j + n
	}
	return b.String()
}
