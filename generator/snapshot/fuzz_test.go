package snapshot

import (
	"strings"
	"testing"

	stduritemplate "github.com/std-uritemplate/std-uritemplate/go/v2"
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
		`{"tools":[],"prompts":[{"name":"p","arguments":[{"name":"a","required":true},{"name":"b"}]}],"resourceTemplates":[{"name":"t","uriTemplate":"x://{a}{?b*}"}]}`,
		`{"result":{"tools":[],"prompts":[{"name":"p","arguments":null}],"resourceTemplates":[{"name":"t","uriTemplate":"x://{+a:3}"}]}}`,
		`{"tools":[],"prompts":[{"name":"p"},{"name":"p"}],"resourceTemplates":[{"name":"t","uriTemplate":"x://{"}]}`,
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
		for _, p := range s.Prompts {
			if strings.TrimSpace(p.Name) == "" || p.Pointer == "" || len(p.Raw) == 0 {
				t.Fatalf("accepted a prompt without name, pointer or bytes: %+v", p)
			}
		}
		for _, tm := range s.ResourceTemplates {
			if _, err := stduritemplate.Expand(tm.URITemplate, nil); err != nil || tm.Name == "" {
				t.Fatalf("accepted a resource template %q whose URI template does not parse: %v", tm.Name, err)
			}
		}
		if s.Prompts != nil || s.ResourceTemplates != nil {
			// A snapshot that holds them writes and reads back the same.
			out, err := Marshal(s)
			if err != nil {
				return // a tool that cannot be written is reported by Marshal
			}
			again, err := Read("fuzz.json", out)
			if err != nil {
				t.Fatalf("the canonical form of an accepted snapshot is refused: %v\n%s", err, out)
			}
			if len(again.Prompts) != len(s.Prompts) || len(again.ResourceTemplates) != len(s.ResourceTemplates) {
				t.Fatalf("the canonical form lost prompts or templates:\n%s", out)
			}
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
