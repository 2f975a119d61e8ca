package runtime

import "github.com/mcpgen/mcpgen/internal/redact"

// scrub replaces the connection's credentials in str (see
// ConnCapabilities.ScrubSecrets), so that a server that echoes a credential
// back, as it is or JSON-escaped, does not get it into a log or an error
// string.
func (s *Session) scrub(str string) string {
	if s.cc.ScrubSecrets == nil {
		return str
	}
	return s.cc.ScrubSecrets(str)
}

// quote returns text the server sent (a name, a URI, an id, a message) as
// an error string quotes it: with the connection's credentials scrubbed,
// then escaped and cut by redact.Quote. Every error the Session builds
// quotes the server's text through it, or through redact.Quote where it
// does not know the connection.
func (s *Session) quote(str string) string {
	return redact.Quote(s.scrub(str))
}

// quoteScrubbed quotes str as Session.quote does, for a typed error that
// keeps the server's text whole in its fields and scrubs it, with scrub
// (nil for none), only when it is shown.
func quoteScrubbed(scrub func(string) string, str string) string {
	if scrub != nil {
		str = scrub(str)
	}
	return redact.Quote(str)
}
