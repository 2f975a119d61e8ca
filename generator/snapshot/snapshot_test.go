package snapshot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestReadShapes(t *testing.T) {
	tool := `{"name":"b","inputSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}},"x-extra":1}`
	for _, tc := range []struct{ name, doc string }{
		{"response", `{"jsonrpc":"2.0","id":2,"result":{"tools":[` + tool + `]}}`},
		{"result", `{"tools":[` + tool + `]}`},
		{"array", `[` + tool + `]`},
		{"canonical", `{"server":{"name":"srv","version":"1.2"},"protocolVersion":"2025-06-18","source":"npx srv","tools":[` + tool + `]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Read("s.json", []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Tools) != 1 {
				t.Fatalf("got %d tools", len(s.Tools))
			}
			got := s.Tools[0]
			if got.Name != "b" || string(got.Raw) != tool {
				t.Errorf("tool = %q raw %s", got.Name, got.Raw)
			}
			if keys := got.Input.Get("properties").Keys(); strings.Join(keys, ",") != "z,a" {
				t.Errorf("property order = %v, want z,a", keys)
			}
			if !strings.Contains(string(got.Runtime().Raw), `"x-extra":1`) {
				t.Errorf("unknown key lost: %s", got.Runtime().Raw)
			}
			if tc.name == "canonical" {
				if s.Server.Name != "srv" || s.Server.Version != "1.2" || s.ProtocolVersion != "2025-06-18" || s.Source != "npx srv" {
					t.Errorf("header = %+v", s)
				}
			} else if s.Server.Name != "" || s.Source != "" {
				t.Errorf("header of a headerless file = %+v", s)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"malformed", "{\n  \"tools\": [\n    {\"name\": }\n]}", "s.json:3:14: malformed JSON"},
		{"truncated", `{"tools": [`, "s.json:1:12: malformed JSON"},
		{"no name", `{"result":{"tools":[{"name":"a","inputSchema":{}},{"inputSchema":{}}]}}`, "s.json: /result/tools/1: tool has no name"},
		{"empty name", `[{"name":"","inputSchema":{}}]`, "s.json: /0/name: tool name is empty"},
		{"duplicate", `{"tools":[{"name":"a","inputSchema":{}},{"name":"a","inputSchema":{}}]}`, `s.json: /tools/1/name: duplicate tool name "a" (first at /tools/0)`},
		{"schema not object", `[{"name":"a","inputSchema":[]}]`, `s.json: /0/inputSchema: inputSchema of tool "a" is a JSON array, want an object`},
		{"schema type", `[{"name":"a","inputSchema":{"type":"string"}}]`, `s.json: /0/inputSchema/type: inputSchema of tool "a" has type "string", want "object"`},
		{"no schema", `[{"name":"a"}]`, `s.json: /0: tool "a" has no inputSchema`},
		{"bad ref", `[{"name":"a","inputSchema":{"properties":{"x":{"$ref":"#/$defs/nope"}}}}]`, `s.json: /0/inputSchema/properties/x/$ref: $ref "#/$defs/nope" does not resolve`},
		{"remote ref", `[{"name":"a","inputSchema":{"properties":{"x":{"$ref":"https://example.com/s.json"}}}}]`, `points outside the schema`},
		{"not a list", `{"jsonrpc":"2.0","id":1,"result":{}}`, `s.json: /result: no tools member`},
		{"rpc error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`, `s.json: /error: the response is a JSON-RPC error`},
		{"one page of several", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"2"}}`, `s.json: /result/nextCursor: the tool list is one page of several`},
		{"bare page of several", `{"tools":[],"nextCursor":""}`, `s.json: /nextCursor: the tool list is one page of several`},
		{"scalar", `42`, `s.json: (root): snapshot is a JSON number`},
		{"tool not object", `["a"]`, `s.json: /0: tool is a JSON string, want an object`},
		{"bad output", `[{"name":"a","inputSchema":{},"outputSchema":3}]`, `s.json: /0/outputSchema: outputSchema of tool "a" is a JSON number`},
		{"trailing", `[] []`, `s.json:1:4: malformed JSON`},
		// Well-formed JSON, whose number mcpgen cannot read: the pointer,
		// not "malformed JSON".
		{"number beyond float64", `{"tools":[{"name":"a","inputSchema":{"properties":{"x":{"type":"number","maximum":1e400}}}}]}`,
			`s.json: /tools/0/inputSchema/properties/x/maximum: the number 1e400 is beyond the range of a float64, which mcpgen reads JSON numbers as`},
		{"negative number beyond float64", "[{\"name\":\"a\",\"inputSchema\":{},\n\"x-extra\":[1,-2e999]}]",
			`s.json: /0/x-extra/1: the number -2e999 is beyond the range of a float64`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read("s.json", []byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestReadAcceptsOpenSchemas(t *testing.T) {
	s, err := Read("s.json", []byte(`[{"name":"a","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#"}},
		{"name":"b","inputSchema":{"$defs":{"n":{"$anchor":"num","type":"integer"}},"properties":{"x":{"$ref":"#num"},"y":{"$ref":"#"}}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tools) != 2 {
		t.Fatalf("got %d tools", len(s.Tools))
	}
}

func TestHomeAssistantSnapshot(t *testing.T) {
	s, err := ReadFile("../../testdata/homeassistant-tools-list.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tools) != 15 {
		t.Fatalf("got %d tools, want 15", len(s.Tools))
	}
	tools := s.RuntimeTools()
	if tools[0].Name != "HassTurnOn" || runtime.ToolsHash(tools) == "" {
		t.Errorf("first tool %q", tools[0].Name)
	}
}

// TestReadReportsTheFirstBadToolInOrder reads the tools of a long list in
// parallel and still reports the first problem in the list's order: a bad
// tool before a duplicate name before a later bad tool.
func TestReadReportsTheFirstBadToolInOrder(t *testing.T) {
	var tools []string
	for i := range 200 {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i))
	}
	tools[150] = `{"name":"t3","inputSchema":{"type":"object"}}`
	tools[190] = `{"inputSchema":{"type":"object"}}`
	doc := func() []byte { return []byte(`{"tools":[` + strings.Join(tools, ",") + `]}`) }
	_, err := Read("s.json", doc())
	if err == nil || !strings.Contains(err.Error(), "s.json: /tools/150/name: duplicate tool name \"t3\" (first at /tools/3)") {
		t.Fatalf("Read: %v, want the duplicate at /tools/150", err)
	}
	tools[120] = `{"name":5,"inputSchema":{"type":"object"}}`
	_, err = Read("s.json", doc())
	if err == nil || !strings.Contains(err.Error(), "s.json: /tools/120/name: tool name is a JSON number, want a string") {
		t.Fatalf("Read: %v, want the bad name at /tools/120", err)
	}
}
