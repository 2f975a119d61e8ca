package auth

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Challenge
		err  bool
	}{
		{`Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource", scope="files:read files:write"`,
			[]Challenge{{Scheme: "bearer", Params: map[string]string{"resource_metadata": "https://mcp.example/.well-known/oauth-protected-resource", "scope": "files:read files:write"}}}, false},
		{`Basic realm="a \"b\"", DPoP algs="ES256 RS256", error=use_dpop_nonce`,
			[]Challenge{{Scheme: "basic", Params: map[string]string{"realm": `a "b"`}}, {Scheme: "dpop", Params: map[string]string{"algs": "ES256 RS256", "error": "use_dpop_nonce"}}}, false},
		{`Negotiate abc+/==, Bearer`,
			[]Challenge{{Scheme: "negotiate", Params: map[string]string{}, Token68: "abc+/=="}, {Scheme: "bearer", Params: map[string]string{}}}, false},
		{`BEARER Error = "insufficient_scope" ,, Scope=admin`,
			[]Challenge{{Scheme: "bearer", Params: map[string]string{"error": "insufficient_scope", "scope": "admin"}}}, false},
		{`Bearer scope="x", Scope="y"`, nil, true},
		{`Bearer scope="unterminated`, nil, true},
		{`Bearer a=b c=d`, nil, true},
		{`Bearer a=`, []Challenge{{Scheme: "bearer", Params: map[string]string{}, Token68: "a="}}, false},
		{`="x"`, nil, true},
		{``, nil, false},
	} {
		got, err := ParseChallenges(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("%s: error %v, want error %v", tc.in, err, tc.err)
		}
		if !tc.err && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tc.in, got, tc.want)
		}
	}
}

func TestChallengesAcrossHeaders(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x"`)
	h.Add("WWW-Authenticate", `Bearer scope="a" oops`)
	h.Add("WWW-Authenticate", `DPoP algs="ES256"`)
	cs, err := Challenges(h)
	if err == nil {
		t.Error("no error for the broken header")
	}
	if c, ok := Find(cs, "BASIC"); !ok || c.Params["realm"] != "x" {
		t.Errorf("Find(basic) = %+v, %v", c, ok)
	}
	if c, ok := Find(cs, "bearer"); ok {
		t.Errorf("the broken challenge is there: %+v", c)
	}
	if _, ok := Find(cs, "dpop"); !ok {
		t.Error("the challenge after a broken header is lost")
	}
}

// formatChallenges writes challenges back as a header value, every
// parameter quoted.
func formatChallenges(cs []Challenge) string {
	var parts []string
	for _, c := range cs {
		s := c.Scheme
		if c.Token68 != "" {
			s += " " + c.Token68
		}
		var params []string
		for k, v := range c.Params {
			params = append(params, k+`="`+strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v)+`"`)
		}
		if len(params) > 0 {
			s += " " + strings.Join(params, ", ")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// FuzzChallenges checks that the parser never panics, that what it returns
// is well formed (lower-case token schemes and parameter names), and that
// the challenges written back parse to the same challenges.
func FuzzChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource", scope="files:read"`,
		`Bearer error="insufficient_scope", scope="a b", error_description="more \"scope\""`,
		`Basic realm="x", DPoP algs="ES256", error=use_dpop_nonce`,
		`Negotiate abc+/==, Bearer`,
		`Bearer a=`,
		`, ,Bearer ,`,
		`Bearer scope="unterminated`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ParseChallenges(s)
		for _, c := range cs {
			if c.Scheme == "" || c.Scheme != strings.ToLower(c.Scheme) || strings.IndexFunc(c.Scheme, func(r rune) bool { return r > 127 || !isTokenChar(byte(r)) }) >= 0 {
				t.Fatalf("%q: scheme %q", s, c.Scheme)
			}
			for k := range c.Params {
				if k == "" || k != strings.ToLower(k) {
					t.Fatalf("%q: parameter name %q", s, k)
				}
			}
			if c.Token68 != "" && len(c.Params) > 0 {
				t.Fatalf("%q: a token68 and parameters", s)
			}
		}
		if err != nil && len(cs) == 0 {
			return
		}
		again, err := ParseChallenges(formatChallenges(cs))
		if err != nil {
			t.Fatalf("%q: written back as %q: %v", s, formatChallenges(cs), err)
		}
		if !reflect.DeepEqual(again, cs) {
			t.Fatalf("%q: written back as %q, parsed to\n%#v\nnot\n%#v", s, formatChallenges(cs), again, cs)
		}
	})
}
