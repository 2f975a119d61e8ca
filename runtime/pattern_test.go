package runtime

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// publishedPattern is the pattern of a published server's tool: a list of
// distinct scopes, which needs lookahead and a backreference.
const publishedPattern = `^(?!.*(?:^|,)(team|scim|mocks:deactivated),(?:.*,)?\1(?:$|,))(team|scim|mocks:deactivated)(,(team|scim|mocks:deactivated))*$`

// TestECMAPatternInRawSchema validates arguments against a schema whose
// pattern and patternProperties only an ECMA-262 engine reads, and whose
// format regex values use ECMA-262 syntax: the schema compiles, and the
// raw layer gives the verdicts CompilePattern gives generated code.
func TestECMAPatternInRawSchema(t *testing.T) {
	s := NewSchema("scopes", []byte(`{"type":"object","properties":{
		"scopes":{"type":"string","pattern":"`+strings.ReplaceAll(publishedPattern, `\`, `\\`)+`"},
		"counts":{"type":"object","patternProperties":{"^(?!tmp_)[a-z_]+$":{"type":"integer"}},"additionalProperties":false},
		"re":{"type":"string","format":"regex"}}}`))
	if err := s.Compile(); err != nil {
		t.Fatal(err)
	}
	re, err := CompilePattern(publishedPattern)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args string
		ok   bool
	}{
		{`{"scopes":"team,scim"}`, true},
		{`{"scopes":"team,scim,team"}`, false},
		{`{"scopes":"nope"}`, false},
		{`{"counts":{"seen":1}}`, true},
		{`{"counts":{"tmp_seen":1}}`, false},
		{`{"re":"(?<=a)b"}`, true},
		{`{"re":"(x)\\1"}`, true},
		{`{"re":"("}`, false},
	} {
		err := s.Validate([]byte(tc.args))
		if (err == nil) != tc.ok {
			t.Errorf("%s: valid = %v, want %v (%v)", tc.args, err == nil, tc.ok, err)
		}
		if v, ok := strings.CutPrefix(tc.args, `{"scopes":"`); ok {
			if got := re.MatchString(strings.TrimSuffix(v, `"}`)); got != tc.ok {
				t.Errorf("CompilePattern matches %s: %v, want %v", v, got, tc.ok)
			}
		}
	}
}

// TestCompilePatternPrefersRE2 checks that patterns RE2 reads are compiled
// by Go's regexp, and that a pattern neither engine reads is an error
// naming it.
func TestCompilePatternPrefersRE2(t *testing.T) {
	p, err := CompilePattern(`^[a-z]+$`)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(ecmaPattern); ok {
		t.Error("an RE2 pattern went to the ECMAScript engine")
	}
	if _, err := CompilePattern(`(a`); err == nil || !strings.Contains(err.Error(), `pattern "(a" is not an ECMA-262 regular expression`) {
		t.Errorf("got %v", err)
	}
}

// TestECMAPatternMatchIsBounded matches a pattern that backtracks
// exponentially: the match stops after PatternMatchTimeout and counts as no
// match.
func TestECMAPatternMatchIsBounded(t *testing.T) {
	p, err := CompilePattern(`^(?=x)?(a+)+\1$`)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if p.MatchString(strings.Repeat("a", 40) + "!") {
		t.Error("matched")
	}
	if d := time.Since(start); d > 20*PatternMatchTimeout {
		t.Errorf("the match took %v", d)
	}
}

