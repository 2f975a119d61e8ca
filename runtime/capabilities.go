package runtime

import "time"

// How a Session uses its Conn, for those who write one:
//
//   - OutMessage: Method and ID are set on requests, Method alone on
//     notifications, ID alone on responses to server requests. Name is the
//     tool of a tools/call. ProtocolVersion is set on every message of the
//     2026-07-28 era, and on every message after initialize in the legacy
//     era (not on initialize itself).
//   - Data is only read during Write, unless the Conn is one of this
//     package's that say otherwise; a resend after ErrSessionExpired passes
//     the same message again.
//   - The context given to Write for a request ends when the request does:
//     on its response, its cancellation or its timeout.
//   - A Write error is the request's error, except ErrSessionExpired, which
//     makes the Session run the handshake again and resend once, and an
//     *HTTPError or *RPCError on the server/discover probe, which means a
//     legacy server.
//   - Read may return a *MessageTooLargeError and keep working; any other
//     error ends the Session.
//   - HandshakeDone is called after notifications/initialized is sent.

// CancelsByClosing is implemented by connections on which abandoning a
// request's response stream cancels the request, as Streamable HTTP does in
// the 2026-07-28 era. When CancelsByClosing reports true, the Session does
// not send notifications/cancelled in that era: cancelling the context it
// gave to Write is the cancellation. In the legacy era the Session always
// sends notifications/cancelled.
type CancelsByClosing interface {
	CancelsByClosing() bool
}

// directWriter is implemented by this package's connections whose Write
// ignores its context after returning.
type directWriter interface{ writeIgnoresContext() }

// dataReleaser is implemented by this package's connections that do not
// use OutMessage.Data once Write has returned.
type dataReleaser interface{ releasesData() }

// paramHeaderSender is implemented by this package's connections that send
// OutMessage.ParamHeaders.
type paramHeaderSender interface{ sendsParamHeaders() }

// postAnswerer is implemented by this package's Streamable HTTP
// connections, on which the server answers every request with an HTTP
// status: a legacy server refuses server/discover at once rather than
// ignoring it.
type postAnswerer interface{ answersEveryPOST() }

// deadlineReader is implemented by this package's connections whose Read
// returns an error matching os.ErrDeadlineExceeded once the time set with
// setReadDeadline has passed, without losing any part of a message.
type deadlineReader interface{ setReadDeadline(t time.Time) error }
