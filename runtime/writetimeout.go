package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// timedWriter is implemented by connections whose Write ignores its context
// once it returns (stdio, HTTP+SSE) and that bound a Write by the request's
// timeout themselves, so that the Session needs no context of its own for
// it. writeWithin is Write with that timeout; when it runs out, the error
// matches errWriteTimeout.
type timedWriter interface {
	writeWithin(ctx context.Context, m *OutMessage, d time.Duration) error
}

// errWriteTimeout marks a Write that ran out of the request's timeout.
var errWriteTimeout = errors.New("the request's timeout ran out while sending it")

// writeWithin POSTs m, within d.
func (c *sseConn) writeWithin(ctx context.Context, m *OutMessage, d time.Duration) error {
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := c.Write(tctx, m)
	if err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("POST %s: %w", c.logEndpoint, errWriteTimeout)
	}
	return err
}
