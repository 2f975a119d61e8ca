package runtime

import (
	"encoding/json"
	"log/slog"
	"time"
)

// Protocol versions a Session speaks.
const (
	// LatestProtocolVersion is the modern version a Session asks for first.
	LatestProtocolVersion = "2026-07-28"
	// LatestLegacyProtocolVersion is the version a Session asks for in the
	// initialize handshake when it falls back to the legacy era.
	LatestLegacyProtocolVersion = "2025-11-25"
)

// supportedVersions lists every version a Session speaks, newest first.
var supportedVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// SupportedProtocolVersions returns the protocol versions a Session speaks,
// newest first.
func SupportedProtocolVersions() []string {
	return append([]string(nil), supportedVersions...)
}

// isModern reports whether v belongs to the handshake-free era.
func isModern(v string) bool { return v >= LatestProtocolVersion }

func isSupported(v string) bool {
	for _, s := range supportedVersions {
		if s == v {
			return true
		}
	}
	return false
}

// Defaults for Options.
const (
	DefaultCallTimeout = 60 * time.Second
	// DefaultMaxTools is the default of Options.MaxTools.
	DefaultMaxTools = 10000
	// DefaultProbeTimeout is the default of Options.ProbeTimeout. It is long
	// because a stdio server started through go run, docker run, npx -y or
	// uvx may take many seconds before it reads its first message.
	DefaultProbeTimeout = 30 * time.Second
)

