package runtime

import (
	"context"
	"time"
)

// How a Session uses its Conn, for those who write one:
//
//   - OutMessage: Method and ID are set on requests, Method alone on
//     notifications, ID alone on responses to server requests. Name is the
//     tool of a tools/call. ProtocolVersion is set on every message of the
//     2026-07-28 era, and on every message after initialize in the legacy
//     era (not on initialize itself).
//   - Data is only read during Write, unless the Conn declares
//     ReleasesData; a resend after ErrSessionExpired passes the same
//     message again.
//   - The context given to Write for a request ends when the request does:
//     on its response, its cancellation or its timeout.
//   - A Write error is the request's error, except ErrSessionExpired, which
//     makes the Session run the handshake again and resend once, and an
//     *HTTPError or *RPCError on the server/discover probe, which means a
//     legacy server.
//   - Read may return a *MessageTooLargeError and keep working; any other
//     error ends the Session.
//   - HandshakeDone (see HandshakeNotifier) is called after
//     notifications/initialized is sent.
//   - Anything else the Session may rely on, the Conn declares in its
//     ConnCapabilities.

// ConnCapabilities declare what a Conn does beyond the Conn interface, so
// that the Session can rely on it. A Conn declares them by implementing
// CapableConn; this package's transports do, and a Conn written elsewhere
// that declares the same gets the same behaviour from the Session. The zero
// value declares nothing, which is always correct, if slower: each member
// is a promise the Session acts on, so declare only what holds.
type ConnCapabilities struct {
	// WriteIgnoresContext promises that Write does not use its context once
	// it has returned, so that the Session gives it the caller's context
	// instead of one made for the request.
	WriteIgnoresContext bool

	// ReleasesData promises that Write is done with OutMessage.Data when it
	// returns, so that the Session reuses the buffer. A Conn that may
	// still send a request body after Write returns must not declare it.
	ReleasesData bool

	// CancelsByClosing promises that, in the 2026-07-28 era, ending the
	// context given to Write abandons the request's response stream and so
	// cancels the request, as Streamable HTTP does. The Session then sends
	// no notifications/cancelled in that era; in the legacy era it always
	// does.
	CancelsByClosing bool

	// SendsParamHeaders promises that the Conn sends OutMessage.ParamHeaders
	// as Mcp-Param-* HTTP headers. The Session then fills them in for a
	// 2026-07-28 tools/call, listing the tools first when it does not yet
	// know which arguments a tool's schema annotates.
	SendsParamHeaders bool

	// AnswersEveryRequest promises that the server answers every request,
	// as an HTTP status does on Streamable HTTP: a legacy server refuses
	// the server/discover probe at once. A probe left unanswered for
	// Options.ProbeTimeout then fails Connect with a *ProbeTimeoutError
	// instead of being taken for a legacy server.
	AnswersEveryRequest bool

	// DeliversInOrder promises that the server reads the messages in the
	// order their Writes returned, as over a stdio pipe. A Session pinned
	// to a modern protocol version (Options.ProtocolVersion) then writes
	// the server/discover probe first and lets its first listings follow
	// at once, instead of waiting for the probe's answer before them.
	DeliversInOrder bool

	// WriteWithin, when set, is Write bounded by d as well as by ctx; when
	// d runs out the error matches ErrWriteTimeout. The Session uses it
	// instead of Write for a request with a timeout, which then needs no
	// timer of the Session's own to end a Write that blocks.
	WriteWithin func(ctx context.Context, m *OutMessage, d time.Duration) error

	// SetReadDeadline, when set, bounds the current and later Reads: once t
	// has passed, Read returns an error matching os.ErrDeadlineExceeded
	// without losing any part of a message, and the zero time removes the
	// bound. The Session then reads only while a call waits for its
	// response, on the caller's goroutine, rather than on a goroutine of
	// its own. It is used only if SetReadDeadline(time.Time{}) succeeds
	// when the Session starts.
	SetReadDeadline func(t time.Time) error

	// ScrubSecrets, when set, removes the Conn's credentials (a bearer
	// token, header values, secrets in the URL) from s, as they are or
	// JSON-escaped. The Session passes its traffic log, the server's log
	// messages and error messages and the errors of its tool call records
	// through it.
	ScrubSecrets func(s string) string

	// AuthGeneration, when set, returns a number that changes whenever the
	// Conn's credentials do. A tools/list result the server marks private
	// is served from the cache only while it is unchanged.
	AuthGeneration func() uint64

	// CancelRequest, when set, ends the request whose OutMessage.ID is id:
	// its Write, while the request is being sent, and the reading of its
	// response, as Streamable HTTP does by closing the request's stream. A
	// request whose response has already arrived, or an unknown id, must
	// be left alone. The Session then gives Write the caller's context as
	// it is, without a context of its own per call, and calls
	// CancelRequest when the call ends, when its timeout passes, and when
	// Write outlives the timeout.
	CancelRequest func(id string)
}

// CapableConn is a Conn that declares its ConnCapabilities. The Session
// calls ConnCapabilities once, when it starts.
type CapableConn interface {
	Conn
	ConnCapabilities() ConnCapabilities
}

// ErrWriteTimeout is matched by the error of a ConnCapabilities.WriteWithin
// whose time ran out.
var ErrWriteTimeout error = writeTimeout{}

// writeTimeout is ErrWriteTimeout's type. Its Is makes ErrWriteTimeout match
// context.DeadlineExceeded, as the Session's other timeouts do, so that a
// call whose timeout runs out while it is being sent reads as a timeout
// however the error reaches the caller.
type writeTimeout struct{}

func (writeTimeout) Error() string { return "the request's timeout ran out while sending it" }

func (writeTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// connCapabilities returns what conn declares.
func connCapabilities(conn Conn) ConnCapabilities {
	if c, ok := conn.(CapableConn); ok {
		return c.ConnCapabilities()
	}
	return ConnCapabilities{}
}
