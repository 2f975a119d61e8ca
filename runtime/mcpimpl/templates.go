package mcpimpl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	stduritemplate "github.com/std-uritemplate/std-uritemplate/go/v2"

	"github.com/mcpgen/mcpgen/runtime"
)

// ResourceReader is what a generated Client's template methods need of its
// runtime.Caller: a *runtime.Session has it.
type ResourceReader interface {
	ReadResource(ctx context.Context, uri string) (*runtime.ReadResourceResult, error)
}

// URIParams is what the template methods of a generated Client send: a
// pointer to a template's parameter struct.
type URIParams interface {
	URI() (string, error)
}

// URIVar is one variable of a URI template: a string, or a list of them
// for a variable the template explodes.
type URIVar struct {
	Name   string
	Value  string
	List   []string
	IsList bool
	// Required variables must not be empty; others are left out of the
	// URI when they are.
	Required bool
	// Reserved is set for a variable of a + or # expression, whose
	// reserved characters are written as they are.
	Reserved bool
}

// notInReserved are the ASCII characters, besides the controls, that may
// not appear in a URI and that the library writes unescaped in a + or #
// expression; such values are refused instead.
const notInReserved = "\"<>\\^`{|}"

// ExpandURI expands the RFC 6570 URI template tmpl of the resource template
// named template with vars, with the std-uritemplate library. An empty
// optional variable is undefined, and its expression writes nothing.
// Values are escaped as the template's operators ask, and a prefix
// modifier ({name:3}) keeps the value's first characters, as RFC 6570
// counts them. The values
// CheckURIVars refuses are a *runtime.ValidationError.
func ExpandURI(template, tmpl string, vars []URIVar) (string, error) {
	if err := CheckURIVars(template, vars); err != nil {
		return "", err
	}
	values := make(stduritemplate.Substitutions, len(vars))
	for _, v := range vars {
		switch {
		case v.IsList && len(v.List) > 0:
			values[v.Name] = v.List
		case !v.IsList && v.Value != "":
			values[v.Name] = v.Value
		}
	}
	uri, err := stduritemplate.Expand(tmpl, values)
	if err == nil {
		uri, err = expandPrefixes(tmpl, values, uri)
	}
	if err != nil {
		return "", fmt.Errorf("resource template %q: expanding %q: %w", template, tmpl, err)
	}
	return uri, nil
}

// CheckURIVars reports the first variable of vars whose value cannot be
// expanded, as a *runtime.ValidationError naming the resource template: a
// required variable that is empty (or a list item of one), a value that is
// not valid UTF-8, and, in a + or # expression, a control character, one
// of the ASCII characters a URI cannot hold ("<>\^`{|} and the double
// quote), or a % that starts no percent-encoded octet, which the library
// would write unescaped in such expressions.
func CheckURIVars(template string, vars []URIVar) error {
	invalid := func(ptr, reason string) error {
		return &runtime.ValidationError{Tool: "resource template " + template, Pointer: ptr, Reason: reason}
	}
	check := func(v *URIVar, s string, ptr string) error {
		if !utf8.ValidString(s) {
			return invalid(ptr, "the value is not valid UTF-8")
		}
		if !v.Reserved {
			return nil
		}
		for _, r := range s {
			if r < 0x20 || r == 0x7f || strings.ContainsRune(notInReserved, r) {
				return invalid(ptr, fmt.Sprintf("the value holds %q, which a URI cannot hold and the template's + or # expression would not escape", r))
			}
		}
		if lonePercent(s) {
			return invalid(ptr, "the value holds a % that does not start a percent-encoded octet (%XX), which the template's + or # expression cannot write")
		}
		return nil
	}
	for i := range vars {
		v := &vars[i]
		if !v.IsList {
			if v.Required && v.Value == "" {
				return invalid(Pointer(v.Name), "the variable is required and must not be empty")
			}
			if err := check(v, v.Value, Pointer(v.Name)); err != nil {
				return err
			}
			continue
		}
		if v.Required && len(v.List) == 0 {
			return invalid(Pointer(v.Name), "the variable is required and must not be empty")
		}
		for j, s := range v.List {
			if v.Required && s == "" {
				return invalid(Pointer(v.Name, j), "the item must not be empty")
			}
			if err := check(v, s, Pointer(v.Name, j)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadTemplate is the body of a generated template method: it expands
// params to a URI and reads it through c, which must be a ResourceReader.
func ReadTemplate(ctx context.Context, c runtime.Caller, template string, params URIParams) (*runtime.ReadResourceResult, error) {
	uri, err := params.URI()
	if err != nil {
		return nil, err
	}
	rr, ok := c.(ResourceReader)
	if !ok {
		return nil, fmt.Errorf("reading resource template %q: the client's caller (%T) does not read resources; use a *runtime.Session", template, c)
	}
	return rr.ReadResource(ctx, uri)
}

// lonePercent reports whether s holds a % that is not followed by two
// hexadecimal digits.
func lonePercent(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2])) {
			return true
		}
	}
	return false
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// expandPrefixes expands tmpl, which the library has expanded as uri, again
// when it has prefix modifiers ({name:3}), expression by expression: in
// each, a variable of a prefix modifier whose value is a string gets the
// value's prefix, and the modifier is dropped. RFC 6570 counts a prefix in
// characters, a percent-encoded octet of a + or # expression as one, while
// the library counts bytes and stops at the character that reaches the
// count ("日本語" cut at 3 keeps "日", and a cut through "%41" writes "%25").
// An expression that names a variable twice keeps the library's reading.
func expandPrefixes(tmpl string, values stduritemplate.Substitutions, uri string) (string, error) {
	if !strings.Contains(tmpl, ":") {
		return uri, nil
	}
	var b strings.Builder
	cut := false
	for rest := tmpl; rest != ""; {
		open := strings.IndexByte(rest, '{')
		if open != 0 {
			if open < 0 {
				open = len(rest)
			}
			lit, err := stduritemplate.Expand(rest[:open], nil)
			if err != nil {
				return "", err
			}
			b.WriteString(lit)
			rest = rest[open:]
			continue
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return uri, nil
		}
		expr, op := rest[1:end], ""
		rest = rest[end+1:]
		if expr != "" && strings.IndexByte("+#./;?&", expr[0]) >= 0 {
			op, expr = expr[:1], expr[1:]
		}
		specs := strings.Split(expr, ",")
		own := make(stduritemplate.Substitutions, len(specs))
		for i, spec := range specs {
			name, length, ok := strings.Cut(strings.TrimSuffix(spec, "*"), ":")
			if _, twice := own[name]; twice {
				own, specs = values, strings.Split(expr, ",")
				break
			}
			own[name] = values[name]
			n, err := strconv.Atoi(length)
			if value, isString := values[name].(string); ok && err == nil && n > 0 && isString {
				own[name] = prefix(value, n, op == "+" || op == "#")
				specs[i] = name
				cut = true
			}
		}
		part, err := stduritemplate.Expand("{"+op+strings.Join(specs, ",")+"}", own)
		if err != nil {
			return "", err
		}
		b.WriteString(part)
	}
	if !cut {
		return uri, nil
	}
	return b.String(), nil
}

// prefix returns the first n characters of s; in a reserved (+ or #)
// expression, a percent-encoded octet counts as one character.
func prefix(s string, n int, reserved bool) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		if reserved && s[i] == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) {
			i += 3
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
