package runtime

import (
	"strings"
	"testing"
)

func TestPagesCursors(t *testing.T) {
	pg := pages{method: "x/list"}
	members, err := pg.params()
	if err != nil || members != nil {
		t.Fatalf("first page: members %v, error %v; want none", members != nil, err)
	}
	a := "a"
	if more, err := pg.advance(&a); !more || err != nil {
		t.Fatalf("advance(a) = %v, %v", more, err)
	}
	members, err = pg.params()
	if err != nil || members == nil {
		t.Fatalf("second page: members %v, error %v", members != nil, err)
	}
	if got := string(members(nil)); got != `"cursor":"a"` {
		t.Errorf("second page's members = %s", got)
	}
	if more, err := pg.advance(nil); more || err != nil {
		t.Errorf("advance(nil) = %v, %v; want the end", more, err)
	}
	if _, err := pg.advance(&a); err == nil || !strings.Contains(err.Error(), `x/list: the server sent cursor "a" twice`) {
		t.Errorf("a repeated cursor: %v", err)
	}
}

func TestPagesBound(t *testing.T) {
	pg := pages{method: "x/list", n: maxPages}
	if _, err := pg.params(); err == nil || !strings.Contains(err.Error(), "more than 10000 pages") {
		t.Errorf("past the bound: %v", err)
	}
}
