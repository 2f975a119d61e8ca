package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestForCallsEachIndexOnce calls f once for every index, however many
// processors there are, and returns only after the last call.
func TestForCallsEachIndexOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 3, 100, 1000} {
			seen := make([]atomic.Int32, n)
			For(n, func(i int) { seen[i].Add(1) })
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("GOMAXPROCS %d, n %d: index %d called %d times", procs, n, i, c)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}
