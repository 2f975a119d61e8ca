package provider

import (
	"context"
	"sync"
)

// HandleAll runs handle on the calls of one model turn concurrently and
// returns the results in the order of calls. Confirmations, which handle
// may ask for, are asked one at a time (see Tools.Confirm).
func HandleAll[C, R any](ctx context.Context, calls []C, handle func(context.Context, C) R) []R {
	out := make([]R, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = handle(ctx, c)
		}()
	}
	wg.Wait()
	return out
}
