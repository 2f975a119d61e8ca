package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// verbatimSchema holds what a re-encoding would change: key order, number
// forms, escapes, $ref to a network URI, 2020-12 keywords.
const verbatimSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addr","type":"object"}},"properties":{"z":{"type":"number","maximum":1.0e2,"default":1.50},"a":{"$ref":"http://127.0.0.1:1/never.json","description":"caf\u00e9 \"q\" \/"}},"allOf":[{"anyOf":[{"required":["z"]}]}],"if":{"required":["a"]},"then":{},"else":{},"additionalProperties":false}`

// A listed input schema reaches the caller as the server wrote it, and goes
// back to a server, as a call's argument, unchanged; its network $ref is
// never fetched (the memConn server is the only thing the Session reaches).
func TestListedSchemaKeptVerbatim(t *testing.T) {
	var echoed string
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "tools/list":
			c.reply(m, `{"resultType":"complete","tools":[{"name":"focal","inputSchema":`+verbatimSchema+`},{"name":"echo","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			var p struct {
				Arguments struct {
					Schema json.RawMessage `json:"schema"`
				} `json:"arguments"`
			}
			if err := json.Unmarshal(m.Params, &p); err != nil {
				return err
			}
			echoed = string(p.Arguments.Schema)
			c.reply(m, textResult)
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tools[0].InputSchema); got != verbatimSchema {
		t.Errorf("listed schema:\n%s\nwant\n%s", got, verbatimSchema)
	}
	if !strings.Contains(string(tools[0].Raw), verbatimSchema) {
		t.Errorf("Raw lost the schema: %s", tools[0].Raw)
	}
	if _, err := s.CallTool(context.Background(), "echo", json.RawMessage(`{"schema":`+string(tools[0].InputSchema)+`}`)); err != nil {
		t.Fatal(err)
	}
	if echoed != verbatimSchema {
		t.Errorf("schema handed on:\n%s\nwant\n%s", echoed, verbatimSchema)
	}
}
