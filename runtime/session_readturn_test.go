package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestIdleSessionServesServer checks that a Session nobody is calling still
// reads: it answers the server's ping and delivers its notification.
func TestIdleSessionServesServer(t *testing.T) {
	for _, mode := range []string{"legacy", "modern"} {
		t.Run(mode, func(t *testing.T) {
			changed := make(chan struct{}, 4)
			s := connectFake(t, mode, &Options{OnToolsChanged: func() { changed <- struct{}{} }})
			if got := callText(t, s, "later", map[string]int{"ms": 50}); got != "later" {
				t.Fatalf("later: %q", got)
			}
			select {
			case <-changed:
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatal("the idle Session answered no ping or delivered no notification")
			}
		})
	}
}

// TestLongCallWakesNoIdleReader checks that while a call holds the turn to
// read, waiting for a response that takes 300 ms, idleReader is not woken
// every idleReadDelay: it looks at most twice after the request goes out,
// and then waits for the turn to be freed. The servers are the fake one and
// the go-sdk server, in both eras.
func TestLongCallWakesNoIdleReader(t *testing.T) {
	for _, tc := range []struct {
		name, pin, slept string
		tr               func(t *testing.T) Transport
	}{
		{"fake", "", "done", func(t *testing.T) Transport { return fakeTransport(t, "legacy") }},
		{"go-sdk", "", "slept", func(t *testing.T) Transport { return NewCommandTransport(testenv.SDKServer(t)) }},
		{"go-sdk pinned", "2025-11-25", "slept", func(t *testing.T) Transport { return NewCommandTransport(testenv.SDKServer(t)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "fake" && testing.Short() {
				t.Skip("starts a real server")
			}
			s, err := Connect(testenv.Context(t), tc.tr(t), &Options{ProtocolVersion: tc.pin})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { closeAndCheckReaped(t, s) })
			callText(t, s, "echo", map[string]string{"message": "warm"})
			var wakes atomic.Int64
			count := func(hs *Session) {
				if hs == s {
					wakes.Add(1)
				}
			}
			testHookIdleWake.Store(&count)
			defer testHookIdleWake.Store(nil)
			if got := callText(t, s, "slow", map[string]int{"ms": 300}); got != tc.slept {
				t.Fatalf("slow: %q, want %q", got, tc.slept)
			}
			// Up to two looks for the call, and one for the turn freed by
			// the echo before it, if the timer armed then fired before the
			// call.
			n := wakes.Load()
			t.Logf("idleReader woke %d times during the call", n)
			if n > 3 {
				t.Errorf("idleReader woke %d times during a 300 ms call; want at most 3", n)
			}
		})
	}
}

// TestIdleSessionSeesExit checks that a server exiting while the Session is
// idle ends the Session.
func TestIdleSessionSeesExit(t *testing.T) {
	s := connectFake(t, "legacy", nil)
	callText(t, s, "exitlater", map[string]int{"ms": 50})
	select {
	case <-s.Done():
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("Done was not closed after the server exited")
	}
	var se *ServerExitedError
	if err := s.Err(); !errors.As(err, &se) || !strings.Contains(se.Error(), "exiting while idle") {
		t.Errorf("Err() = %v, want a *ServerExitedError with the stderr tail", err)
	}
}

// TestTurnToReadUnderChurn runs concurrent calls over stdio that succeed,
// time out, or are cancelled at random, so that the turn to read passes
// between callers in every way: each call gets its own result or an error
// in time, and afterwards the Session serves sequential and concurrent
// calls as before.
func TestTurnToReadUnderChurn(t *testing.T) {
	checkLeaks(t)
	s := connectFake(t, "legacy", &Options{CallTimeout: 40 * time.Millisecond})
	const n = 300
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			ms := rand.IntN(60)
			switch i % 3 {
			case 1:
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				time.AfterFunc(time.Duration(rand.IntN(30))*time.Millisecond, cancel)
			case 2:
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Duration(10+rand.IntN(60))*time.Millisecond)
				defer cancel()
			}
			start := time.Now()
			res, err := s.CallTool(ctx, "slow", map[string]int{"ms": ms})
			took := time.Since(start)
			switch {
			case err == nil && res.Text() != "done":
				errs <- fmt.Errorf("call %d: got %q", i, res.Text())
			case err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded):
				errs <- fmt.Errorf("call %d: %v", i, err)
			case took > 2*time.Second+loadSlack:
				errs <- fmt.Errorf("call %d took %v", i, took)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// After the churn every call must succeed. The 40 ms CallTimeout
	// applies only to calls without a deadline, so these get a generous
	// one of their own: a loaded machine can pause a goroutine for longer
	// than 40 ms, which says nothing about the turn to read.
	ctx := testenv.Context(t)
	for i := range 20 {
		msg := fmt.Sprint("after-", i)
		res, err := s.CallTool(ctx, "echo", map[string]string{"message": msg})
		if err != nil || res.Text() != msg {
			t.Fatalf("echo %s: %v %v", msg, res, err)
		}
	}
	var burst sync.WaitGroup
	for i := range 50 {
		burst.Add(1)
		go func() {
			defer burst.Done()
			msg := fmt.Sprint("burst-", i)
			res, err := s.CallTool(ctx, "echo", map[string]string{"message": msg})
			if err != nil || res.Text() != msg {
				t.Errorf("echo %s: %v %v", msg, res, err)
			}
		}()
	}
	burst.Wait()
}

// TestWaitingCallTakesOverReading checks that when the call reading the
// connection gives up, a call still waiting takes over and gets its result.
func TestWaitingCallTakesOverReading(t *testing.T) {
	s := connectFake(t, "legacy", nil)
	for _, giveUp := range []string{"timeout", "cancel"} {
		t.Run(giveUp, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// A call first, so that the idle reader, which reads after the
			// connection has been quiet, has given up the turn.
			callText(t, s, "echo", map[string]string{"message": "warm"})
			reader := make(chan error, 1)
			go func() {
				// The server answers after 2 s; this call is the first to
				// wait, so it reads.
				if giveUp == "timeout" {
					var c context.CancelFunc
					ctx, c = context.WithTimeout(ctx, time.Second)
					defer c()
				}
				_, err := s.CallTool(ctx, "slow", map[string]int{"ms": 2000})
				reader <- err
			}()
			if giveUp == "cancel" {
				waitPending(t, s, 1)
			} else {
				// The call times out after 1 s: wait no longer for it.
				for end := time.Now().Add(time.Second); pendingCount(s) == 0 && time.Now().Before(end); {
					time.Sleep(5 * time.Millisecond)
				}
			}
			waiter := make(chan error, 1)
			go func() {
				res, err := s.CallTool(context.Background(), "slow", map[string]int{"ms": 300})
				if err == nil && res.Text() != "done" {
					err = fmt.Errorf("got %q", res.Text())
				}
				waiter <- err
			}()
			if giveUp == "cancel" {
				waitPending(t, s, 2)
				cancel()
			}
			if err := <-reader; !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("the call that gave up: %v", err)
			}
			select {
			case err := <-waiter:
				if err != nil {
					t.Errorf("the waiting call: %v", err)
				}
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatal("the waiting call never got its result")
			}
		})
	}
}
