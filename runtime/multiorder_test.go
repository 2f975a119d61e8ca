package runtime

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// toolsListing is a tools/list result listing tools of the given names.
func toolsListing(names ...string) string {
	s := `{"tools":[`
	for i, n := range names {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, n)
	}
	return s + `]}`
}

// TestMultiRefreshesFinishingOutOfOrder starts two Refreshes and lets the
// one started first finish last: the tool list of the later one, the
// newer, stays.
func TestMultiRefreshesFinishingOutOfOrder(t *testing.T) {
	var listings atomic.Int32
	held := make(chan memMsg, 2)
	conn := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method != "tools/list" {
			return nil
		}
		if listings.Add(1) == 1 {
			c.reply(m, toolsListing("first"))
			return nil
		}
		held <- m // answered by the test, in its order
		return nil
	}))
	ctx := testenv.Context(t)
	m, err := ConnectMulti(ctx, []Server{{Name: "a", Transport: conn}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	older, newer := make(chan error, 1), make(chan error, 1)
	go func() { older <- m.Refresh(ctx) }()
	olderList := <-held
	go func() { newer <- m.Refresh(ctx) }()
	newerList := <-held
	conn.reply(newerList, toolsListing("newest"))
	if err := <-newer; err != nil {
		t.Fatal(err)
	}
	conn.reply(olderList, toolsListing("older"))
	if err := <-older; err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range m.Tools() {
		names = append(names, tool.Exposed)
	}
	if len(names) != 1 || names[0] != "newest" {
		t.Errorf("Tools after the older Refresh finished last = %v, want [newest]", names)
	}
	if _, ok := m.route("older"); ok {
		t.Error("the older listing's tool is routed")
	}
}
