package snapshot

import (
	"strings"
	"testing"
)

// TestDuplicateJSONKeys reads snapshots whose objects repeat a key. The
// tool name used to take the last value, the generated Go field the first
// and the raw validator the last; now the file is refused, naming it and
// the pointer of the repeated key.
func TestDuplicateJSONKeys(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"tools":[{"name":"a","name":"b","inputSchema":{"type":"object","properties":{"x":{"type":"string"},"x":{"type":"integer"}}}}]}`,
			`s.json: /tools/0/name: the object repeats the key "name"`},
		{`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"},"x":{"type":"integer"}}}}]}`,
			`s.json: /tools/0/inputSchema/properties/x: the object repeats the key "x"`},
		{`{"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"object","$defs":{"d":{"enum":[1],"enum":[2]}}}}]}}`,
			`s.json: /result/tools/0/outputSchema/$defs/d/enum: the object repeats the key "enum"`},
		{`{"server":{"name":"s"},"server":{"name":"t"},"tools":[]}`,
			`s.json: /server: the object repeats the key "server"`},
	} {
		_, err := Read("s.json", []byte(tc.doc))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Read(%s) error = %v, want %q", tc.doc, err, tc.want)
		}
	}
}

// TestInvalidUTF8ToolName reads tool names that decoding changes into
// U+FFFD: the generated client would call a name the server does not have,
// while the raw tool it embeds keeps the server's bytes. They are refused
// with the pointer, as property names are; a name that spells U+FFFD
// itself, or a valid surrogate pair, is kept.
func TestInvalidUTF8ToolName(t *testing.T) {
	for _, name := range []string{"bad\xffname", `bad\ud800name`, `bad\udc00`, `\ud800\u0041`} {
		doc := `{"tools":[{"name":"ok","inputSchema":{}},{"name":"` + name + `","inputSchema":{}}]}`
		_, err := Read("s.json", []byte(doc))
		if err == nil || !strings.HasPrefix(err.Error(), `s.json: /tools/1/name: tool name "`) || !strings.Contains(err.Error(), "not valid UTF-8") {
			t.Errorf("Read of tool name %q: error = %v, want a refusal at /tools/1/name", name, err)
		}
	}
	for _, name := range []string{"\uFFFD", `\ufffd`, `\ud83d\ude00`, `a\\ud800`} {
		doc := `[{"name":"` + name + `","inputSchema":{}}]`
		if _, err := Read("s.json", []byte(doc)); err != nil {
			t.Errorf("Read of tool name %q: %v", name, err)
		}
	}
}

// TestSchemasThatCanNeverValidate reads schemas whose references would need
// a fetch, which the validator never does, so that it fails on every call:
// a remote $dynamicRef or $recursiveRef and a $schema naming no draft it
// embeds are refused like a remote $ref, with the pointer.
func TestSchemasThatCanNeverValidate(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"properties":{"x":{"$dynamicRef":"https://example.com/s.json#meta"}}}`,
			`s.json: /0/inputSchema/properties/x/$dynamicRef: $dynamicRef "https://example.com/s.json#meta" points outside the schema`},
		{`{"properties":{"x":{"$recursiveRef":"https://example.com/s.json"}}}`,
			`s.json: /0/inputSchema/properties/x/$recursiveRef: $recursiveRef "https://example.com/s.json" points outside the schema`},
		{`{"$schema":"https://example.com/my-meta","type":"object"}`,
			`s.json: /0/inputSchema/$schema: $schema "https://example.com/my-meta" is not a JSON Schema draft mcpgen knows`},
		{`{"$defs":{"d":{"$schema":"http://json-schema.org/draft-08/schema#"}}}`,
			`s.json: /0/inputSchema/$defs/d/$schema: $schema "http://json-schema.org/draft-08/schema#"`},
	} {
		_, err := Read("s.json", []byte(`[{"name":"a","inputSchema":`+tc.schema+`}]`))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Read of %s: error = %v, want %q", tc.schema, err, tc.want)
		}
	}
	for _, schema := range []string{
		`{"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"m":{"$dynamicAnchor":"m"}},"properties":{"x":{"$dynamicRef":"#m"}}}`,
		`{"$id":"https://example.com/s","properties":{"x":{"$dynamicRef":"https://example.com/s#m"}},"$defs":{"m":{"$dynamicAnchor":"m"}}}`,
		`{"properties":{"$schema":{"type":"string"}}}`,
	} {
		if _, err := Read("s.json", []byte(`[{"name":"a","inputSchema":`+schema+`}]`)); err != nil {
			t.Errorf("Read of %s: %v", schema, err)
		}
	}
}
