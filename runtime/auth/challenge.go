package auth

import (
	"fmt"
	"net/http"
	"strings"
)

// A Challenge is one challenge of a WWW-Authenticate header (RFC 9110,
// section 11.6.1), such as
//
//	Bearer resource_metadata="https://example.com/.well-known/oauth-protected-resource", scope="files:read"
type Challenge struct {
	// Scheme is the authentication scheme, in lower case: "bearer", "dpop".
	Scheme string
	// Params holds the auth-params by lower-case name, unquoted.
	Params map[string]string
	// Token68 is the scheme's token68 form, when it has one instead of
	// parameters.
	Token68 string
}

// Challenges returns the challenges of every WWW-Authenticate header of h.
// Challenges it cannot parse are left out; the error, if any, describes the
// first of them.
func Challenges(h http.Header) ([]Challenge, error) {
	var all []Challenge
	var first error
	for _, v := range h.Values("Www-Authenticate") {
		cs, err := ParseChallenges(v)
		all = append(all, cs...)
		if err != nil && first == nil {
			first = err
		}
	}
	return all, first
}

// Find returns the first challenge of scheme (compared case-insensitively).
func Find(cs []Challenge, scheme string) (Challenge, bool) {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, scheme) {
			return c, true
		}
	}
	return Challenge{}, false
}

// ParseChallenges parses the value of one WWW-Authenticate header, which may
// hold several challenges separated by commas. It returns the challenges
// before the first syntax error, and the error.
func ParseChallenges(s string) ([]Challenge, error) {
	p := &challengeParser{s: s}
	var out []Challenge
	for {
		p.skipListSeparators()
		if p.done() {
			return out, nil
		}
		scheme := p.token()
		if scheme == "" {
			return out, p.errorf("expected an authentication scheme")
		}
		c := Challenge{Scheme: strings.ToLower(scheme), Params: map[string]string{}}
		p.skipSpace()
		// token68, or a list of auth-params, or nothing.
		if t, ok := p.token68(); ok {
			c.Token68 = t
			out = append(out, c)
			continue
		}
		for {
			save := p.i
			p.skipListSeparators()
			if p.done() {
				break
			}
			name := p.token()
			if name == "" {
				return out, p.errorf("expected an auth-param")
			}
			p.skipSpace()
			if !p.eat('=') {
				// The start of the next challenge.
				p.i = save
				break
			}
			p.skipSpace()
			var value string
			if p.peek() == '"' {
				v, err := p.quoted()
				if err != nil {
					return out, err
				}
				value = v
			} else {
				value = p.token()
				if value == "" {
					return out, p.errorf("expected the value of %q", name)
				}
			}
			key := strings.ToLower(name)
			if _, dup := c.Params[key]; dup {
				return out, p.errorf("auth-param %q repeated", name)
			}
			c.Params[key] = value
			p.skipSpace()
			if !p.done() && p.peek() != ',' {
				return out, p.errorf("expected a comma after auth-param %q", name)
			}
		}
		out = append(out, c)
	}
}

type challengeParser struct {
	s string
	i int
}

func (p *challengeParser) done() bool { return p.i >= len(p.s) }

func (p *challengeParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *challengeParser) eat(b byte) bool {
	if p.peek() == b && !p.done() {
		p.i++
		return true
	}
	return false
}

func (p *challengeParser) skipSpace() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *challengeParser) skipListSeparators() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

func (p *challengeParser) errorf(format string, args ...any) error {
	return fmt.Errorf("WWW-Authenticate at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

// token reads an RFC 9110 token.
func (p *challengeParser) token() string {
	start := p.i
	for !p.done() && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// token68 reads a token68 when one stands at the cursor: token68 characters,
// then "=" padding, then the end or a comma.
func (p *challengeParser) token68() (string, bool) {
	j := p.i
	for j < len(p.s) && isToken68Char(p.s[j]) {
		j++
	}
	if j == p.i {
		return "", false
	}
	k := j
	for k < len(p.s) && p.s[k] == '=' {
		k++
	}
	e := k
	for e < len(p.s) && (p.s[e] == ' ' || p.s[e] == '\t') {
		e++
	}
	if e < len(p.s) && p.s[e] != ',' {
		return "", false
	}
	t := p.s[p.i:k]
	p.i = e
	return t, true
}

// quoted reads a quoted-string and returns its unescaped value.
func (p *challengeParser) quoted() (string, error) {
	p.i++ // the opening quote
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch c {
		case '"':
			return b.String(), nil
		case '\\':
			if p.done() {
				return "", p.errorf("unterminated quoted-string")
			}
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return "", p.errorf("unterminated quoted-string")
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isToken68Char(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}
