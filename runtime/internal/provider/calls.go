package provider

import (
	"context"
	"sync"
	"sync/atomic"
)

// MaxConcurrentCalls is how many calls of one model turn HandleAll runs at
// once; the others wait for their turn. A model turn may hold any number
// of calls, and each is a request to the server.
const MaxConcurrentCalls = 16

// HandleAll runs handle on the calls of one model turn concurrently, at
// most MaxConcurrentCalls at once, and returns the results in the order of
// calls. Confirmations, which handle may ask for, are asked one at a time
// (see Tools.Confirm).
func HandleAll[C, R any](ctx context.Context, calls []C, handle func(context.Context, C) R) []R {
	out := make([]R, len(calls))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(calls), MaxConcurrentCalls) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(calls); i = int(next.Add(1) - 1) {
				out[i] = handle(ctx, calls[i])
			}
		}()
	}
	wg.Wait()
	return out
}
