package generator

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/internal/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/runtime"
)

// generateLive runs the generator on tools as a live server listed them,
// without the snapshot reader.
func generateLive(tools ...runtime.Tool) ([]emit.File, error) {
	return Generate(Config{From: snapshot.FromRuntime(snapshot.Server{}, "", "", tools), Options: Options{Package: "live"}})
}

// TestDuplicateJSONKeys generates from the tool of the defect, whose name
// and property x each appear twice: the generated field took the first x
// (a string) and the raw validator the last (an integer), so Validate()
// accepted {"x":"hello"} and ValidateArguments rejected it. Generation now
// refuses it, from a file and from a live tool list.
func TestDuplicateJSONKeys(t *testing.T) {
	doc := `{"tools":[{"name":"a","name":"b","inputSchema":{"type":"object","properties":{"x":{"type":"string"},"x":{"type":"integer"}}}}]}`
	if _, err := generateText(doc, ir.Limits{}); err == nil || !strings.HasPrefix(err.Error(), `hostile.json: /tools/0/name: the object repeats the key "name"`) {
		t.Errorf("generating from the file: error = %v, want the file and /tools/0/name", err)
	}
	_, err := generateLive(runtime.Tool{Name: "b", InputSchema: []byte(`{"type":"object","properties":{"x":{"type":"string"},"x":{"type":"integer"}}}`)})
	if err == nil || !strings.HasPrefix(err.Error(), `tool "b": /inputSchema/properties/x: the object repeats the key "x"`) {
		t.Errorf("generating from a live list: error = %v, want the tool and /inputSchema/properties/x", err)
	}
}

// TestSchemasThatCanNeverValidate generates from schemas the validator
// behind ValidateArguments cannot compile, so the generated method would
// fail on every call. In strict mode each is refused at generation time
// with the tool and the pointer; otherwise the tool is left out with the
// same words, and the tool beside it is generated. Each really fails to
// compile at run time.
func TestSchemasThatCanNeverValidate(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"tags":{"type":"array","uniqueItems":"yes"}}}`,
			`tool "t": /inputSchema/properties/tags/uniqueItems: the JSON Schema meta-schema rejects it`},
		{`{"type":"object","maxProperties":-1}`,
			`tool "t": /inputSchema/maxProperties: the JSON Schema meta-schema rejects it`},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","a"]}`,
			`tool "t": /inputSchema/required: the JSON Schema meta-schema rejects it`},
		{`{"type":"object","properties":{"a":{"anyOf":[{"type":"object","properties":{"b":{}},"required":["b","b"]}]}}}`,
			`tool "t": /inputSchema/properties/a/anyOf/0/required: the JSON Schema meta-schema rejects it`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"x":true}}`,
			`tool "t": /inputSchema/properties/x: the JSON Schema meta-schema rejects it`},
		{`{"type":"object","properties":{"x":{"$dynamicRef":"https://example.com/s.json#meta"}}}`,
			`tool "t": /inputSchema/properties/x/$dynamicRef: $dynamicRef "https://example.com/s.json#meta" points outside the schema`},
		{`{"$schema":"https://example.com/my-meta","type":"object"}`,
			`tool "t": /inputSchema/$schema: $schema "https://example.com/my-meta" is not a JSON Schema draft mcpgen knows`},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"],"additionalProperties":false}`,
			`tool "t": /inputSchema/required/1: required names "b", which properties does not describe and additionalProperties: false forbids`},
	} {
		// From a live list, where the snapshot reader does not run first.
		tools := []runtime.Tool{{Name: "t", InputSchema: []byte(tc.schema)}}
		_, err := Generate(Config{From: snapshot.FromRuntime(snapshot.Server{}, "", "", tools), Options: Options{Package: "live", Strict: true}})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("generating %s: error = %v, want %q", tc.schema, err, tc.want)
		}
		// The snapshot reader refuses some of them itself.
		if snap, err := snapshot.Read("t.json", []byte(`[{"name":"t","inputSchema":`+tc.schema+`}]`)); err == nil {
			if _, err := Generate(Config{From: snap, Options: Options{Package: "file", Strict: true}}); err == nil {
				t.Errorf("generating %s from a file: no error", tc.schema)
			}
		}
		// Without strict mode, a list of that tool alone is refused too:
		// a package without tools helps nobody.
		if _, err := Generate(Config{From: snapshot.FromRuntime(snapshot.Server{}, "", "", tools), Options: Options{Package: "live"}}); err == nil || !strings.HasPrefix(err.Error(), "no tool can be generated: "+tc.want) {
			t.Errorf("generating %s alone: error = %v, want no tool can be generated", tc.schema, err)
		}
		// Without strict mode, the tool is left out and its neighbour
		// generated.
		tools = append(tools, runtime.Tool{Name: "ok", InputSchema: []byte(`{"type":"object"}`)})
		var skipped []string
		warn := func(w Warning) {
			if w.Tool != "" {
				skipped = append(skipped, w.Msg)
			}
		}
		files, err := Generate(Config{From: snapshot.FromRuntime(snapshot.Server{}, "", "", tools), Options: Options{Package: "live"}, Warn: warn})
		if err != nil {
			t.Errorf("generating %s beside a good tool: %v", tc.schema, err)
		}
		if len(skipped) != 1 || !strings.HasPrefix(skipped[0], `tool "t" is left out of the package, since no call of it can succeed: `+strings.TrimPrefix(tc.want, `tool "t": `)) {
			t.Errorf("generating %s beside a good tool: left out %q, want one %q", tc.schema, skipped, tc.want)
		}
		for _, f := range files {
			if f.Name == "client.go" && (strings.Contains(string(f.Data), `"t"`) || !strings.Contains(string(f.Data), `"ok"`)) {
				t.Errorf("generating %s beside a good tool: client.go does not call only the good tool:\n%s", tc.schema, f.Data)
			}
		}
		if err := runtime.NewSchema("t", []byte(tc.schema)).Validate([]byte(`{"a":"x","b":1}`)); err == nil && !strings.Contains(tc.want, "additionalProperties: false") {
			t.Errorf("runtime validator accepted a value against %s", tc.schema)
		}
	}
	// The same keywords, well formed, still generate; so do draft-04's
	// boolean exclusiveMinimum and draft-07's array items.
	for _, schema := range []string{
		`{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}},"maxProperties":3,"required":["tags"]}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":true}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"type":"array","items":[{"type":"string"}]}}}`,
		`{"type":"object","properties":{"x":{"$ref":"#/$defs/m"}},"$defs":{"m":{"$dynamicAnchor":"m","type":"string"}}}`,
	} {
		if _, err := generateLive(runtime.Tool{Name: "t", InputSchema: []byte(schema)}); err != nil {
			t.Errorf("generating %s: %v", schema, err)
		}
	}
}

