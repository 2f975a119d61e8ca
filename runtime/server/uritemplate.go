package server

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	stduritemplate "github.com/std-uritemplate/std-uritemplate/go/v2"
)

// uriMatcher matches URIs against one RFC 6570 URI template: a regular
// expression, which Go runs in time linear in the URI, with one group for
// the text of each expression of the template, and the expressions, whose
// text is then split into the values of their variables.
type uriMatcher struct {
	re    *regexp.Regexp
	exprs []uriExpr
}

// uriExpr is one expression of a template, {op var,var*}.
type uriExpr struct {
	op   byte // 0 for a simple expression, else one of +#./;?&
	vars []uriVar
}

// uriVar is one variable of an expression.
type uriVar struct {
	name    string
	explode bool
}

// Characters a URI holds unescaped, as regular expression classes: the
// unreserved ones, and the reserved ones that + and # expressions write
// as they are.
const (
	unreservedClass = `A-Za-z0-9\-._~`
	reservedClass   = `:/?#\[\]@!$&'()*+,;=`
)

// prefix returns what the expression writes before its first value.
func (e *uriExpr) prefix() string {
	if e.op == 0 || e.op == '+' {
		return ""
	}
	return string(e.op)
}

// sep returns what the expression writes between two values.
func (e *uriExpr) sep() string {
	switch e.op {
	case '.', '/', ';', '&':
		return string(e.op)
	case '?':
		return "&"
	}
	return ","
}

// named reports whether the expression writes each value after its
// variable's name (name=value).
func (e *uriExpr) named() bool { return e.op == ';' || e.op == '?' || e.op == '&' }

// single reports whether the expression has one variable, not exploded,
// whose whole text is its value.
func (e *uriExpr) single() bool { return len(e.vars) == 1 && !e.vars[0].explode }

// valuePattern returns the regular expression of one value of e: the
// characters its operator writes unescaped besides its separators, and
// percent-encoded octets, as few as the rest of the URI allows, so that a
// later expression gets what it can hold. A lone variable may also hold
// commas, as a list it does not explode writes.
func (e *uriExpr) valuePattern() string {
	class := unreservedClass
	switch {
	case e.op == '+' || e.op == '#':
		class += reservedClass
	case e.single():
		class += ","
	case e.named():
		class += ","
	}
	return `(?:[` + class + `]|%[0-9A-Fa-f]{2})*?`
}

// pattern returns the regular expression of the text of e, which may be
// empty: an expression whose variables are all undefined writes nothing.
func (e *uriExpr) pattern() string {
	value := e.valuePattern()
	item := value
	if e.named() {
		names := make([]string, len(e.vars))
		for i, v := range e.vars {
			names[i] = regexp.QuoteMeta(v.name)
		}
		item = `(?:` + strings.Join(names, "|") + `)(?:=` + value + `)?`
	}
	text := item
	if !e.single() {
		text += `(?:` + regexp.QuoteMeta(e.sep()) + item + `)*?`
	}
	return `((?:` + regexp.QuoteMeta(e.prefix()) + text + `)?)`
}

// newURIMatcher compiles tmpl, which must be a template the std-uritemplate
// library expands, as the generated clients that read it do.
func newURIMatcher(tmpl string) (*uriMatcher, error) {
	if _, err := stduritemplate.Expand(tmpl, nil); err != nil {
		return nil, err
	}
	m := &uriMatcher{}
	var re strings.Builder
	re.WriteString(`^`)
	rest := tmpl
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			re.WriteString(regexp.QuoteMeta(rest))
			break
		}
		re.WriteString(regexp.QuoteMeta(rest[:open]))
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("unclosed expression in %q", tmpl)
		}
		body := rest[open+1 : open+end]
		rest = rest[open+end+1:]
		var e uriExpr
		if body != "" && strings.IndexByte("+#./;?&", body[0]) >= 0 {
			e.op, body = body[0], body[1:]
		}
		for _, spec := range strings.Split(body, ",") {
			name, explode := strings.CutSuffix(spec, "*")
			name, _, _ = strings.Cut(name, ":")
			e.vars = append(e.vars, uriVar{name: name, explode: explode})
		}
		re.WriteString(e.pattern())
		m.exprs = append(m.exprs, e)
	}
	re.WriteString(`$`)
	var err error
	if m.re, err = regexp.Compile(re.String()); err != nil {
		return nil, err
	}
	return m, nil
}

// match returns the variables of the template that uri gives, each a
// string or, for a variable the template explodes, a []string, or nil when
// uri is not an expansion of the template. A variable the URI leaves out
// is absent.
func (m *uriMatcher) match(uri string) map[string]any {
	groups := m.re.FindStringSubmatch(uri)
	if groups == nil {
		return nil
	}
	vars := map[string]any{}
	for i := range m.exprs {
		e := &m.exprs[i]
		// An expression that wrote nothing left its variables undefined;
		// a lone variable of a simple or + expression may be empty.
		text := groups[i+1]
		if text == "" && (e.prefix() != "" || !e.single()) {
			continue
		}
		text = text[len(e.prefix()):]
		switch {
		case e.named():
			for _, part := range strings.Split(text, e.sep()) {
				name, value, _ := strings.Cut(part, "=")
				for _, v := range e.vars {
					if v.name == name {
						set(vars, v, value)
					}
				}
			}
		case e.single():
			set(vars, e.vars[0], text)
		default:
			parts := strings.Split(text, e.sep())
			for j, v := range e.vars {
				if len(parts) == 0 {
					break
				}
				n := 1
				if v.explode {
					n = max(1, len(parts)-(len(e.vars)-j-1))
				}
				for _, p := range parts[:n] {
					set(vars, v, p)
				}
				parts = parts[n:]
			}
		}
	}
	return vars
}

// set gives the variable v the percent-decoded value: for an exploded
// variable, one more item of its list.
func set(vars map[string]any, v uriVar, value string) {
	if s, err := url.PathUnescape(value); err == nil {
		value = s
	}
	if !v.explode {
		vars[v.name] = value
		return
	}
	list, _ := vars[v.name].([]string)
	vars[v.name] = append(list, value)
}
