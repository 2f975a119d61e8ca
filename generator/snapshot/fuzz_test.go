package snapshot

import (
	"strings"
	"testing"
)

// FuzzRead reads arbitrary bytes as a snapshot. It never panics, and what it
// accepts holds named tools with object input schemas, each with the pointer
// of the tool in the file.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`[]`, `{"tools":[]}`, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`,
		`{"server":{"name":"s","version":"1"},"protocolVersion":"2025-06-18","source":"x","tools":[{"name":"a","inputSchema":{}}]}`,
		`[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/y"}},"$defs":{"y":{"$anchor":"y","type":"string"}}}}]`,
		`[{"name":"a","inputSchema":{"properties":{"x":{"$ref":"#y"}},"$id":"http://e/s","$defs":{"y":{"$anchor":"y"}}}}]`,
		`[{"name":"a","inputSchema":{"$ref":"#/%24defs/a~1b"}}]`, `{"error":{"code":1}}`, `{"result":[]}`,
		`[{"name":"a","inputSchema":{},"outputSchema":null,"annotations":{"readOnlyHint":true}},{"name":"a","inputSchema":{}}]`,
		"\xef\xbb\xbf[]", `[{"name":" ","inputSchema":{}}]`, `{"tools":[1]}`, `[{"name":"a","inputSchema":{"type":["object"]}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read("fuzz.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, tool := range s.Tools {
			if strings.TrimSpace(tool.Name) == "" || tool.Input == nil || len(tool.InputSchema) == 0 || tool.Pointer == "" {
				t.Fatalf("accepted a tool without name, input schema or pointer: %+v", tool)
			}
			if (tool.Output == nil) != (tool.OutputSchema == nil) {
				t.Fatalf("tool %q: parsed and raw output schema disagree", tool.Name)
			}
		}
	})
}