// TestRequiredPropertyNotDescribed generates an object whose required
// names a property that properties does not describe. The struct used to
// have no field for it, so Validate() failed on every call; it now has a
// required field of unknown type, and a closed object, which no value can
// satisfy, is refused.
func TestRequiredPropertyNotDescribed(t *testing.T) {
	snap := &snapshot.Snapshot{Tools: []snapshot.Tool{{Name: "t", InputSchema: []byte(
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","extra"]}`)}}}
	pkg, err := ir.Build(snap.Tools)
	if err != nil {
		t.Fatal(err)
	}
	fields := pkg.Tools[0].Args.Fields
	if len(fields) != 2 || fields[1].JSONName != "extra" || !fields[1].Required || fields[1].Type.Kind != ir.Raw {
		t.Fatalf("fields = %+v, want a, then a required raw field extra", fields)
	}
	files, err := Generate(Config{From: snap, Options: Options{Package: "req"}})
	if err != nil {
		t.Fatal(err)
	}
	var types string
	for _, f := range files {
		if f.Name == "types.go" {
			types = string(f.Data)
		}
	}
	if !strings.Contains(types, "Extra json.RawMessage `json:\"extra\" ") {
		t.Errorf("types.go has no required field for extra:\n%s", types)
	}
	// The value the generated struct can now carry satisfies the schema.
	if err := runtime.NewSchema("t", []byte(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","extra"]}`)).Validate([]byte(`{"a":"x","extra":[1]}`)); err != nil {
		t.Errorf("schema rejects what the struct sends: %v", err)
	}
}

// TestInvalidUTF8ToolName generates from a live tool whose name the server
// sent as invalid UTF-8: the client would call "bad\uFFFDname" while the
// embedded raw tool keeps the server's bytes. It is refused with the
// pointer, as property names are.
func TestInvalidUTF8ToolName(t *testing.T) {
	raw := "{\"name\":\"bad\xffname\",\"inputSchema\":{\"type\":\"object\"}}"
	_, err := generateLive(runtime.Tool{Name: "bad\uFFFDname", InputSchema: []byte(`{"type":"object"}`), Raw: []byte(raw)})
	if err == nil || !strings.HasPrefix(err.Error(), "tool \"bad\uFFFDname\": /name: tool name") || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("error = %v, want a refusal at /name", err)
	}
	if _, err := generateText("{\"tools\":[{\"name\":\"bad\xffname\",\"inputSchema\":{}}]}", ir.Limits{}); err == nil || !strings.HasPrefix(err.Error(), "hostile.json: /tools/0/name: ") {
		t.Errorf("from a file: error = %v, want a refusal at /tools/0/name", err)
	}
	if _, err := generateLive(runtime.Tool{Name: "bad\xffname", InputSchema: []byte(`{"type":"object"}`)}); err == nil {
		t.Error("a name of invalid UTF-8 given directly was generated")
	}
	// A name that spells U+FFFD itself is the server's own name.
	if _, err := generateLive(runtime.Tool{Name: "ok\uFFFD", InputSchema: []byte(`{"type":"object"}`), Raw: []byte(`{"name":"ok\ufffd","inputSchema":{"type":"object"}}`)}); err != nil {
		t.Errorf("a name holding U+FFFD itself: %v", err)
	}
}
