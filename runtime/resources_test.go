package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestReadResource(t *testing.T) {
	conn := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "tools/call":
			c.reply(m, `{"content":[{"type":"text","text":"see"},{"type":"resource_link","uri":"file:///a.txt","name":"a"},{"type":"resource_link","uri":"file:///b.bin","name":"b","mimeType":"application/octet-stream"}]}`)
		case "resources/read":
			var p struct {
				URI string `json:"uri"`
			}
			json.Unmarshal(m.Params, &p)
			switch p.URI {
			case "file:///a.txt":
				c.reply(m, `{"contents":[{"uri":"file:///a.txt","mimeType":"text/plain","text":"hello\u001b"}],"_meta":{"k":1}}`)
			case "file:///b.bin":
				c.reply(m, `{"contents":[{"uri":"file:///b.bin","mimeType":"application/octet-stream","blob":"AAEC/w=="}]}`)
			case "file:///bad":
				c.reply(m, `{"contents":[{"uri":"file:///bad","blob":"not base64!"}]}`)
			case "file:///none":
				c.reply(m, `{}`)
			default:
				c.replyError(m, CodeResourceNotFound, `{"uri":"`+p.URI+`"}`)
			}
		}
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	res, err := s.CallTool(ctx, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	links := res.ResourceLinks()
	if len(links) != 2 {
		t.Fatalf("ResourceLinks = %+v", links)
	}
	text, err := s.ReadLink(ctx, links[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(text.Contents) != 1 || text.Contents[0].IsBlob() || text.Text() != "hello\x1b" || text.Contents[0].MIMEType != "text/plain" || string(text.Meta) != `{"k":1}` {
		t.Errorf("text resource = %+v", text)
	}
	blob, err := s.ReadLink(ctx, links[1])
	if err != nil {
		t.Fatal(err)
	}
	if c := blob.Contents[0]; !c.IsBlob() || string(c.Bytes()) != "\x00\x01\x02\xff" || c.MIMEType != "application/octet-stream" || blob.Text() != "" {
		t.Errorf("blob resource = %+v", blob)
	}
	if _, err := s.ReadLink(ctx, res.Content[0]); err == nil || !strings.Contains(err.Error(), `of type "text", not "resource_link"`) {
		t.Errorf("ReadLink(text block) = %v", err)
	}
	_, err = s.ReadResource(ctx, "file:///missing")
	if !IsResourceNotFound(err) || !strings.Contains(err.Error(), `reading "file:///missing"`) {
		t.Errorf("missing resource: %v", err)
	}
	if _, err := s.ReadResource(ctx, "file:///bad"); err == nil || !strings.Contains(err.Error(), `reading "file:///bad": malformed result: contents[0]`) {
		t.Errorf("bad base64: %v", err)
	}
	if _, err := s.ReadResource(ctx, "file:///none"); err == nil || !strings.Contains(err.Error(), "no contents array") {
		t.Errorf("no contents: %v", err)
	}
	if _, err := s.ReadResource(ctx, ""); err == nil {
		t.Error("empty URI: no error")
	}
}

func TestReadResourceWithoutCapability(t *testing.T) {
	conn := newMemConn(modernMem(func(c *memConn, ctx context.Context, m memMsg) error {
		c.replyError(m, CodeMethodNotFound, "null")
		return nil
	}))
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.ReadResource(context.Background(), "file:///a")
	if err == nil || !strings.Contains(err.Error(), "declares no resources capability") {
		t.Errorf("ReadResource = %v", err)
	}
}

// TestReadResourceItemsNeedURIAndOneBody: each item of a resources/read
// result is text contents or blob contents, with its URI: an item without
// a uri, with neither text nor blob, or with both is an error naming the
// item, in both eras. Before, such items were taken as empty text, or as a
// blob whose text Text() then dropped, and a 16 MiB result of {} items
// made 5.6 million of them.
func TestReadResourceItemsNeedURIAndOneBody(t *testing.T) {
	for _, era := range []struct {
		name string
		wrap func(func(c *memConn, ctx context.Context, m memMsg) error) func(c *memConn, ctx context.Context, m memMsg) error
	}{{"legacy", legacyMem}, {"2026-07-28", modernMem}} {
		t.Run(era.name, func(t *testing.T) {
			results := map[string]string{
				"demo://ok":       `{"contents":[{"uri":"demo://ok","text":"t"},{"uri":"demo://ok/b","blob":""},{"uri":"demo://ok/n","text":"n","blob":null}]}`,
				"demo://empty":    `{"contents":[{}]}`,
				"demo://nouri":    `{"contents":[{"uri":"demo://nouri","text":"a"},{"text":"b"}]}`,
				"demo://emptyuri": `{"contents":[{"uri":"","text":"a"}]}`,
				"demo://nobody":   `{"contents":[{"uri":"demo://nobody","mimeType":"text/plain"}]}`,
				"demo://both":     `{"contents":[{"uri":"demo://both","text":"shown","blob":"aGlkZGVu"}]}`,
			}
			conn := newMemConn(era.wrap(func(c *memConn, ctx context.Context, m memMsg) error {
				if m.Method == "resources/read" {
					var p struct {
						URI string `json:"uri"`
					}
					json.Unmarshal(m.Params, &p)
					c.reply(m, results[p.URI])
				}
				return nil
			}))
			s, err := Connect(context.Background(), conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			res, err := s.ReadResource(ctx, "demo://ok")
			if err != nil {
				t.Fatalf("ReadResource(demo://ok) = %v, want its three items", err)
			}
			if len(res.Contents) != 3 || res.Contents[0].IsBlob() || !res.Contents[1].IsBlob() || res.Contents[2].IsBlob() || res.Text() != "t\nn" {
				t.Errorf("ReadResource(demo://ok) = %+v, want a text, a blob and a text item", res.Contents)
			}
			for uri, want := range map[string]string{
				"demo://empty":    "contents[0]: the item has no uri",
				"demo://nouri":    "contents[1]: the item has no uri",
				"demo://emptyuri": "contents[0]: the item has no uri",
				"demo://nobody":   "contents[0]: the item has neither text nor blob",
				"demo://both":     "contents[0]: the item has both text and blob",
			} {
				res, err := s.ReadResource(ctx, uri)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("ReadResource(%s) = %+v, %v; want an error saying %q", uri, res, err, want)
				}
			}
		})
	}
}
