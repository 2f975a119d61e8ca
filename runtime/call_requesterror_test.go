package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// failingReadConn is a memConn whose Read can also return an error, as a
// Streamable HTTP connection does for a response stream that broke.
type failingReadConn struct {
	*memConn
	errs chan error
}

func (c *failingReadConn) Connect(context.Context) (Conn, error) { return c, nil }

func (c *failingReadConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case err := <-c.errs:
		return nil, err
	case b := <-c.in:
		return b, nil
	case <-c.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestRequestErrorFailsOnlyItsRequest(t *testing.T) {
	var conn *failingReadConn
	conn = &failingReadConn{errs: make(chan error, 1), memConn: newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method != "tools/call" {
			return nil
		}
		if strings.Contains(string(m.Params), `"broken"`) {
			conn.errs <- &RequestError{ID: string(m.ID), Err: errors.New("stream cut before the response")}
			return nil
		}
		c.reply(m, textResult)
		return nil
	}))}
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	_, err = s.CallTool(context.Background(), "broken", nil)
	var re *RequestError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "stream cut") {
		t.Fatalf("CallTool over a broken stream = %v, want the *RequestError", err)
	}
	res, err := s.CallTool(context.Background(), "fine", nil)
	if err != nil || res.Text() != "ok" {
		t.Fatalf("CallTool after another request's stream broke = %v, %v; want the session to keep working", res, err)
	}
}
