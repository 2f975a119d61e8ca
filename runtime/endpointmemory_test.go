package runtime

import (
	"fmt"
	"testing"
)

// TestEndpointMemoryBounded checks that an endpointMemory holds at most its
// maximum of endpoints, keeps the newest, replaces no entry when a known
// endpoint is put again, and never remembers the empty key.
func TestEndpointMemoryBounded(t *testing.T) {
	e := newEndpointMemory[int](3)
	for i := range 10 {
		e.put(fmt.Sprintf("http://h/%d", i), i)
		if n := len(e.m); n > 3 {
			t.Fatalf("after %d puts the memory holds %d endpoints, want at most 3", i+1, n)
		}
		if v, ok := e.get(fmt.Sprintf("http://h/%d", i)); !ok || v != i {
			t.Fatalf("get of the endpoint just put = %d, %v", v, ok)
		}
	}
	before := len(e.m)
	e.put("http://h/9", 90)
	if v, _ := e.get("http://h/9"); v != 90 || len(e.m) != before {
		t.Errorf("putting a known endpoint again: value %d, %d endpoints; want 90, %d", v, len(e.m), before)
	}
	e.put("", 1)
	if _, ok := e.get(""); ok {
		t.Error("the empty key was remembered")
	}
	e.forget("http://h/9")
	if _, ok := e.get("http://h/9"); ok {
		t.Error("a forgotten endpoint is still remembered")
	}
}
