package provider

import (
	"context"
	"sync/atomic"
	"testing"
)

// A model turn of a thousand calls runs at most MaxConcurrentCalls of them
// at once, and answers every one in its place. The first MaxConcurrentCalls
// calls wait for each other, so a later call that starts before they all
// have is one too many.
func TestHandleAllBoundsConcurrentCalls(t *testing.T) {
	calls := make([]int, 1000)
	for i := range calls {
		calls[i] = i
	}
	var arrived, early atomic.Int32
	gate := make(chan struct{})
	out := HandleAll(context.Background(), calls, func(_ context.Context, i int) int {
		if i < MaxConcurrentCalls {
			if arrived.Add(1) == MaxConcurrentCalls {
				close(gate)
			}
			<-gate
		} else {
			select {
			case <-gate:
			default:
				early.Add(1)
			}
		}
		return 2 * i
	})
	if n := early.Load(); n > 0 {
		t.Errorf("%d calls started while the first %d still ran", n, MaxConcurrentCalls)
	}
	for i, v := range out {
		if v != 2*i {
			t.Fatalf("result %d is %d, want %d", i, v, 2*i)
		}
	}
	if got := HandleAll(context.Background(), []int(nil), func(context.Context, int) int { return 1 }); len(got) != 0 {
		t.Errorf("no calls gave %v", got)
	}
}
