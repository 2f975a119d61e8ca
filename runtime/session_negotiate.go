package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// legacyServer is the outcome of a probe that found no modern server: the
// Session falls back to the initialize handshake, with version when the
// server named one.
type legacyServer struct {
	reason  string
	version string
	// silent is set when the server did not answer the probe at all.
	silent *ProbeTimeoutError
}

func (e *legacyServer) Error() string { return "server is not modern: " + e.reason }

// ProbeTimeoutError reports a server that did not answer the
// server/discover probe within Options.ProbeTimeout. It matches
// context.DeadlineExceeded with errors.Is.
type ProbeTimeoutError struct {
	Timeout time.Duration
}

func (e *ProbeTimeoutError) Error() string {
	return "no answer to server/discover within " + e.Timeout.String() + " (the probe timeout)"
}

// Is makes a ProbeTimeoutError match context.DeadlineExceeded.
func (e *ProbeTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// negotiate settles the protocol version: the server/discover probe of the
// 2026-07-28 era, with a fallback to the initialize handshake.
func (s *Session) negotiate(ctx context.Context) error {
	pin := s.opts.ProtocolVersion
	if pin != "" && !isSupported(pin) {
		return fmt.Errorf("protocol version %q is not supported (this client speaks %s)", pin, strings.Join(supportedVersions, ", "))
	}
	if pin != "" && !isModern(pin) {
		return s.initialize(ctx, pin, true)
	}
	want := pin
	if want == "" {
		want = LatestProtocolVersion
	}
	key := s.eraKey()
	v := cachedEra(key)
	inOrder := key == "" && s.cc.DeliversInOrder
	if v == "" && (key != "" || inOrder) && pin != "" {
		// A pinned modern version is what the probe would have to
		// confirm: the first listing need not wait for it, in a fresh
		// process either, where nothing is remembered yet.
		v = pin
	}
	if v != "" && (pin == "" || pin == v) {
		// The server was modern when last probed, or the version is
		// pinned: the probe goes out alongside the first requests,
		// which do not wait for it.
		s.state.Store(&negotiated{version: v, meta: s.modernMeta(v), provisional: true})
		var chk *eraCheck
		chk = newEraCheck(func() { s.startEraCheck(chk, key, v) })
		s.eraCheck = chk
		if inOrder {
			s.sendProbeFirst(chk)
		}
		return nil
	}
	err := s.discover(ctx, want, true, nil)
	switch {
	case err == nil:
		rememberEra(key, s.state.Load().version)
	case ctx.Err() == nil:
		eras.forget(key)
	}
	var legacy *legacyServer
	if !errors.As(err, &legacy) {
		return err
	}
	return s.fallBack(ctx, legacy)
}

// sendProbeFirst starts the era check chk of a connection that delivers in
// order (ConnCapabilities.DeliversInOrder): its probe goes out at once, and
// every request after it waits only until the probe has been written (see
// awaitProbeWritten), so that it reaches the server behind the probe, as
// the stdio transport asks of a modern client, while the probe's answer is
// awaited alongside.
func (s *Session) sendProbeFirst(chk *eraCheck) {
	chk.written = make(chan struct{})
	chk.begin()
}

// fallBack runs the initialize handshake after the probe found a server
// that is not modern, unless Options.ProtocolVersion pins a modern version.
func (s *Session) fallBack(ctx context.Context, legacy *legacyServer) error {
	pin := s.opts.ProtocolVersion
	if pin != "" && legacy.silent != nil {
		return fmt.Errorf("negotiating protocol version %s: %w", pin, legacy.silent)
	}
	if pin != "" {
		return fmt.Errorf("the server does not speak protocol version %s: %s", pin, legacy.reason)
	}
	s.log.Debug("falling back to the initialize handshake", "reason", legacy.reason)
	version := legacy.version
	if version == "" {
		version = LatestLegacyProtocolVersion
	}
	return s.initialize(ctx, version, true)
}

// discover sends the server/discover probe asking for version, and waits
// for the server's answer within Options.ProbeTimeout. written, when set,
// is called once the probe has been written; it must do nothing the second
// time, for a probe sent again after a sign-in. It returns nil when
// the server is modern, a *legacyServer when it is not, and any other error
// when the connection failed or, over Streamable HTTP, the server stayed
// silent.
func (s *Session) discover(ctx context.Context, version string, retry bool, written func()) error {
	st := &negotiated{version: version, meta: s.modernMeta(version)}
	var res []byte
	var err error
	// A sign-in the probe's 401 starts is bounded by ctx alone; when it
	// outlasts the probe timeout, the probe is sent once more.
	for attempt := 0; attempt < 2; attempt++ {
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if s.opts.ProbeTimeout > 0 {
			pctx, cancel = context.WithTimeout(ctx, s.opts.ProbeTimeout)
		}
		// The probe's own bound is pctx's deadline, not the call timeout.
		res, err = s.do(withSignInContext(pctx, ctx), st, &request{method: "server/discover", timeout: -1, noCancel: true, noResend: true, written: written}, nil)
		cancel()
		if !errors.Is(err, errAuthorizedLate) {
			break
		}
		s.log.Debug("signed in after the probe timeout; probing again")
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("negotiating the protocol version: %w", ctx.Err())
		}
		if errors.Is(err, context.DeadlineExceeded) {
			silent := &ProbeTimeoutError{Timeout: s.opts.ProbeTimeout}
			if s.cc.AnswersEveryRequest {
				// A legacy HTTP server refuses the probe at once: one
				// that has not answered yet is slow, not legacy.
				return fmt.Errorf("negotiating the protocol version: %w", silent)
			}
			return &legacyServer{reason: silent.Error(), silent: silent}
		}
		var rpc *RPCError
		var he *HTTPError
		switch {
		case errors.As(err, &rpc):
			return s.discoverError(ctx, rpc, retry)
		case errors.Is(err, errNoResponse):
			// A legacy server that takes an unknown method for a
			// notification; the handshake shows whether it speaks MCP.
			return &legacyServer{reason: err.Error()}
		case errors.As(err, &he) && (he.StatusCode == 401 || he.StatusCode == 403):
			// Authorization, not a sign of the protocol era.
			return fmt.Errorf("negotiating the protocol version: %w", err)
		case errors.As(err, &he):
			return &legacyServer{reason: he.Error()}
		}
		return fmt.Errorf("negotiating the protocol version: %w", err)
	}
	r, err := decodeDiscoverResult(res)
	if err != nil {
		return &legacyServer{reason: "malformed server/discover result: " + err.Error()}
	}
	if len(r.supportedVersions) == 0 {
		// Not a DiscoverResult, whose supportedVersions is required: some
		// legacy servers answer every unknown method with an empty result.
		return &legacyServer{reason: "the server/discover result lists no supportedVersions"}
	}
	chosen := ""
	if s.opts.ProtocolVersion != "" {
		for _, v := range r.supportedVersions {
			if v == s.opts.ProtocolVersion {
				chosen = v
			}
		}
	} else {
		chosen = highestCommon(r.supportedVersions, true)
	}
	if chosen == "" {
		if v := highestCommon(r.supportedVersions, false); v != "" {
			return &legacyServer{reason: "server/discover lists only legacy versions", version: v}
		}
		return fmt.Errorf("the server speaks protocol versions %s; this client speaks %s",
			s.quote(strings.Join(r.supportedVersions, ", ")), strings.Join(supportedVersions, ", "))
	}
	s.state.Store(&negotiated{
		version:      chosen,
		serverInfo:   r.serverInfo,
		caps:         parseCapabilities(r.capabilities),
		instructions: r.instructions,
		meta:         s.modernMeta(chosen),
	})
	return nil
}

