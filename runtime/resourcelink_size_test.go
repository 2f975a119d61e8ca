package runtime

import (
	"context"
	"strings"
	"testing"
)

// TestResourceLinkSizeWholeNumber: a resource_link whose size is a whole
// number written as 2048.0 or 1e3, which JSON Schema's "integer" (the
// protocol's type for size) accepts and ParseResource reads, does not fail
// the tool call or the prompt that returned it: the tool has run, and its
// result must reach the caller.
func TestResourceLinkSizeWholeNumber(t *testing.T) {
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"prompts":{}},"ttlMs":0,"cacheScope":"public"}`)
		case "tools/list":
			c.reply(m, `{"tools":[{"name":"export","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			c.reply(m, `{"content":[{"type":"text","text":"exported"},{"type":"resource_link","uri":"file:///out.bin","name":"out.bin","size":2048.0}]}`)
		case "prompts/get":
			c.reply(m, `{"messages":[{"role":"user","content":{"type":"resource_link","uri":"file:///in.txt","name":"in.txt","size":1e3}}]}`)
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "export", nil)
	if err != nil {
		t.Fatalf("CallTool = %v, want the result with its resource link", err)
	}
	if links := res.ResourceLinks(); len(links) != 1 || links[0].Size == nil || *links[0].Size != 2048 {
		t.Errorf("resource links = %+v, want one of 2048 bytes", links)
	}
	p, err := s.GetPrompt(context.Background(), "p", nil)
	if err != nil {
		t.Fatalf("GetPrompt = %v, want the message with its resource link", err)
	}
	if sz := p.Messages[0].Content.Size; sz == nil || *sz != 1000 {
		t.Errorf("prompt message size = %v, want 1000", sz)
	}
}

// TestResourceContentsErrorsNameTheMember: a resources/read item, or an
// embedded resource, with a malformed member is an error naming that
// member, as a malformed content block's is.
func TestResourceContentsErrorsNameTheMember(t *testing.T) {
	for _, tc := range []struct{ result, want string }{
		{`{"contents":[{"uri":"demo://a","mimeType":5,"text":"x"}]}`, "contents[0]: mimeType: expected a JSON string"},
		{`{"contents":[{"uri":"demo://a","text":"x"},{"uri":"demo://b","blob":"not base64!"}]}`, "contents[1]: blob: invalid base64"},
		{`{"contents":[{"uri":["demo://a"],"text":"x"}]}`, "contents[0]: uri: expected a JSON string"},
	} {
		res, _, err := decodeReadResult([]byte(tc.result))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("decoding %s = %+v, %v; want an error saying %q", tc.result, res, err, tc.want)
		}
	}
	var c Content
	err := c.UnmarshalJSON([]byte(`{"type":"resource","resource":{"uri":"demo://a","blob":"***"}}`))
	if err == nil || !strings.Contains(err.Error(), "resource: blob: invalid base64") {
		t.Errorf("embedded resource with a bad blob: %v, want an error naming resource: blob", err)
	}
}

// TestResourceLinkSizeBeyondInt64: a resource_link whose size is a whole
// number too large for an int64 (1e30, 9223372036854775808, 1e400), which
// JSON Schema's "integer" accepts, does not fail the tool call that returned
// it: the size is unknown (nil). The call failed with "size: expected an
// integer".
func TestResourceLinkSizeBeyondInt64(t *testing.T) {
	for _, size := range []string{"1e30", "9223372036854775808", "1e400", "123456789012345678901234567890"} {
		conn := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
			if m.Method == "tools/call" {
				c.reply(m, `{"content":[{"type":"resource_link","uri":"file:///out.bin","name":"out.bin","size":`+size+`}]}`)
			}
			return nil
		}))
		s, err := Connect(context.Background(), conn, &Options{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.CallTool(context.Background(), "export", nil)
		s.Close()
		if err != nil {
			t.Errorf("size %s: CallTool = %v, want the result with its resource link", size, err)
			continue
		}
		if links := res.ResourceLinks(); len(links) != 1 || links[0].Size != nil || links[0].URI != "file:///out.bin" {
			t.Errorf("size %s: resource links = %+v, want one of unknown size", size, links)
		}
	}
}