// TestCompilePatternHasECMASemantics checks patterns that RE2 also reads,
// but with another meaning: \s, \S and . are ECMA-262's (as node's RegExp
// gives them with the u flag, which Ajv sets), whichever engine compiles
// the pattern, and the raw layer gives the same verdicts.
func TestCompilePatternHasECMASemantics(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		ok         bool
	}{
		{`^\s$`, "\v", true},
		{`^\s$`, "\u00a0", true},
		{`^\s$`, "\ufeff", true},
		{`^\s$`, "\u2028", true},
		{`^\s$`, " ", true},
		{`^\s$`, "x", false},
		{`^[\s]$`, "\u3000", true},
		{`^[^\s]$`, "\u00a0", false},
		{`^\S+$`, "a\u00a0b", false},
		{`^\S+$`, "ab", true},
		{`^.$`, "\r", false},
		{`^.$`, "\u2028", false},
		{`^.$`, "\n", false},
		{`^.$`, "😀", true},
		{`^[.]$`, ".", true},
		{`^a.c$`, "abc", true},
		{`^\d+$`, "٣", false},
		{`^\w+$`, "é", false},
	} {
		p, err := CompilePattern(tc.pattern)
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if got := p.MatchString(tc.s); got != tc.ok {
			t.Errorf("%s matches %q: %v, ECMA-262 says %v", tc.pattern, tc.s, got, tc.ok)
		}
		if p.String() != tc.pattern {
			t.Errorf("%s: String() = %s", tc.pattern, p.String())
		}
		quoted, _ := json.Marshal(tc.pattern)
		s := NewSchema("p", []byte(`{"type":"string","pattern":`+string(quoted)+`}`))
		arg, _ := json.Marshal(tc.s)
		if err := s.Validate(arg); (err == nil) != tc.ok {
			t.Errorf("schema with pattern %s validates %q: %v, ECMA-262 says valid=%v", tc.pattern, tc.s, err, tc.ok)
		}
	}
}

// TestECMAEnginePatternHasECMASemantics is TestCompilePatternHasECMASemantics
// for patterns only the ECMAScript engine reads (a lookaround or a
// backreference beside the syntax in question): . and \b, \B are
// ECMA-262's there too, as node's RegExp gives them with the u flag.
func TestECMAEnginePatternHasECMASemantics(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		ok         bool
	}{
		{`^(?=a)a.b$`, "a\u2028b", false},
		{`^(?=a)a.b$`, "a\u2029b", false},
		{`^(?=a)a.b$`, "a\rb", false},
		{`^(?=a)a.b$`, "a\nb", false},
		{`^(?=a)a.b$`, "a😀b", true},
		{`^(?=a)a.b$`, "a.b", true},
		{`^(?=a)a[.]b$`, "a\u2028b", false},
		{`^(?=a)a\.b$`, "a\u2028b", false},
		{`^(?=a)a\\.b$`, "a\\\u2028b", false},
		{`^(?=a)a[^.]b$`, "a\u2028b", true},
		{`^(?!.*\.\.).+$`, "a\u2028b", false},
		{`^(?=a)a\b`, "aé", true},
		{`^(?=a)a\b`, "ab", false},
		{`^(?=a)a\B`, "aé", false},
		{`^(?=a)a\B`, "ab", true},
		{`(?=é)\bé`, "aé", true},
		{`(?=é)\bé`, "é", false},
		{`^(?=a)a[\b]`, "a\b", true},
		{`^(.)\1\b`, "aa b", true},
		{`^(.)\1\b`, "aaé", true},
	} {
		p, err := CompilePattern(tc.pattern)
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if _, ok := p.(ecmaPattern); !ok {
			t.Errorf("%s: compiled by %T, want the ECMAScript engine", tc.pattern, p)
		}
		if got := p.MatchString(tc.s); got != tc.ok {
			t.Errorf("%s matches %q: %v, ECMA-262 says %v", tc.pattern, tc.s, got, tc.ok)
		}
		if p.String() != tc.pattern {
			t.Errorf("%s: String() = %s", tc.pattern, p.String())
		}
		quoted, _ := json.Marshal(tc.pattern)
		s := NewSchema("p", []byte(`{"type":"string","pattern":`+string(quoted)+`}`))
		arg, _ := json.Marshal(tc.s)
		if err := s.Validate(arg); (err == nil) != tc.ok {
			t.Errorf("schema with pattern %s validates %q: %v, ECMA-262 says valid=%v", tc.pattern, tc.s, err, tc.ok)
		}
	}
}
