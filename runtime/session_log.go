package runtime

import (
	"context"
	"log/slog"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// callLevel returns the level of tool's call records and whether the logger
// takes that level.
func (s *Session) callLevel(ctx context.Context, tool string) (slog.Level, bool) {
	level := slog.LevelDebug
	if s.opts.CallLogLevel != nil {
		level = *s.opts.CallLogLevel
	}
	if l, ok := s.opts.ToolLogLevels[tool]; ok {
		level = l
	}
	return level, s.log.Enabled(ctx, level)
}

// trafficLevel returns the level of the traffic records about tool.
func (s *Session) trafficLevel(tool string) slog.Level {
	if l, ok := s.opts.ToolLogLevels[tool]; ok && l < slog.LevelDebug {
		return l
	}
	return slog.LevelDebug
}

// traceOut logs an outgoing message.
func (s *Session) traceOut(m *OutMessage, tool string) {
	level := s.trafficLevel(tool)
	if !s.log.Enabled(context.Background(), level) {
		return
	}
	s.log.LogAttrs(context.Background(), level, "mcp send", slog.String("message", s.scrub(redactJSON(m.Data))))
}

// traceIn logs an incoming message.
func (s *Session) traceIn(data []byte, tool string) {
	level := s.trafficLevel(tool)
	if !s.log.Enabled(context.Background(), level) {
		return
	}
	s.log.LogAttrs(context.Background(), level, "mcp recv", slog.String("message", s.scrub(redactJSON(data))))
}

// redactJSON returns the JSON text data as a string in which the values of
// members whose names suggest secrets ("token", "password", "apiKey",
// "authorization", ...) are replaced by "[REDACTED]". Text that is not valid
// JSON is cut to its first bytes.
func redactJSON(data []byte) string {
	out, ok := jsonrpc.Redact(data, redact.SecretName)
	if !ok {
		return snippet(out) + " (malformed JSON)"
	}
	return string(out)
}

// serverLog forwards a notifications/message from the server to the logger,
// with the connection's credentials scrubbed from its data and logger name.
func (s *Session) serverLog(params []byte) {
	var level, logger string
	var data []byte
	_ = jsonrpc.ObjectEach(params, func(key []byte, escaped bool, v []byte) error {
		switch {
		case jsonrpc.KeyIs(key, escaped, "level"):
			level, _ = jsonrpc.String(v)
		case jsonrpc.KeyIs(key, escaped, "logger"):
			logger, _ = jsonrpc.String(v)
		case jsonrpc.KeyIs(key, escaped, "data"):
			data = v
		}
		return nil
	})
	l := serverLogLevel(level)
	if !s.log.Enabled(context.Background(), l) {
		return
	}
	msg := redactJSON(data)
	if str, err := jsonrpc.String(data); err == nil {
		msg = str
	}
	attrs := []slog.Attr{slog.String("data", s.scrub(msg))}
	if logger != "" {
		// The logger's name is server text like the data: scrubbed, and
		// quoted and cut when long or not printable.
		attrs = append(attrs, slog.String("logger", plainOrQuoted(s.scrub(logger))))
	}
	s.log.LogAttrs(context.Background(), l, "server log", attrs...)
}

// serverLogLevel maps an MCP logging level onto slog's levels.
func serverLogLevel(level string) slog.Level {
	switch level {
	case "debug":
		return slog.LevelDebug
	case "info", "notice":
		return slog.LevelInfo
	case "warning":
		return slog.LevelWarn
	case "error", "critical", "alert", "emergency":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// discardLogger is the logger of Sessions and transports given none; one
// for the process, so that a connection makes none.
var discardLogger = slog.New(slog.DiscardHandler)
