package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// FuzzSessionInput feeds arbitrary messages to a Session between calls: none
// may panic it, and it must still answer the next call.
func FuzzSessionInput(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":99,"error":{"code":"x"}}`,
		`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":"a"}},1,null]`,
		`{"jsonrpc":"2.0","id":"7","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":{"token":"t"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"image","data":"!!"}],"isError":1}}`,
		`{"id":2,"result":{"resultType":"input_required"}}`,
		`]]]`, `{`, ``, `null`, `"str"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var answer string
		conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
			switch m.Method {
			case "server/discover":
				c.reply(m, modernDiscover)
			case "tools/call":
				if strings.Contains(string(m.Params), `"fuzz"`) {
					c.in <- data
					c.reply(m, textResult)
				} else {
					c.reply(m, answer)
				}
			}
			return nil
		})
		s, err := Connect(context.Background(), conn, &Options{CallTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// The fuzzed message arrives just before a call's answer, which it
		// may spoil (it can claim the call's id); it must not hang it.
		s.CallTool(context.Background(), "fuzz", nil)
		answer = textResult
		res, err := s.CallTool(context.Background(), "after", nil)
		if err != nil || res.Text() != "ok" {
			t.Fatalf("the call after %q: %v", data, err)
		}
	})
}

// FuzzParamHeaders feeds arbitrary input schemas and arguments to the
// x-mcp-header rules: they never panic, and every header they produce has a
// valid name, one per annotation at most.
func FuzzParamHeaders(f *testing.F) {
	f.Add(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"o":{"properties":{"p":{"type":["integer","null"],"x-mcp-header":"P"}}}}}`, `{"region":"東京","o":{"p":4.0}}`)
	f.Add(`{"$defs":{"a":{"x-mcp-header":"A","type":"string"}},"anyOf":[{"properties":{"b":{"x-mcp-header":"b"}}}]}`, `{"b":null}`)
	f.Add(`{"properties":[],"items":{"properties":{}}}`, `[]`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		if !json.Valid([]byte(schema)) {
			return
		}
		hs, err := paramHeaders([]byte(schema))
		if err != nil {
			return
		}
		got := appendParamHeaders(nil, hs, []byte(args))
		if len(got) > len(hs) {
			t.Fatalf("%d headers from %d annotations", len(got), len(hs))
		}
		for _, h := range got {
			if !isToken(h.Name) {
				t.Fatalf("header name %q is not a token", h.Name)
			}
			if v := encodeHeaderValue(h.Value); strings.ContainsAny(v, "\r\n\x00") {
				t.Fatalf("header value %q", v)
			}
		}
	})
}
