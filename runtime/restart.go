package runtime

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Restarting is a Caller that outlives its server: the first call made after
// the Session has ended (a stdio server that exited or crashed, a connection
// that failed) connects again, which starts a stdio server anew. A server
// process is not a conversation, so one crash does not end an agent's.
//
// A call in flight when the server goes away still fails with the reason,
// such as a *ServerExitedError: Restarting never sends a tool call twice,
// since the first may have had effects. When sessions keep ending within
// RestartUptime of their start, each restart waits twice as long as the one
// before, from RestartBackoff up to MaxRestartBackoff, within the calling
// context. A restart whose calling context ends before it connects does not
// count as a failure.
//
// Options.OnToolsChanged, if set, is called after each restart, as for a
// notification of the new Session, since the server started anew may list
// other tools; it is not called for the first connect. It is never called
// concurrently with itself, across Sessions, and may call Session and
// CallTool.
//
// Restarting is safe for use by many goroutines at once.
type Restarting struct {
	t    Transport
	opts Options
	// sem holds the right to look at and replace cur; unlike a mutex,
	// waiting for it can be given up.
	sem chan struct{}

	cur     *Session
	started time.Time
	// latest is cur, or the Session cur was until a restart replaces it;
	// it is read without the right to cur (see Multi.Session).
	latest atomic.Pointer[Session]
	// ended is why the last session ended, kept for the errors of the
	// restarts that fail until one succeeds.
	ended    error
	failures int // consecutive sessions that ended early, or connects that failed
	closed   bool

	// closers are the Closes of ended Sessions, which Close waits for.
	closers sync.WaitGroup

	// closing ends with Close, and with it a restart in progress, which
	// Close would otherwise wait for.
	closing context.Context
	stop    context.CancelFunc
}

// Restart back-off bounds.
const (
	// RestartUptime is how long a session must have lasted for its end not
	// to count as a failure to start.
	RestartUptime = 10 * time.Second
	// RestartBackoff is the wait before the second restart in a row of a
	// server that keeps failing; it doubles with each failure after that.
	RestartBackoff = 100 * time.Millisecond
	// MaxRestartBackoff bounds that wait.
	MaxRestartBackoff = 30 * time.Second
)

// ConnectRestarting connects to the server t reaches, as Connect does, and
// returns a Restarting that connects again, with the same options, whenever
// a call finds the Session ended.
func ConnectRestarting(ctx context.Context, t Transport, opts *Options) (*Restarting, error) {
	r := &Restarting{t: t, sem: make(chan struct{}, 1)}
	if opts != nil {
		r.opts = *opts
	}
	if changed := r.opts.OnToolsChanged; changed != nil {
		// A Session that ended may still be running it when its successor
		// calls it: one call at a time, across the Sessions.
		var mu sync.Mutex
		r.opts.OnToolsChanged = func() {
			mu.Lock()
			defer mu.Unlock()
			changed()
		}
	}
	s, err := Connect(ctx, t, &r.opts)
	if err != nil {
		return nil, err
	}
	r.closing, r.stop = context.WithCancel(context.Background())
	r.cur, r.started = s, time.Now()
	r.latest.Store(s)
	return r, nil
}

// CallTool calls the tool on the current Session, connecting again first if
// it has ended.
func (r *Restarting) CallTool(ctx context.Context, name string, args any) (*Result, error) {
	s, err := r.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("calling %s: %w", name, err)
	}
	return s.CallTool(ctx, name, args)
}

// ListTools lists the tools of the current Session, connecting again first
// if it has ended.
func (r *Restarting) ListTools(ctx context.Context) ([]Tool, error) {
	s, err := r.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing tools: %w", err)
	}
	return s.ListTools(ctx)
}

// Session returns the current Session, connecting again first if it has
// ended.
func (r *Restarting) Session(ctx context.Context) (*Session, error) {
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.closing.Done():
		return nil, ErrClosed
	}
	defer func() { <-r.sem }()
	if r.closed {
		return nil, ErrClosed
	}
	if r.cur != nil && r.cur.Err() == nil {
		return r.cur, nil
	}
	if r.cur != nil {
		r.ended = r.cur.Err()
		if time.Since(r.started) < RestartUptime {
			r.failures++
		} else {
			r.failures = 0
		}
		// Closed apart: its Close waits for its OnToolsChanged, which may
		// be this very call, or waiting for it.
		old := r.cur
		r.cur = nil
		r.closers.Add(1)
		go func() {
			defer r.closers.Done()
			old.Close()
		}()
	}
	// Close ends the restart.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.closing, cancel)()
	if d := restartDelay(r.failures); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			if r.closing.Err() != nil {
				return nil, ErrClosed
			}
			if r.ended != nil {
				return nil, fmt.Errorf("restarting the server (it ended: %v) after %d quick failures: %w", r.ended, r.failures, ctx.Err())
			}
			return nil, fmt.Errorf("restarting the server after %d quick failures: %w", r.failures, ctx.Err())
		}
	}
	s, err := Connect(ctx, r.t, &r.opts)
	if err != nil && r.closing.Err() != nil {
		return nil, ErrClosed
	}
	if err != nil {
		if ctx.Err() == nil {
			// A connect the caller gave up says nothing of the server.
			r.failures++
		}
		if r.ended != nil {
			return nil, fmt.Errorf("restarting the server (it ended: %v): %w", r.ended, err)
		}
		return nil, fmt.Errorf("restarting the server: %w", err)
	}
	if r.ended != nil {
		s.log.Info("restarted the server", "reason", r.ended.Error())
	}
	r.cur, r.started, r.ended = s, time.Now(), nil
	r.latest.Store(s)
	if r.opts.OnToolsChanged != nil {
		// The new server may list other tools than the one that ended:
		// the Session's goroutine for list changes says so, as for a
		// notification.
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
	return s, nil
}

// restartDelay is the wait before a restart after n failures in a row: none
// for the first, then RestartBackoff doubling up to MaxRestartBackoff.
func restartDelay(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := RestartBackoff
	for i := 2; i < n && d < MaxRestartBackoff; i++ {
		d *= 2
	}
	return min(d, MaxRestartBackoff)
}

// Close closes the current Session; later calls fail with ErrClosed, and so
// does a call connecting again meanwhile, which Close does not wait for.
func (r *Restarting) Close() error {
	r.stop()
	r.sem <- struct{}{}
	r.closed = true
	var err error
	if r.cur != nil {
		err = r.cur.Close()
		r.cur = nil
	}
	<-r.sem
	r.closers.Wait()
	return err
}
