package schema

import "testing"

// TestRE2Pattern checks the rewriting of ECMA-262 patterns for RE2, and
// that syntax the two engines read differently is left to the ECMAScript
// engine.
func TestRE2Pattern(t *testing.T) {
	for p, want := range map[string]string{
		`^[a-z]+-[0-9]+$`: `^[a-z]+-[0-9]+$`,
		`^\d\w\b\/\.$`:    `^\d\w\b\/\.$`,
		`a.b`:             `a` + ecmaDot + `b`,
		`[.]`:             `[.]`,
		`\s`:              `[` + ecmaSpace + `]`,
		`[^\s,]`:          `[^` + ecmaSpace + `,]`,
		`\S`:              `[^` + ecmaSpace + `]`,
		`(?:ab)\x41`:      `(?:ab)\x41`,
	} {
		if got, ok := RE2Pattern(p); !ok || got != want {
			t.Errorf("RE2Pattern(%s) = %s, %v; want %s", p, got, ok, want)
		}
	}
	for _, p := range []string{`(?i)a`, `a\z`, `\A`, `\pL`, `\p{L}`, `[[:alpha:]]`, `[^]`, `[]a]`, `(a)\1`, `(?=a)`, `(?<n>a)`, `[\S]`, `[\b]`, `\u0041`, `\x{41}`, `\`, `[a`} {
		if got, ok := RE2Pattern(p); ok {
			t.Errorf("RE2Pattern(%s) = %s, want it left to the ECMAScript engine", p, got)
		}
	}
}