// Options configure a Session. The zero value is ready to use.
type Options struct {
	// ClientName and ClientVersion are sent as the client's implementation
	// info; they default to "mcpgen" and "dev".
	ClientName    string
	ClientVersion string

	// ProtocolVersion pins the protocol version. Empty means: ask for
	// LatestProtocolVersion and fall back to the initialize handshake for an
	// older server. A legacy version (2025-11-25 and older) skips the probe
	// and runs the handshake asking for that version; a server that answers
	// with another legacy version, as the handshake lets it, is taken at
	// its word (Session.ProtocolVersion says which). A modern version
	// refuses to fall back. Over Streamable HTTP a modern version is taken as the
	// server's, as a remembered era is (see Connect): the first listings
	// go out at once and the probe alongside them, so that a server that
	// does not speak it fails the first request rather than Connect. Over
	// stdio, and any Conn that declares ConnCapabilities.DeliversInOrder,
	// the probe goes out at once and Connect returns without waiting for
	// its answer: the first listings follow the probe on the pipe, and a
	// server that does not speak the version fails the first request
	// other than a listing, or the listing it refuses. The Session then
	// ends, with the probe's error as its Err, and the listings still
	// waiting for their answers fail with that error too.
	ProtocolVersion string

	// ProbeTimeout bounds the wait for the answer to the server/discover
	// probe; DefaultProbeTimeout when zero, no bound (but the context's)
	// when negative. A probe that goes out alongside the first requests
	// (see Connect) is not bounded by the context of Connect: when
	// negative, only by Close, and each request waiting for its answer by
	// its own context. The era comes from the answer, however late: a
	// result means a modern server, an error (method not found, say) a
	// legacy one. Only a server silent for all of ProbeTimeout is judged
	// by the clock: over stdio and HTTP+SSE, where a legacy server may
	// ignore requests before initialize, it is taken for a legacy one
	// (unless ProtocolVersion pins a modern version); over Streamable
	// HTTP, where every request gets an HTTP status, Connect fails with a
	// *ProbeTimeoutError.
	ProbeTimeout time.Duration

	// CallTimeout bounds every request whose context has no deadline;
	// DefaultCallTimeout when zero, no bound when negative. For a call
	// that asked for progress (WithProgress), each notification restarts
	// the timeout, up to ten timeouts in all.
	CallTimeout time.Duration

	// MaxTools bounds the tools ListTools accepts from one server, across
	// all pages; DefaultMaxTools when zero. A longer list is an error. It
	// bounds the prompts, resource templates and skills of the other
	// listings alike. Whatever the count, the pages of one listing may
	// hold 64 MiB in all; more is an error too.
	MaxTools int

	// TaskTimeout bounds the wait for a tool call the server runs as a
	// task, when the call's context has no deadline; DefaultTaskTimeout
	// when zero, no bound when negative. When it passes, the task is
	// cancelled (tasks/cancel).
	TaskTimeout time.Duration

	// Logger receives the Session's own log records, the server's log
	// notifications and, with LogTraffic, every message. Nil discards them.
	Logger *slog.Logger
	// LogTraffic logs every message in and out at debug level, with the
	// values of secret-looking members ("token", "password", ...) redacted.
	LogTraffic bool
	// CallLogLevel is the level of the record logged for each tool call
	// (debug when zero, as slog.LevelDebug is not the zero Level; use
	// ToolLogLevels to change a single tool).
	CallLogLevel *slog.Level
	// ToolLogLevels overrides the level of the call records and traffic of
	// single tools, so that a polled tool does not flood the log: set it
	// below slog.LevelDebug to silence one.
	ToolLogLevels map[string]slog.Level

	// OnToolsChanged is called, from a goroutine of its own and never
	// concurrently with itself, when the server reports that its tool list
	// changed. It may call the Session (ListTools, typically) but not
	// Close. In the 2026-07-28 era the Session opens a subscriptions/listen
	// stream for it when the server supports it, and Connect returns once
	// the server has acknowledged it (or ended it, or 10 s have passed,
	// which it logs as a warning), since such a server sends a change only
	// to the subscriptions it has taken: one made right after Connect would
	// otherwise be lost.
	OnToolsChanged func()

	// DisableToolsCache makes every ListTools ask the server. By default,
	// in the 2026-07-28 era, ListTools serves a listing again while the
	// ttlMs of its result lasts (see ListTools).
	DisableToolsCache bool

	// SnapshotHash is the ToolsHash of the tool list a generated package
	// was made from (its SnapshotHash constant). When set, Connect lists the
	// server's tools and logs a warning, once per Session, if they differ:
	// to Logger, or to slog.Default() when Logger is nil (only this warning
	// does so).
	SnapshotHash string
	// FailOnDrift turns that warning into a *DriftError from Connect and
	// ListTools.
	FailOnDrift bool

	// Elicitation, Sampling and Roots answer the server's requests for
	// user input, for a completion from the client's model and for the
	// client's roots: elicitation/create, sampling/createMessage and
	// roots/list requests in the legacy era, and the input requests of a
	// 2026-07-28 result whose resultType is input_required, after which
	// the call is retried. The client declares a capability only when its
	// handler is set; without one, a legacy request gets -32601 and an
	// input request fails the call. Handlers may run concurrently.
	Elicitation ElicitationHandler
	Sampling    SamplingHandler
	Roots       RootsHandler
	// MaxConcurrentSampling bounds the runs of the Sampling handler at
	// once, so that a server cannot fan out model calls at the client's
	// expense; DefaultMaxConcurrentSampling when zero or less. A request
	// beyond it waits for its turn, within HandlerTimeout.
	MaxConcurrentSampling int
	// OnElicitationComplete is called with the id of a URL-mode
	// elicitation that the server reports complete (2025-11-25). It must
	// return quickly and must not call the Session.
	OnElicitationComplete func(elicitationID string)
	// Middleware wraps every request the Session sends and every request
	// of the server its handlers answer (see Middleware); the first is
	// outermost. Package runtime/otelmcp provides tracing and metrics as
	// Middleware.
	Middleware []Middleware
	// ToolRunHook observes the tool calls a model asks for, when the
	// Session is the Caller of a provider's toolset (see ToolRunHook).
	ToolRunHook ToolRunHook

	// HandlerTimeout bounds each run of those handlers;
	// DefaultHandlerTimeout when zero, no bound (but the call's context)
	// when negative. An elicitation that runs out of time is answered
	// with cancel.
	HandlerTimeout time.Duration
}

// Implementation names an MCP client or server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Title   string `json:"title,omitempty"`
}

// ServerCapabilities are the capabilities a server declared.
type ServerCapabilities struct {
	// Tools reports the tools capability; ToolsListChanged its listChanged
	// flag.
	Tools            bool
	ToolsListChanged bool
	Prompts          bool
	Resources        bool
	Logging          bool
	Completions      bool
	// ToolTasks reports that the server runs tools/call as tasks: the
	// 2025-11-25 tasks.requests.tools.call capability, or the 2026-07-28
	// extension io.modelcontextprotocol/tasks.
	ToolTasks bool
	// Raw is the capabilities object as the server sent it.
	Raw json.RawMessage
}
