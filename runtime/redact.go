package runtime

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
