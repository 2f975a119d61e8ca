package cli

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"strings"
)

// redacted replaces a credential found where it does not belong.
const redacted = "[REDACTED]"

// secretValues returns the credentials the flags send to the server: the
// bearer token, the client secret, the values of --header, and the password
// and query values of the URL. Short values (under 8 bytes) are left out: they would match
// ordinary text.
func (f *serverFlags) secretValues() []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= 8 {
			out = append(out, v)
		}
	}
	if f.bearerEnv != "" {
		add(os.Getenv(f.bearerEnv))
	}
	add(f.auth.secret())
	for _, vs := range f.headers.header {
		for _, v := range vs {
			add(v)
			// "Bearer <token>" and the like: the token alone too.
			if _, rest, ok := strings.Cut(v, " "); ok {
				add(rest)
			}
		}
	}
	for _, raw := range []string{f.url, f.sse} {
		u, err := url.Parse(raw)
		if raw == "" || err != nil {
			continue
		}
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
	}
	return out
}

// scrubSecrets replaces every secret in the JSON text data, as it is and as
// JSON escapes it, by [REDACTED]. It returns the result and whether it
// replaced anything. A server that echoes the credentials it receives into
// its tool list must not get them written into a snapshot or generated
// code.
func scrubSecrets(data []byte, secrets []string) ([]byte, bool) {
	found := false
	for _, s := range secrets {
		enc, _ := json.Marshal(s)
		for _, form := range [][]byte{[]byte(s), enc[1 : len(enc)-1]} {
			if bytes.Contains(data, form) {
				data = bytes.ReplaceAll(data, form, []byte(redacted))
				found = true
			}
		}
	}
	return data, found
}
