package runtime

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// stallOnceTransport passes its first connect to next, stalls the connects
// numbered in stall until their context ends, and passes the others to next.
type stallOnceTransport struct {
	next    Transport
	n       atomic.Int32
	stall   map[int32]bool
	stalled chan struct{}
}

func (s *stallOnceTransport) Connect(ctx context.Context) (Conn, error) {
	if s.stall[s.n.Add(1)] {
		s.stalled <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.next.Connect(ctx)
}

// TestRestartingCancelledConnectIsNoFailure checks that restarts the
// callers gave up (their contexts cancelled while the server started) do
// not count as failures of the server: the back-off before the next
// restart stays what the server's own failures made it.
func TestRestartingCancelledConnectIsNoFailure(t *testing.T) {
	checkChildren(t)
	tr := &stallOnceTransport{next: fakeTransport(t, "legacy"), stall: map[int32]bool{2: true, 3: true, 4: true}, stalled: make(chan struct{})}
	r, err := ConnectRestarting(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := r.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // the session ends at once: one quick failure
	for i := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := r.Session(ctx)
			done <- err
		}()
		<-tr.stalled
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("restart %d, cancelled: %v", i+1, err)
		}
	}
	if d := restartDelay(r.failures); d != restartDelay(1) {
		t.Errorf("after 3 cancelled restarts the next waits %v (%d failures), want %v as after the one quick end", d, r.failures, restartDelay(1))
	}
	res, err := r.CallTool(context.Background(), "echo", map[string]string{"message": "x"})
	if err != nil || res.Text() != "x" {
		t.Fatalf("the next restart: %v", err)
	}
}
