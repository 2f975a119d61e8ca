package cli

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/internal/redact"
)

// redacted replaces a credential found where it does not belong.
const redacted = redact.Mark

// secrets are the credentials sent to the servers a command talks to. The
// output streams replace them in everything mcpgen prints, and captures in
// the snapshots they write; see package redact for how they are found.
type secrets struct {
	mu   sync.Mutex
	list []string
	set  atomic.Pointer[redact.Set]
}

// add adds values to the credentials to redact.
func (s *secrets) add(values []string) {
	if len(values) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, values...)
	s.set.Store(redact.New(s.list...))
}

// redact returns b with every credential replaced by [REDACTED].
func (s *secrets) redact(b []byte) []byte {
	out, _ := s.redactFound(b)
	return out
}

// redactFound is redact, also reporting whether it replaced anything.
func (s *secrets) redactFound(b []byte) ([]byte, bool) {
	if s == nil {
		return b, false
	}
	return s.set.Load().Bytes(b)
}

// addSecrets adds the credentials the flags send to the server to e's
// secrets, and warns about those too short to be redacted.
func (f *serverFlags) addSecrets(e *env) {
	values, short := f.secretValues()
	e.secrets.add(values)
	for _, what := range short {
		fmt.Fprintf(e.stderr, "mcpgen: warning: %s is shorter than %d bytes, too short to be told apart from other text: it is not redacted from the output\n", what, redact.MinLen)
	}
}

// secretValues returns the credentials the flags send to the server: the
// bearer token, the client secret, the values of --header (for a header whose name looks
// secret, such as Authorization, the credential after "Bearer " or "Basic "
// too, decoded for Basic), and the password (which is sent as Basic
// authorization) and query values of the URL, and the secrets of the server
// command that commandWord finds. It also returns a description
// of each credential shorter than redact.MinLen: the token, the password,
// and values of headers and query parameters whose names look secret. Other
// short values are left out without a word: they are seldom secrets.
func (f *serverFlags) secretValues() (values, short []string) {
	add := func(what string, secret bool, forms ...string) {
		warned := false
		for _, v := range forms {
			v = strings.TrimSpace(v)
			switch {
			case v == "":
			case !redact.TooShort(v):
				values = append(values, v)
			case secret && !warned:
				short = append(short, what)
				warned = true
			}
		}
	}
	if f.bearerEnv != "" {
		add("the bearer token from $"+f.bearerEnv, true, os.Getenv(f.bearerEnv))
	}
	add("the client secret", true, f.auth.secret())
	for name, vs := range f.headers.header {
		secret := redact.SecretName(name)
		for _, v := range vs {
			forms := []string{v}
			if secret {
				forms = redact.Forms(v)
			}
			add("the value of header "+name, secret, forms...)
		}
	}
	for _, raw := range []string{f.url, f.sse} {
		u, err := url.Parse(raw)
		if raw == "" || err != nil {
			continue
		}
		if p, ok := u.User.Password(); ok {
			add("the password in the URL", true, redact.BasicForms(u.User.Username(), p)...)
		}
		for k, vs := range u.Query() {
			for _, v := range vs {
				add("the value of URL parameter "+k, redact.SecretName(k), v)
			}
		}
	}
	// The secrets in a stdio server's command line, which source leaves
	// out, are not sent over the wire, but a server that fails may echo
	// its arguments to its standard error, which errors quote.
	p := newPathRewriter()
	secretNext := false
	for _, a := range f.command {
		var secrets []string
		_, secrets, secretNext = commandWord(a, secretNext, p)
		add("a secret in the server command", false, secrets...)
	}
	return values, short
}
