package auth

import (
	"net/url"
	"strings"
	"testing"
)

// TestMixUpAuthorizationEndpointElsewhere checks the mix-up defence for
// authorization servers that send no iss: an attacker's metadata names the
// honest server's authorization endpoint, on another origin than the
// attacker's issuer. Without iss in the response, the code is not sent to
// the attacker's token endpoint; with an iss that names the attacker's
// issuer, the response is taken as the attacker's own.
func TestMixUpAuthorizationEndpointElsewhere(t *testing.T) {
	honest := newFakeAS(t, "honest", "")
	honest.response = func(q url.Values) { q.Del("iss") }
	evil := newFakeAS(t, "evil", "")
	evil.meta = func(m map[string]any) {
		m["authorization_endpoint"] = honest.issuer() + "/authorize"
		delete(m, "authorization_response_iss_parameter_supported")
	}
	rs := newFakeRS(t, evil)

	o := &OAuth{Redirector: &approve{}}
	_, err := call(o, rs.url())
	if err == nil || !strings.Contains(err.Error(), "authorization endpoint is on another origin than the issuer") {
		t.Fatalf("error %v, want a refusal of the response without iss", err)
	}
	if n := len(evil.tokenRequests()); n != 0 {
		t.Fatalf("the attacker's token endpoint got %d requests, want none", n)
	}

	o = &OAuth{Redirector: &approve{tamper: func(q url.Values) { q.Set("iss", evil.issuer()) }}}
	_, err = call(o, rs.url())
	if err == nil || !strings.Contains(err.Error(), "exchanging the code") {
		t.Fatalf("error %v, want the response with the issuer's iss taken (and its code refused by the token endpoint)", err)
	}
}
