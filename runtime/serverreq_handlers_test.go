package runtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRunHandlerTimeoutBlame: only the handler's own bound is reported as a
// HandlerTimeoutError; the caller's deadline stays the caller's, and a
// panic is an error.
func TestRunHandlerTimeoutBlame(t *testing.T) {
	block := func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, ctx.Err() }
	_, err := runHandler(context.Background(), 20*time.Millisecond, "m", block)
	var te *HandlerTimeoutError
	if !errors.As(err, &te) || te.Timeout != 20*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("own bound: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = runHandler(ctx, time.Hour, "m", block)
	if errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("caller's deadline: %v", err)
	}
	_, err = runHandler(context.Background(), -1, "m", func(context.Context) (int, error) { panic("boom") })
	if err == nil || err.Error() != "m handler panicked: boom" {
		t.Errorf("panic: %v", err)
	}
}
