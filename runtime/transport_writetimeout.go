package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// writeWithin POSTs m, within d.
func (c *sseConn) writeWithin(ctx context.Context, m *OutMessage, d time.Duration) error {
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := c.Write(tctx, m)
	if err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("POST %s: %w", c.logEndpoint, ErrWriteTimeout)
	}
	return err
}
