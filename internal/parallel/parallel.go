// Package parallel runs the independent steps of a loop on every processor.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls f for 0 ≤ i < n, on up to GOMAXPROCS goroutines that take the
// next index as each finishes one, and returns when every call has. Each
// call must touch only its own index's data. With one processor, or
// fewer than two steps, the calls run in order on the caller's goroutine.
func For(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
