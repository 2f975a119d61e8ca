package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestListingBytesBounded lists from a server whose every page holds one
// tool of 1 MiB and a cursor to the next: Options.MaxTools bounds the
// tools, not their bytes, so a listing of 10,000 such pages (the default)
// held 10 GiB. The pages of one listing together hold at most
// maxListBytes; past it, the listing fails naming the limit. The same
// holds for the other paginated lists.
func TestListingBytesBounded(t *testing.T) {
	defer func(n int) { maxListBytes = n }(maxListBytes)
	maxListBytes = 4 << 20
	big := strings.Repeat("x", 1<<20)
	pageNo := 0
	conn := newMemConn(func(c *memConn, ctx context.Context, m memMsg) error {
		switch m.Method {
		case "server/discover":
			c.replyError(m, CodeMethodNotFound, "null")
		case "initialize":
			c.reply(m, strings.Replace(legacyInit, `"capabilities":{`, `"capabilities":{"prompts":{},`, 1))
		case "tools/list", "prompts/list":
			pageNo++
			item := fmt.Sprintf(`{"name":"t%d","description":%q,"inputSchema":{"type":"object"}}`, pageNo, big)
			key := strings.TrimSuffix(m.Method, "/list")
			if key == "prompts" {
				item = fmt.Sprintf(`{"name":"p%d","description":%q}`, pageNo, big)
			}
			c.reply(m, fmt.Sprintf(`{"%s":[%s],"nextCursor":"c%d"}`, key, item, pageNo))
		}
		return nil
	})
	s, err := Connect(context.Background(), conn, &Options{MaxTools: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "hold more than 4 MiB in all"
	if tools, err := s.ListTools(context.Background()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ListTools = %d tools, %v; want an error saying the pages %s", len(tools), err, want)
	}
	if prompts, err := s.ListPrompts(context.Background()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ListPrompts = %d prompts, %v; want an error saying the pages %s", len(prompts), err, want)
	}
}