// discoverError interprets a JSON-RPC error to the probe. Only the modern
// protocol errors prove a modern server; anything else means legacy.
func (s *Session) discoverError(ctx context.Context, rpc *RPCError, retry bool) error {
	switch rpc.Code {
	case CodeUnsupportedProtocolVersion:
		var d struct {
			Supported []string `json:"supported"`
		}
		_ = json.Unmarshal(rpc.Data, &d)
		if v := s.retryVersion(d.Supported); v != "" && retry {
			return s.discover(ctx, v, false, nil)
		}
		if v := highestCommon(d.Supported, false); v != "" {
			return &legacyServer{reason: "the server supports only legacy versions", version: v}
		}
		if len(d.Supported) == 0 {
			return &legacyServer{reason: rpc.Error()}
		}
		return fmt.Errorf("the server speaks protocol versions %s; this client speaks %s",
			s.quote(strings.Join(d.Supported, ", ")), strings.Join(supportedVersions, ", "))
	case CodeMissingRequiredClientCapability, CodeHeaderMismatch:
		return fmt.Errorf("server/discover: %w", rpc)
	}
	return &legacyServer{reason: rpc.Error()}
}

// retryVersion returns the modern version to retry a request with after the
// server rejected its version with -32022, listing supported: the pinned
// version (Options.ProtocolVersion) when the server lists it, otherwise the
// newest modern version both sides speak. It returns "" when there is none.
// The version rejected may come back: a server may refuse a version it
// lists, such as one behind a load balancer whose replicas differ.
func (s *Session) retryVersion(supported []string) string {
	if pin := s.opts.ProtocolVersion; pin != "" {
		if isModern(pin) && slices.Contains(supported, pin) {
			return pin
		}
		return ""
	}
	return highestCommon(supported, true)
}

