package auth

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestStepUpScopesLinear steps up on a challenge naming 200,000 scopes, as
// a hostile server's 403 may (its headers may reach 10 MiB): merging them
// with the configured and granted ones must not compare each with every
// other, which took 1.4 s for 40,000 scopes, so about 35 s for these, with
// the sign-in's lock held. A merge through a set takes a fraction of a
// second; the bound of 10 s holds on a loaded machine and under the race
// detector, and still fails the quadratic merge.
func TestStepUpScopesLinear(t *testing.T) {
	const n = 200_000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "s%d ", i)
	}
	o := &OAuth{Scopes: []string{"a", "b"}, grant: &Grant{Scopes: []string{"b", "c", "s1"}}}
	ch := Challenge{Scheme: "bearer", Params: map[string]string{"scope": b.String() + "s0 a"}}
	start := time.Now()
	got := o.scopesFor(&discovered{md: &ServerMetadata{}}, ch, true)
	took := time.Since(start)
	if len(got) != n+3 || got[0] != "a" || got[1] != "b" || got[2] != "s0" || got[n+2] != "c" {
		t.Fatalf("%d scopes, starting %q: want a, b, the %d of the challenge, then c", len(got), got[:3], n)
	}
	if took > 10*time.Second {
		t.Errorf("a step up naming %d scopes took %v: the merge compares each scope with every other", n, took)
	}
}

// TestSignInScopesBounded has a server whose challenge names 2,000 scopes,
// 25 KB, first in its 401, then in a step up's 403. They went whole into
// the authorization request's URL, which the browser opens and the
// command line prints. The sign-in is refused, saying why, and no
// authorization request goes out.
func TestSignInScopesBounded(t *testing.T) {
	many := make([]string, 2000)
	for i := range many {
		many[i] = fmt.Sprintf("scope:%06d", i)
	}
	for _, when := range []string{"sign-in", "step up"} {
		t.Run(when, func(t *testing.T) {
			as := newFakeAS(t, "as", "")
			rs := newFakeRS(t, as)
			o := &OAuth{Redirector: &approve{}}
			if when == "sign-in" {
				rs.scope = strings.Join(many, " ")
			} else {
				mustCall(t, o, rs.url())
				rs.mu.Lock()
				rs.require = many
				rs.mu.Unlock()
			}
			before := len(as.authRequests())
			status, err := call(o, rs.url())
			if err == nil || !strings.Contains(err.Error(), "scopes to ask for (2000") || !strings.Contains(err.Error(), "refusing to sign in") {
				t.Errorf("GET: HTTP %d, error %v; want the sign-in refused for its scopes", status, err)
			}
			if n := len(as.authRequests()) - before; n != 0 {
				t.Errorf("%d authorization requests went out", n)
			}
		})
	}
}
