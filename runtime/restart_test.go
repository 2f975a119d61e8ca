package runtime

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRestartingAfterCrash crashes a stdio server twice: the call in flight
// fails with the exit, the next call starts the server anew (at once after
// the first crash, after RestartBackoff after the second quick one), and
// nothing is left once Close has returned.
func TestRestartingAfterCrash(t *testing.T) {
	checkLeaks(t)
	checkChildren(t)
	checkFDs(t)
	ctx := context.Background()
	r, err := ConnectRestarting(ctx, fakeTransport(t, "legacy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	echo := func() (string, error) {
		res, err := r.CallTool(ctx, "echo", map[string]string{"message": "hi"})
		if err != nil {
			return "", err
		}
		return res.Text(), nil
	}
	if got, err := echo(); err != nil || got != "hi" {
		t.Fatalf("echo: %q, %v", got, err)
	}
	first, _ := r.Session(ctx)
	for crash := 1; crash <= 2; crash++ {
		_, err := r.CallTool(ctx, "die", nil)
		var se *ServerExitedError
		if !errors.As(err, &se) {
			t.Fatalf("crash %d: %v, want a *ServerExitedError", crash, err)
		}
		<-first.Done()
		start := time.Now()
		if got, err := echo(); err != nil || got != "hi" {
			t.Fatalf("echo after crash %d: %q, %v", crash, got, err)
		}
		took := time.Since(start)
		if crash == 2 && took < RestartBackoff {
			t.Errorf("the second quick restart took %v, want a wait of %v first", took, RestartBackoff)
		}
		if again, _ := r.Session(ctx); again == first {
			t.Fatalf("crash %d: still the same Session", crash)
		} else {
			first = again
		}
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := echo(); !errors.Is(err, ErrClosed) {
		t.Errorf("a call after Close: %v, want ErrClosed", err)
	}
}

// failingTransport fails the connects whose number (from 1) is in fail, and
// passes the others to next.
type failingTransport struct {
	next Transport
	n    atomic.Int32
	fail map[int32]bool
}

func (f *failingTransport) Connect(ctx context.Context) (Conn, error) {
	if f.fail[f.n.Add(1)] {
		return nil, errors.New("cannot start: out of cheese")
	}
	return f.next.Connect(ctx)
}

// TestRestartingConnectFails checks that a restart that cannot connect fails
// its call with both reasons, and that a later call tries again.
func TestRestartingConnectFails(t *testing.T) {
	checkChildren(t)
	ctx := context.Background()
	tr := &failingTransport{next: fakeTransport(t, "legacy"), fail: map[int32]bool{2: true}}
	r, err := ConnectRestarting(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.CallTool(ctx, "die", nil)
	_, err = r.CallTool(ctx, "echo", map[string]string{"message": "x"})
	if err == nil || !strings.Contains(err.Error(), "out of cheese") || !strings.Contains(err.Error(), "it ended") {
		t.Fatalf("the failed restart: %v", err)
	}
	// Two failures in a row: the next restart waits RestartBackoff, within
	// the call's context.
	short, cancel := context.WithTimeout(ctx, RestartBackoff/4)
	defer cancel()
	if _, err := r.CallTool(short, "echo", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call whose context ends during the back-off: %v", err)
	}
	res, err := r.CallTool(ctx, "echo", map[string]string{"message": "x"})
	if err != nil || res.Text() != "x" {
		t.Fatalf("the next restart: %v", err)
	}
}

func TestRestartDelay(t *testing.T) {
	for n, want := range map[int]time.Duration{0: 0, 1: 0, 2: RestartBackoff, 3: 2 * RestartBackoff, 4: 4 * RestartBackoff, 20: MaxRestartBackoff, 1000: MaxRestartBackoff} {
		if got := restartDelay(n); got != want {
			t.Errorf("restartDelay(%d) = %v, want %v", n, got, want)
		}
	}
}
