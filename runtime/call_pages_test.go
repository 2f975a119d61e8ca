package runtime

import (
	goruntime "runtime"
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

// TestPagesHoldNoCursors follows 64 pages whose cursors are 1 MiB each, as
// a hostile server may send: the walk keeps no more than the cursor it
// sends next, and an error quotes a repeated one only in part.
func TestPagesHoldNoCursors(t *testing.T) {
	pg := pages{method: "x/list"}
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for i := range 64 {
		c := strings.Repeat(string(rune('A'+i%26)), 1<<20) + string(rune('0'+i/26))
		if more, err := pg.advance(&c); !more || err != nil {
			t.Fatalf("page %d: %v, %v", i, more, err)
		}
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	goruntime.KeepAlive(&pg)
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 8<<20 {
		t.Errorf("after 64 cursors of 1 MiB, the walk holds %d MiB", held>>20)
	}
	again := strings.Repeat("A", 1<<20) + "0"
	_, err := pg.advance(&again)
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "(1048577 bytes) twice") {
		t.Errorf("a repeated 1 MiB cursor: %.300v", err)
	}
}