// versionRetry returns the state to send a modern request under again after
// err, or nil when err is not a -32022 error naming a version to retry
// with. When the version changes, the Session keeps the new one for later
// requests: the MCP-Protocol-Version header and _meta of every request come
// from the same state, so they always agree.
func (s *Session) versionRetry(st *negotiated, err error) *negotiated {
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != CodeUnsupportedProtocolVersion {
		return nil
	}
	var d struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(rpc.Data, &d) != nil {
		return nil
	}
	v := s.retryVersion(d.Supported)
	switch {
	case v == "":
		return nil
	case v == st.version:
		s.log.Debug("the server rejected a protocol version it lists; retrying once", "version", v)
		return st
	}
	next := *st
	next.version, next.meta = v, s.modernMeta(v)
	s.state.CompareAndSwap(st, &next)
	s.log.Info("the server rejected the protocol version; retrying with one both sides speak", "rejected", st.version, "version", v)
	return &next
}

// highestCommon returns the newest version in offered that this client
// speaks, of the modern era when modern is set and of the legacy era
// otherwise.
func highestCommon(offered []string, modern bool) string {
	for _, v := range supportedVersions {
		if isModern(v) != modern {
			continue
		}
		for _, o := range offered {
			if o == v {
				return v
			}
		}
	}
	return ""
}

// initialize runs the legacy handshake: initialize, then
// notifications/initialized.
func (s *Session) initialize(ctx context.Context, version string, retry bool) error {
	pre := &negotiated{legacy: true}
	res, err := s.do(ctx, pre, &request{method: "initialize", noCancel: true, noResend: true}, func(b []byte) []byte {
		b = append(b, `"protocolVersion":`...)
		b = jsonrpc.AppendString(b, version)
		b = append(b, `,"capabilities":`...)
		b = append(b, s.clientCapabilities(version)...)
		b = append(b, `,"clientInfo":{"name":`...)
		b = jsonrpc.AppendString(b, s.opts.ClientName)
		b = append(b, `,"version":`...)
		b = jsonrpc.AppendString(b, s.opts.ClientVersion)
		return append(b, '}')
	})
	if err != nil {
		var rpc *RPCError
		if retry && errors.As(err, &rpc) && len(rpc.Data) > 0 {
			var d struct {
				Supported []string `json:"supported"`
			}
			if json.Unmarshal(rpc.Data, &d) == nil {
				if v := highestCommon(d.Supported, false); v != "" && v != version {
					return s.initialize(ctx, v, false)
				}
				// A modern-only server whose answer to the probe came too
				// late, such as one still starting up.
				if v := highestCommon(d.Supported, true); v != "" && s.opts.ProtocolVersion == "" {
					if err := s.discover(ctx, v, false, nil); err == nil {
						return nil
					}
				}
			}
		}
		return fmt.Errorf("initialize: %w", err)
	}
	r, err := decodeInitializeResult(res)
	if err != nil {
		return fmt.Errorf("initialize: malformed result: %w", err)
	}
	if !isSupported(r.protocolVersion) || isModern(r.protocolVersion) {
		return fmt.Errorf("initialize: the server chose protocol version %s, which this client does not speak", s.quote(r.protocolVersion))
	}
	st := &negotiated{
		version:      r.protocolVersion,
		declared:     version,
		legacy:       true,
		serverInfo:   r.serverInfo,
		caps:         parseCapabilities(r.capabilities),
		instructions: r.instructions,
	}
	s.state.Store(st)
	if err := s.notify(ctx, st, "notifications/initialized", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return fmt.Errorf("sending notifications/initialized: %w", s.writeError(err))
	}
	if hn, ok := s.conn.(HandshakeNotifier); ok {
		hn.HandshakeDone(st.version)
	}
	return nil
}

// rehandshake runs the handshake again after the server expired the
// session, unless another request already did since generation gen.
func (s *Session) rehandshake(ctx context.Context, gen uint64) error {
	s.hsMu.Lock()
	defer s.hsMu.Unlock()
	if s.hsGen.Load() != gen {
		return nil
	}
	if err := s.initialize(ctx, s.state.Load().version, false); err != nil {
		return err
	}
	s.hsGen.Add(1)
	return nil
}
