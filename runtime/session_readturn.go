package runtime

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"time"
)

// The turn to read.
//
// On a connection whose Read a deadline can interrupt (stdio), no goroutine
// reads all the time. Whoever holds Session.readMu reads, and dispatches
// every message it gets, as readLoop does elsewhere:
//
//   - A call that finds the turn free after sending its request takes it
//     and reads until its own response arrives. A sequential caller thus
//     reads its own responses, with no hand-off between goroutines.
//   - A call that finds the turn taken waits for its response, or for the
//     turn, sent on its channel by a holder that is done.
//   - A holder that is done passes the turn to another pending call, or
//     frees it when none is pending. Because passRead looks for pending
//     calls and frees the turn under Session.mu, a call registered before
//     that finds the turn free, and one registered after it is promoted.
//   - idleReader takes a free turn once the Session has made no request for
//     a while, so that server requests, notifications and the server's exit
//     are seen while no call is waiting; it gives the turn up as soon as a
//     request is made. Its timer is armed when the turn is freed, not
//     while a call holds it: a call that waits a minute for its response
//     wakes no other goroutine meanwhile.
//
// A holder's own timeout is its read deadline; its context ending sets the
// deadline to the past. A deadline that interrupts another holder late is
// harmless: each holder checks its own call before reading again, and sets
// its own deadline.

// idleReadDelay is how long the Session must have made no request before
// idleReader reads.
const idleReadDelay = 10 * time.Millisecond

// testHookIdleWake, when set by a test, is called each time idleReader
// wakes.
var testHookIdleWake atomic.Pointer[func(*Session)]

// readFor reads the connection for c, which holds the turn to read, until
// c's response arrives, c's timeout passes or ctx ends; then it passes the
// turn on.
func (s *Session) readFor(ctx context.Context, c *call, st *negotiated, r *request, timeout time.Duration, start time.Time) reply {
	var deadline time.Time
	if timeout > 0 {
		deadline = start.Add(timeout)
	}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, s.interruptRead)
		defer stop()
	}
	for {
		select {
		case rep := <-c.ch:
			s.passRead(c)
			return rep
		default:
		}
		if !deadline.IsZero() {
			now := time.Now()
			if !now.Before(deadline) {
				d := progressExtension(c, start, timeout)
				if d <= 0 {
					return reply{err: s.cancelCall(ctx, c, st, r, timeout, true)}
				}
				deadline = now.Add(d)
			}
		}
		s.cc.SetReadDeadline(deadline)
		// Checked after the deadline is set, so that interruptRead, which
		// runs once ctx has ended, cannot be undone unseen.
		if ctx.Err() != nil {
			return reply{err: s.cancelCall(ctx, c, st, r, timeout, true)}
		}
		// So is the end of a Session whose era check failed (see
		// endUnnegotiated): fail has answered c, or is about to.
		select {
		case <-s.dead:
			return <-c.ch
		default:
		}
		data, err := s.conn.Read(s.ctx)
		if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
			continue
		}
		if !s.dispatch(data, err) {
			// The connection is gone, and fail has answered c. The turn
			// stays taken: there is nothing more to read.
			return <-c.ch
		}
	}
}

// interruptRead makes the Read in progress, and any before the holder sets
// its deadline again, return.
func (s *Session) interruptRead() { s.cc.SetReadDeadline(time.Unix(0, 1)) }

// passRead passes the turn to read from its holder to a pending call other
// than self, or frees it when there is none. self is nil for idleReader.
func (s *Session) passRead(self *call) {
	s.mu.Lock()
	for _, p := range s.pending {
		if p != self && !p.promoted && !p.passive {
			p.promoted = true
			s.mu.Unlock()
			p.ch <- reply{promote: true}
			return
		}
	}
	s.readMu.Unlock()
	if s.idleTimer != nil {
		s.idleTimer.Reset(idleReadDelay)
	}
	s.mu.Unlock()
}

// idleReader reads while the Session is idle, and closes readerDone once
// the connection has failed. It takes the turn to read when idleTimer fires
// and no request has been made for idleReadDelay; when a call holds the
// turn, it waits for passRead to free the turn and arm the timer again.
func (s *Session) idleReader() {
	defer close(s.readerDone)
	defer s.idleTimer.Stop()
	closing := s.ctx.Done()
	seen := s.nextID.Load()
	for {
		select {
		case <-s.dead:
			return
		case <-closing:
			// Close has closed the connection: a Read fails at once and
			// fails the calls still pending.
			closing = nil
		case <-s.idleTimer.C:
		}
		if hook := testHookIdleWake.Load(); hook != nil {
			(*hook)(s)
		}
		if n := s.nextID.Load(); n != seen && s.ctx.Err() == nil {
			// A request went out since the last look.
			seen = n
			s.idleTimer.Reset(idleReadDelay)
			continue
		}
		if s.readMu.TryLock() && !s.readIdle() {
			return
		}
		seen = s.nextID.Load()
	}
}

// readIdle reads for idleReader, which holds the turn, until a request is
// made, and then passes the turn on. It reports false once the connection
// has failed.
func (s *Session) readIdle() bool {
	seen := s.nextID.Load()
	s.cc.SetReadDeadline(time.Time{})
	for {
		// Checked after the deadline is set, so that the interruption
		// that ends a Session whose era check failed (see
		// endUnnegotiated) cannot be undone unseen.
		select {
		case <-s.dead:
			return false
		default:
		}
		data, err := s.conn.Read(s.ctx)
		if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
			// A holder's late interruption.
			s.cc.SetReadDeadline(time.Time{})
		} else if !s.dispatch(data, err) {
			return false
		}
		if s.nextID.Load() != seen {
			s.passRead(nil)
			return true
		}
	}
}
