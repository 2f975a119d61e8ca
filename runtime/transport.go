package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpgen/mcpgen/internal/redact"
)

// A Transport opens connections to one MCP server.
type Transport interface {
	// Connect starts the server or reaches it, and returns a connection ready
	// to carry messages. It does not run any MCP handshake: the Session does.
	Connect(ctx context.Context) (Conn, error)
}

// A Conn carries JSON-RPC messages between the Session and one server.
//
// Write may be called from many goroutines at once; Read is called from one
// goroutine only. Close may be called at any time, more than once, and makes a
// blocked Read return.
type Conn interface {
	// Write sends one message. ctx bounds the request's whole life on
	// transports where a request owns its response stream (Streamable HTTP):
	// cancelling it abandons that stream.
	Write(ctx context.Context, m *OutMessage) error
	// Read returns the next message from the server, one JSON-RPC message or
	// batch per call. The returned slice is owned by the caller.
	Read(ctx context.Context) ([]byte, error)
	// Close ends the connection and releases everything it holds, such as a
	// child process or an HTTP session.
	Close() error
}

// contextCloser is implemented by connections whose Close waits, such as a
// stdio connection waiting for its server to exit: closeContext is Close
// with those waits ending when ctx does.
type contextCloser interface {
	closeContext(ctx context.Context) error
}

// OutMessage is one encoded JSON-RPC message on its way to the server, with
// the facts a transport needs to frame it without decoding it again.
type OutMessage struct {
	// Data is the compact JSON encoding of the message, without a newline.
	Data []byte
	// Method is the method of a request or notification; empty for a
	// response to a server request.
	Method string
	// ID is the id of a request or response as JSON text (1 or "a"); empty
	// for a notification.
	ID string
	// Name is the tool, prompt or resource a request is about, or the task
	// of a tasks/* request (the value of the Mcp-Name header); empty when
	// there is none.
	Name string
	// ProtocolVersion is the protocol version the message is sent under, or
	// empty before a legacy handshake has negotiated one.
	ProtocolVersion string
	// ParamHeaders are the Mcp-Param-* headers of a 2026-07-28 tools/call
	// sent over Streamable HTTP: the arguments the tool's schema annotates
	// with x-mcp-header.
	ParamHeaders []ParamHeader
}

// IsRequest reports whether m is a request (it has both a method and an id).
func (m *OutMessage) IsRequest() bool { return m.Method != "" && m.ID != "" }

// HandshakeNotifier is implemented by connections that act once a legacy
// initialize handshake is complete, such as a Streamable HTTP connection that
// then opens its GET stream. The Session calls HandshakeDone after it has
// sent notifications/initialized.
type HandshakeNotifier interface {
	HandshakeDone(protocolVersion string)
}

// ErrSessionExpired is returned by a Streamable HTTP connection when the
// server answers 404 to a request that carried a session id, and for every
// request but initialize written after that until an initialize answer
// gives the next session, none of which is sent. The Session then runs the
// handshake again, unless another request already did, and resends the
// request.
var ErrSessionExpired = errors.New("mcp session expired")

// ErrClosed is returned by operations on a closed Session or Conn.
var ErrClosed = errors.New("connection closed")

// HTTPError is an HTTP response that carried no JSON-RPC message, such as a
// plain-text 400 or a 405. Body holds at most the first few kilobytes, with
// the connection's credentials scrubbed; Error quotes it on one line,
// escaped and cut, as redact.Quote does.
type HTTPError struct {
	Method     string // HTTP method
	URL        string // without credentials or query
	StatusCode int
	Body       []byte
}

func (e *HTTPError) Error() string {
	if len(e.Body) == 0 {
		return fmt.Sprintf("%s %s: HTTP %d", e.Method, e.URL, e.StatusCode)
	}
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.URL, e.StatusCode, redact.Quote(oneLine(string(e.Body))))
}

// ServerExitedError reports a stdio server that exited or closed its output.
// It carries the exit status and the tail of what the server wrote to stderr.
type ServerExitedError struct {
	Command    string // program name, without arguments
	ExitStatus string // as os.ProcessState.String reports it, e.g. "exit status 1"
	// StderrTail holds the last lines the server wrote to its standard
	// error (at most 20 lines and 4 KiB), as written; Error quotes them.
	StderrTail string
}

func (e *ServerExitedError) Error() string {
	msg := fmt.Sprintf("server %s exited", e.Command)
	if e.ExitStatus != "" {
		msg += " (" + e.ExitStatus + ")"
	}
	if e.StderrTail != "" {
		// The tail is bounded already (stderrTailBytes); quoted, its
		// escapes and line breaks act on nothing where the error is
		// printed or logged, and the last lines, a crash's cause, stay.
		msg += "; stderr: " + strconv.Quote(e.StderrTail)
	}
	return msg
}

// MessageTooLargeError reports an incoming line or event over the size limit.
// Prefix holds the first bytes of the message, from which (or from Suffix) the
// Session reads the id of the request it answers, so that only that request
// fails.
type MessageTooLargeError struct {
	Limit  int
	Prefix []byte
	// Suffix holds the last bytes of the message, when the transport kept
	// them: many servers write the id last.
	Suffix []byte
}

func (e *MessageTooLargeError) Error() string {
	return fmt.Sprintf("incoming message exceeds the %d-byte limit", e.Limit)
}

// DefaultMaxMessageSize is the default limit on one incoming line or SSE
// event: 16 MiB.
const DefaultMaxMessageSize = 16 << 20
