package runtime

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
)

// The era of a server is a property of the server, so a process that
// connects to the same Streamable HTTP endpoint again need not wait for the
// server/discover probe before its first requests: eras remembers, per
// endpoint, the modern protocol version the last probe settled on, and a
// Session that finds one lets its listings go out without the probe, which
// it sends when something needs the probe's answer (see eraCheck). A probe
// that finds the server is not modern after all, or fails, removes the
// endpoint's entry.
var eras = newEndpointMemory[string](maxCachedEras) // endpoint key → modern protocol version

// maxCachedEras bounds the endpoints eras remembers. When it is full, the
// entry for a new endpoint replaces an arbitrary one: a forgotten endpoint
// costs its next Session one probe before its first request, nothing more.
const maxCachedEras = 1024

// cachedEra returns the modern protocol version remembered for the
// endpoint key, or "".
func cachedEra(key string) string {
	v, _ := eras.get(key)
	return v
}

// rememberEra records that the endpoint key speaks the modern version.
func rememberEra(key, version string) {
	if isModern(version) {
		eras.put(key, version)
	}
}

// eraKeyer is implemented by the connections whose server's era may be
// remembered: those of Streamable HTTP. eraKey returns the key of the
// endpoint, or "" when its era must be probed each time.
type eraKeyer interface {
	eraKey() string
}

// endpointKey returns the key eras keeps the endpoint rawURL under: its
// scheme, host and path. Credentials, query and fragment are left out, so
// that no secret is kept; an origin may serve several MCP endpoints, of
// different eras, at different paths.
func endpointKey(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + u.EscapedPath()
}

// eraCheck is the server/discover probe of a Session whose endpoint eras
// remembers as modern, or whose modern version is pinned. Until the probe's
// answer is in, the Session's state is provisional: the remembered version,
// with no server capabilities, info or instructions. Listing requests (see
// sendsBeforeEraCheck) go out at once under it; other requests, and whoever
// asks for the capabilities, wait for the answer. The probe itself goes out
// (begin) when something first waits for it: until then the listings have
// the connection and the server to themselves, as in a client that knows the
// era and never probes, and a Session that only lists and closes sends no
// probe it never needed, whose POST Close would cancel in flight (which
// costs the pooled HTTP connection it used). done is closed once the probe,
// and any fallback to the initialize handshake it led to, has ended; err is
// then why the Session has no negotiated state, or nil.
//
// The goroutine that sends the probe starts with begin: an idle Session
// that only listed has none. On a connection that delivers in order, such
// as stdio, the probe goes out at once instead, ahead of every request
// (see sendProbeFirst).
type eraCheck struct {
	start     func() // starts the goroutine that sends the probe
	startOnce sync.Once
	done      chan struct{}
	err       error
	// written, when set, is closed once the probe has been written, or
	// after done when it was not (see sendProbeFirst).
	written     chan struct{}
	writtenOnce sync.Once
}

func newEraCheck(start func()) *eraCheck {
	return &eraCheck{start: start, done: make(chan struct{})}
}

// begin lets the probe go out, if it has not yet.
func (chk *eraCheck) begin() {
	chk.startOnce.Do(chk.start)
}

