package runtime_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// stallingTransport connects to its server the first time, and after that
// stalls every Connect until its context ends, as a server that no longer
// starts does.
type stallingTransport struct {
	first   runtime.Transport
	n       atomic.Int32
	stalled chan struct{}
}

func (t *stallingTransport) Connect(ctx context.Context) (runtime.Conn, error) {
	if t.n.Add(1) == 1 {
		return t.first.Connect(ctx)
	}
	close(t.stalled)
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestRestartingCloseDuringRestart checks that Close does not wait for a
// restart in progress: it ends it, and the call that started it fails.
func TestRestartingCloseDuringRestart(t *testing.T) {
	srv, err := server.New([]server.Tool{textTool("x", "x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := &stallingTransport{first: srv.Transport(), stalled: make(chan struct{})}
	r, err := runtime.ConnectRestarting(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // the session ends: the next call restarts
	called := make(chan error, 1)
	go func() {
		_, err := r.CallTool(context.Background(), "x", nil)
		called <- err
	}()
	<-tr.stalled
	closed := make(chan error, 1)
	go func() { closed <- r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close still waits for the restart after 10s")
	}
	select {
	case err := <-called:
		if !errors.Is(err, runtime.ErrClosed) {
			t.Errorf("the call during Close = %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call still waits after Close")
	}
}
