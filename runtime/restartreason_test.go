package runtime

import (
	"context"
	"strings"
	"testing"
)

// TestRestartingKeepsTheReasonAfterAFailedRestart checks that every failed
// restart names why the session ended, not only the first, until a restart
// succeeds.
func TestRestartingKeepsTheReasonAfterAFailedRestart(t *testing.T) {
	checkChildren(t)
	ctx := context.Background()
	tr := &failingTransport{next: fakeTransport(t, "legacy"), fail: map[int32]bool{2: true, 3: true, 5: true}}
	r, err := ConnectRestarting(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.CallTool(ctx, "die", nil); err == nil {
		t.Fatal("die did not fail")
	}
	for i := 1; i <= 2; i++ {
		_, err := r.CallTool(ctx, "echo", map[string]string{"message": "x"})
		if err == nil || !strings.Contains(err.Error(), "out of cheese") || !strings.Contains(err.Error(), "it ended") {
			t.Fatalf("failed restart %d: %v, want the connect's error and why the session ended", i, err)
		}
	}
	// A call whose context ends during the back-off (200 ms now) names it
	// too.
	short, cancel := context.WithTimeout(ctx, RestartBackoff/2)
	defer cancel()
	switch _, err := r.CallTool(short, "echo", nil); {
	case err == nil:
		t.Fatal("a call whose context ended during the back-off succeeded")
	case !strings.Contains(err.Error(), "restarting"):
		// A stalled machine: the context ended before the back-off began.
		t.Logf("the context ended before the back-off: %v", err)
	case !strings.Contains(err.Error(), "it ended"):
		t.Fatalf("a call given up during the back-off: %v, want why the session ended", err)
	}
	res, err := r.CallTool(ctx, "echo", map[string]string{"message": "x"})
	if err != nil || res.Text() != "x" {
		t.Fatalf("the restart that succeeds: %v", err)
	}
	// Once a restart succeeded, the old reason is gone: a session that
	// is closed ends with ErrClosed, which the next failure names.
	s, err := r.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = r.CallTool(ctx, "echo", nil)
	if err == nil || !strings.Contains(err.Error(), "it ended: "+ErrClosed.Error()) {
		t.Fatalf("the failed restart after a closed session: %v", err)
	}
}
