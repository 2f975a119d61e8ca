package runtime

import (
	"fmt"
	"regexp"
	"time"

	"github.com/dlclark/regexp2"

	"github.com/mcpgen/mcpgen/internal/schema"
)

// Pattern is a compiled JSON Schema pattern. Generated validators and the
// raw-schema validator (Schema) compile every pattern and patternProperties
// key, and check every "format": "regex" value, with CompilePattern, so the
// two layers agree.
type Pattern interface {
	// MatchString reports whether s contains a match of the pattern.
	MatchString(s string) bool
	// String returns the pattern's source text.
	String() string
}

// PatternMatchTimeout bounds one match of a pattern that only the
// ECMAScript engine reads. That engine backtracks, so a hostile pattern
// could otherwise run for ever; a match that takes longer counts as no
// match, which fails validation.
const PatternMatchTimeout = 100 * time.Millisecond

// CompilePattern compiles p, an ECMA-262 regular expression as JSON Schema
// defines patterns. Patterns Go's regexp package (RE2) can read with their
// ECMA-262 meaning are compiled by it, with \s, \S and . spelt out as
// ECMA-262 defines them (see schema.RE2Pattern): it runs in linear time.
// The others, such as those with lookahead or backreferences, are compiled
// by an ECMAScript-compatible engine, with . and \b, \B spelt out as
// ECMA-262 defines them (see schema.ECMAEnginePattern), whose matches are
// bounded by PatternMatchTimeout.
func CompilePattern(p string) (Pattern, error) {
	if q, ok := schema.RE2Pattern(p); ok {
		if re, err := regexp.Compile(q); err == nil {
			if q == p {
				return re, nil
			}
			return re2Pattern{re, p}, nil
		}
	}
	re, err := regexp2.Compile(schema.ECMAEnginePattern(p), regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		return nil, fmt.Errorf("pattern %q is not an ECMA-262 regular expression: %v", p, err)
	}
	re.MatchTimeout = PatternMatchTimeout
	return ecmaPattern{re, p}, nil
}

// ecmaPattern is a pattern compiled by the ECMAScript engine from its
// rewritten text (see schema.ECMAEnginePattern), which keeps its source
// text.
type ecmaPattern struct {
	re  *regexp2.Regexp
	src string
}

func (p ecmaPattern) MatchString(s string) bool {
	ok, err := p.re.MatchString(s)
	return err == nil && ok
}

func (p ecmaPattern) String() string { return p.src }

// re2Pattern is a pattern compiled by RE2 from its rewritten text, which
// keeps its source text.
type re2Pattern struct {
	re  *regexp.Regexp
	src string
}

func (p re2Pattern) MatchString(s string) bool { return p.re.MatchString(s) }

func (p re2Pattern) String() string { return p.src }
