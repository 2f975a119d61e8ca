package runtime

import (
	"encoding/json"
	"strings"
)

// secretScrubber is implemented by connections that hold credentials: the
// HTTP transports, with their bearer token, header values and URL secrets.
// The Session passes its traffic log, the server's log messages and the
// server's error messages through scrubSecrets, so that a server that echoes
// a credential back does not get it into a log or an error string.
type secretScrubber interface {
	scrubSecrets(s string) string
}

func (c *streamableConn) scrubSecrets(s string) string { return scrubAll(s, c.h.secrets) }

func (c *sseConn) scrubSecrets(s string) string { return scrubAll(s, c.h.secrets) }

func (c *autoConn) scrubSecrets(s string) string { return scrubAll(s, c.h.secrets) }

// scrubAll replaces each secret in s, as it is and as JSON escapes it inside
// a string, by [REDACTED].
func scrubAll(s string, secrets []string) string {
	for _, secret := range secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, "[REDACTED]")
		}
		enc, err := json.Marshal(secret)
		if err != nil || len(enc) < 2 {
			continue
		}
		if esc := string(enc[1 : len(enc)-1]); esc != secret && strings.Contains(s, esc) {
			s = strings.ReplaceAll(s, esc, "[REDACTED]")
		}
	}
	return s
}

// scrub replaces the connection's credentials in str.
func (s *Session) scrub(str string) string {
	if s.scrubber == nil {
		return str
	}
	return s.scrubber.scrubSecrets(str)
}