// awaitProbeWritten waits, within ctx, until the probe of an era check that
// sendProbeFirst started has been written, or its check has ended; r is
// the request about to be sent, which does not wait when it is the probe.
func (s *Session) awaitProbeWritten(ctx context.Context, r *request) error {
	chk := s.eraCheck
	if chk == nil || chk.written == nil || r.written != nil {
		return nil
	}
	select {
	case <-chk.written:
		return nil
	default:
	}
	select {
	case <-chk.written:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// markWritten closes chk.written, if it is set and still open.
func (chk *eraCheck) markWritten() {
	if chk.written != nil {
		chk.writtenOnce.Do(func() { close(chk.written) })
	}
}

// startEraCheck starts checkEra for chk, unless the Session is closed:
// then the check ends at once with ErrClosed.
func (s *Session) startEraCheck(chk *eraCheck, key, version string) {
	if s.ctx.Err() != nil {
		chk.err = ErrClosed
		close(chk.done)
		chk.markWritten()
		return
	}
	s.wg.Add(1)
	go s.checkEra(chk, key, version)
}

// sendsBeforeEraCheck reports whether a request for method goes out before
// the era check has ended. Listings change nothing at the server; a request
// that may (a tools/call, which a legacy server that does not insist on
// the handshake would run with legacy semantics) waits for the check.
func sendsBeforeEraCheck(method string) bool {
	switch method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		return true
	}
	return false
}

// checkEra sends the server/discover probe of the era check chk, asking for
// version; chk's begin starts it. When the server turns out not to be modern, it forgets the
// endpoint key and falls back to the initialize handshake, as a probe sent
// before the first request would have.
func (s *Session) checkEra(chk *eraCheck, key, version string) {
	defer s.wg.Done()
	defer chk.markWritten() // after done, when the probe was never written
	defer close(chk.done)
	if s.ctx.Err() != nil {
		chk.err = ErrClosed
		return
	}
	err := s.discover(s.ctx, version, true, chk.markWritten)
	if err == nil {
		if key != "" {
			rememberEra(key, s.state.Load().version)
		}
		return
	}
	if s.ctx.Err() != nil {
		// Closed while the probe ran: nothing was learnt about the server,
		// and the requests waiting for the probe fail as the Session's
		// others do, not with the cancellation of its context.
		chk.err = ErrClosed
		return
	}
	if key != "" {
		eras.forget(key)
	}
	var legacy *legacyServer
	if errors.As(err, &legacy) && s.opts.ProtocolVersion == "" {
		s.log.Info("the server, remembered as modern, is not any more; falling back to the initialize handshake", "reason", legacy.reason)
	}
	if legacy != nil {
		s.hsMu.Lock()
		err = s.fallBack(s.ctx, legacy)
		s.hsMu.Unlock()
	}
	if err != nil {
		chk.err = err
		s.endUnnegotiated(err)
	}
}

// endUnnegotiated ends the Session whose era check failed with err, as a
// failed Connect would have: Err says why, so that a Restarting connects
// again, and the requests still waiting, such as the listings sent ahead of
// the probe, end at once; a call reading for its response is interrupted to
// see it. A connection that failed first has logged its own reason, which
// the probe's error only repeats.
func (s *Session) endUnnegotiated(err error) {
	// No version was negotiated: ProtocolVersion, ServerInfo and
	// Capabilities must not go on answering with the provisional state's.
	s.state.Store(&negotiated{})
	s.mu.Lock()
	if s.err == nil {
		s.err = err
		s.log.Warn("negotiating the protocol version alongside the first requests failed", "error", err)
	}
	s.mu.Unlock()
	s.fail(err)
	if s.cc.SetReadDeadline != nil {
		s.interruptRead()
	}
	if s.stopReadLoop != nil {
		s.stopReadLoop() // so that Done closes, as for a lost connection
	}
}

// current returns the Session's negotiated state, after waiting, within
// ctx, for an era check still running.
func (s *Session) current(ctx context.Context) (*negotiated, error) {
	chk := s.eraCheck
	if chk == nil {
		return s.state.Load(), nil
	}
	chk.begin()
	select {
	case <-chk.done:
	default:
		select {
		case <-chk.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if chk.err != nil {
		return nil, chk.err
	}
	return s.state.Load(), nil
}

// settled returns the Session's state once an era check still running has
// ended, which the probe timeout and Close bound.
func (s *Session) settled() *negotiated {
	if chk := s.eraCheck; chk != nil {
		chk.begin()
		<-chk.done
	}
	return s.state.Load()
}

// eraKey returns the key of the Session's endpoint in eras, or "" when its
// era is not remembered: a transport other than Streamable HTTP, or one
// with an Authorizer, whose first request may start a sign-in that the
// probe should run alone.
func (s *Session) eraKey() string {
	if k, ok := s.conn.(eraKeyer); ok {
		return k.eraKey()
	}
	return ""
}
