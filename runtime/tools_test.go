package runtime

import (
	"context"
	"strings"
	"testing"
)

// TestDuplicateJSONKeys lists tools whose objects repeat a key. Which value
// counts differs between readers (the struct decoder, the JSON Schema
// validator, code walking the members), so ListTools refuses the list with
// the tool and the JSON pointer of the repeated key.
func TestDuplicateJSONKeys(t *testing.T) {
	checkLeaks(t)
	cases := []struct{ tools, want string }{
		{`{"name":"ok","inputSchema":{"type":"object"}},{"name":"a","name":"b","inputSchema":{"type":"object"}}`,
			`tools/list: tool 1 ("b"): /name: the object repeats the key "name"`},
		{`{"name":"t","inputSchema":{"type":"object","properties":{"x":{"type":"string"},"x":{"type":"integer"}}}}`,
			`tools/list: tool 0 ("t"): /inputSchema/properties/x: the object repeats the key "x"`},
		{`{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","required":["a"],"properties":{"a":{"anyOf":[{"type":"string","type":"null"}]}}}}`,
			`tools/list: tool 0 ("t"): /outputSchema/properties/a/anyOf/0/type: the object repeats the key "type"`},
		{`{"name":"t","inputSchema":{"type":"object","properties":{"a\/b":{},"a\u002fb":{}}}}`,
			`tools/list: tool 0 ("t"): /inputSchema/properties/a~1b: the object repeats the key "a/b"`},
	}
	for _, c := range cases {
		s, err := Connect(context.Background(), newMemConn(func(conn *memConn, ctx context.Context, m memMsg) error {
			switch m.Method {
			case "server/discover":
				conn.reply(m, modernDiscover)
			case "tools/list":
				conn.reply(m, `{"tools":[`+c.tools+`]}`)
			}
			return nil
		}), nil)
		if err != nil {
			t.Fatal(err)
		}
		tools, err := s.ListTools(context.Background())
		s.Close()
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ListTools of %s = %d tools, %v; want an error starting %q", c.tools, len(tools), err, c.want)
		}
	}
}

// TestToolMembersMatchedExactly lists a tool whose keys differ from the
// known members only in case. encoding/json would take "Name" as the name,
// while the snapshot reader and the JSON Schema validator match keys
// exactly; ListTools matches them exactly too.
func TestToolMembersMatchedExactly(t *testing.T) {
	tools, _, err := decodeToolsPage(nil, []byte(`{"tools":[{"name":"a","Name":"b","inputSchema":{"type":"object"},"InputSchema":{"type":"string"},"title":null,"description":"d\u00e9"}]}`), DefaultMaxTools, &pageCaching{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tools[0]; got.Name != "a" || string(got.InputSchema) != `{"type":"object"}` || got.Title != "" || got.Description != "dé" {
		t.Errorf("tool = %+v", got)
	}
	for _, page := range []string{`{"tools":[{"name":1}]}`, `{"tools":[[]]}`} {
		if _, _, err := decodeToolsPage(nil, []byte(page), DefaultMaxTools, &pageCaching{}); err == nil {
			t.Errorf("decodeToolsPage(%s) accepted it", page)
		}
	}
}
