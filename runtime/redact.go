package runtime

// secretScrubber is implemented by connections that hold credentials: the
// HTTP transports, with their bearer token, header values and URL secrets.
// The Session passes its traffic log, the server's log messages, the
// server's error messages and the errors of its tool call records through
// scrubSecrets, so that a server that echoes a credential back, as it is or
// JSON-escaped, does not get it into a log or an error string.
type secretScrubber interface {
	scrubSecrets(s string) string
}

func (c *streamableConn) scrubSecrets(s string) string { return c.h.scrub(s) }

func (c *sseConn) scrubSecrets(s string) string { return c.h.scrub(s) }

func (c *autoConn) scrubSecrets(s string) string { return c.h.scrub(s) }

// scrub replaces the connection's credentials in str.
func (s *Session) scrub(str string) string {
	if s.scrubber == nil {
		return str
	}
	return s.scrubber.scrubSecrets(str)
}
