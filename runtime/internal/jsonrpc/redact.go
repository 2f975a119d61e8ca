package jsonrpc

// Redacted replaces the value of a member whose name is secret.
const Redacted = `"[REDACTED]"`

// Redact returns a copy of the JSON text data in which the value of every
// object member whose name isSecret reports true, at any depth, is replaced
// by "[REDACTED]". Text that is not valid JSON is returned whole, since it
// cannot be read for member names; callers log such text only truncated.
func Redact(data []byte, isSecret func(name string) bool) ([]byte, bool) {
	out := make([]byte, 0, len(data))
	out, err := redactValue(out, data, isSecret, 0)
	if err != nil {
		return data, false
	}
	return out, true
}

func redactValue(out, v []byte, isSecret func(string) bool, depth int) ([]byte, error) {
	v = TrimSpace(v)
	if len(v) == 0 {
		return out, errSyntax
	}
	if depth > 64 {
		return append(out, v...), nil
	}
	switch v[0] {
	case '{':
		out = append(out, '{')
		first := true
		err := ObjectEach(v, func(key []byte, escaped bool, val []byte) error {
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(out, '"')
			out = append(out, key...)
			out = append(out, '"', ':')
			name := string(key)
			if escaped {
				if s, err := unquoteContent(key); err == nil {
					name = s
				}
			}
			if isSecret(name) && !IsNull(val) {
				out = append(out, Redacted...)
				return nil
			}
			var err error
			out, err = redactValue(out, val, isSecret, depth+1)
			return err
		})
		return append(out, '}'), err
	case '[':
		out = append(out, '[')
		first := true
		err := ArrayEach(v, func(val []byte) error {
			if !first {
				out = append(out, ',')
			}
			first = false
			var err error
			out, err = redactValue(out, val, isSecret, depth+1)
			return err
		})
		return append(out, ']'), err
	}
	end, err := SkipValue(v, 0)
	if err != nil || end != len(v) {
		return out, errSyntax
	}
	return append(out, v...), nil
}
