package auth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestResourceMetadataDiscovery checks the order in which the protected
// resource metadata is looked for: the URL of the WWW-Authenticate header,
// then the path-based well-known URL, then the one at the root.
func TestResourceMetadataDiscovery(t *testing.T) {
	for _, tc := range []struct {
		prmAt string
		want  []string
	}{
		{"header", []string{"/meta/prm"}},
		{"path", []string{"/.well-known/oauth-protected-resource/mcp"}},
		{"root", []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}},
	} {
		t.Run(tc.prmAt, func(t *testing.T) {
			as := newFakeAS(t, "as", "")
			rs := newFakeRS(t, as)
			rs.prmAt = tc.prmAt
			o := &OAuth{Redirector: &approve{}}
			mustCall(t, o, rs.url())
			if got := rs.getPaths(); !slices.Equal(got, tc.want) {
				t.Errorf("resource metadata fetched from %q, want %q", got, tc.want)
			}
			if n := len(as.authRequests()); n != 1 {
				t.Errorf("%d authorization requests, want 1", n)
			}
		})
	}
}

// TestServerMetadataDiscovery checks that the authorization server metadata
// is found at each of its well-known URLs, with the well-known segment
// inserted before an issuer's path (tenants) for RFC 8414 and OpenID
// discovery, and appended for OpenID's own form; and that OAuth metadata is
// asked for before OpenID discovery.
func TestServerMetadataDiscovery(t *testing.T) {
	for _, tc := range []struct {
		path, wellKnown string
		want            []string
	}{
		{"", "oauth", []string{"/.well-known/oauth-authorization-server"}},
		{"", "openid", []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}},
		{"/tenant1", "oauth", []string{"/.well-known/oauth-authorization-server/tenant1"}},
		{"/tenant1", "openid", []string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1"}},
		{"/tenant1", "openid-append", []string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"}},
	} {
		t.Run(tc.wellKnown+tc.path, func(t *testing.T) {
			as := newFakeAS(t, "as", tc.path)
			as.wellKnown = tc.wellKnown
			rs := newFakeRS(t, as)
			o := &OAuth{Redirector: &approve{}}
			mustCall(t, o, rs.url())
			as.mu.Lock()
			var got []string
			for _, p := range as.gets {
				if strings.Contains(p, "/.well-known/") {
					got = append(got, p)
				}
			}
			as.mu.Unlock()
			if !slices.Equal(got, tc.want) {
				t.Errorf("metadata fetched from %q, want %q", got, tc.want)
			}
			if o.server.md.Issuer != as.issuer() {
				t.Errorf("issuer %q, want %q", o.server.md.Issuer, as.issuer())
			}
		})
	}
}

// newLegacy returns an MCP server of the 2025-03-26 rules: no protected
// resource metadata, and its own origin as the authorization server.
func newLegacy(t *testing.T) (*fakeAS, *fakeRS) {
	as := &fakeAS{name: "legacy"}
	rs := &fakeRS{as: as, prmAt: "none"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == mcpPath || strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
			rs.ServeHTTP(w, r)
			return
		}
		as.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	as.srv, rs.srv = srv, srv
	return as, rs
}

// TestLegacyMetadataAtRoot checks the 2025-03-26 fallback: without
// protected resource metadata, the server's origin is the authorization
// server, its metadata is at the root, and the resource is the server URL.
func TestLegacyMetadataAtRoot(t *testing.T) {
	as, rs := newLegacy(t)
	o := &OAuth{Redirector: &approve{}}
	mustCall(t, o, rs.url())
	if got := rs.getPaths(); !slices.Equal(got, []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}) {
		t.Errorf("resource metadata fetched from %q", got)
	}
	if as.gets[0] != "/.well-known/oauth-authorization-server" {
		t.Errorf("authorization server metadata fetched from %q first", as.gets[0])
	}
	if r := as.authRequests()[0].Get("resource"); r != rs.url() {
		t.Errorf("resource %q, want %q", r, rs.url())
	}
}

// TestLegacyDefaultEndpoints checks the 2025-03-26 fallback of a server
// that publishes no metadata at all: /authorize, /token and /register at
// its origin.
func TestLegacyDefaultEndpoints(t *testing.T) {
	as, rs := newLegacy(t)
	as.wellKnown = "none"
	o := &OAuth{Redirector: &approve{}}
	mustCall(t, o, rs.url())
	if len(as.registrations()) != 1 || len(as.authRequests()) != 1 || len(as.tokenRequests()) != 1 {
		t.Errorf("%d registrations, %d authorization and %d token requests at the default endpoints, want 1 each", len(as.registrations()), len(as.authRequests()), len(as.tokenRequests()))
	}
}

// TestNoMetadataWithResourceMetadataRefused checks that the default
// endpoints are only for servers without resource metadata: an
// authorization server the metadata names must publish its own.
func TestNoMetadataWithResourceMetadataRefused(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.wellKnown = "none"
	rs := newFakeRS(t, as)
	o := &OAuth{Redirector: &approve{}}
	if _, err := call(o, rs.url()); err == nil || !strings.Contains(err.Error(), "publishes no metadata") {
		t.Fatalf("error %v, want one saying the server publishes no metadata", err)
	}
	if len(as.authRequests()) != 0 {
		t.Error("an authorization request was made")
	}
}

// TestResourceMismatchRefused checks that resource metadata naming another
// resource than the server is refused before any authorization request.
func TestResourceMismatchRefused(t *testing.T) {
	for _, resource := range []string{
		"https://attacker.example/mcp",
		"", // filled in: the server's URL on another path
	} {
		as := newFakeAS(t, "as", "")
		rs := newFakeRS(t, as)
		r := resource
		if r == "" {
			r = rs.srv.URL + "/other"
		}
		rs.prm = func(m map[string]any) { m["resource"] = r }
		o := &OAuth{Redirector: &approve{}}
		_, err := call(o, rs.url())
		if err == nil || !strings.Contains(err.Error(), "refusing to authorize") {
			t.Errorf("resource %s: error %v, want a refusal", r, err)
		}
		if len(as.authRequests())+len(as.tokenRequests())+len(as.registrations()) != 0 {
			t.Errorf("resource %s: the authorization server was used", r)
		}
	}
}

// TestResourceAboveServerAccepted checks that resource metadata may name a
// path above the server on the same origin (RFC 9728 section 3.3), and
// that the resource indicator is then the one the metadata names.
func TestResourceAboveServerAccepted(t *testing.T) {
	as := newFakeAS(t, "as", "")
	rs := newFakeRS(t, as)
	rs.prm = func(m map[string]any) { m["resource"] = rs.srv.URL + "/" }
	o := &OAuth{Redirector: &approve{}}
	call(o, rs.url())
	if got := as.authRequests(); len(got) != 1 || got[0].Get("resource") != rs.srv.URL+"/" {
		t.Fatalf("authorization requests %v, want one for %s/", got, rs.srv.URL)
	}
}

// TestIssuerMismatchRefused checks that authorization server metadata whose
// issuer is not exactly the one it was fetched for is refused, including a
// trailing-slash variant, before any authorization request.
func TestIssuerMismatchRefused(t *testing.T) {
	for _, name := range []string{"other", "slash", "case", "missing"} {
		t.Run(name, func(t *testing.T) {
			as := newFakeAS(t, "as", "/t1")
			as.meta = func(m map[string]any) {
				switch name {
				case "other":
					m["issuer"] = "https://attacker.example/t1"
				case "slash":
					m["issuer"] = as.issuer() + "/"
				case "case":
					m["issuer"] = strings.ToUpper(as.issuer()[:4]) + as.issuer()[4:]
				case "missing":
					delete(m, "issuer")
				}
			}
			rs := newFakeRS(t, as)
			o := &OAuth{Redirector: &approve{}}
			_, err := call(o, rs.url())
			if err == nil || !strings.Contains(err.Error(), "issuer") {
				t.Errorf("error %v, want an issuer refusal", err)
			}
			if len(as.authRequests())+len(as.registrations()) != 0 {
				t.Error("the authorization server was used")
			}
		})
	}
}

// TestAuthorizationResponseIssuer checks RFC 9207: an authorization response
// whose iss is missing although the server advertises it, is another
// issuer, or differs by a trailing slash is refused, and its code never
// reaches the token endpoint. A response without iss from a server that
// does not advertise it is accepted.
func TestAuthorizationResponseIssuer(t *testing.T) {
	for _, tc := range []struct {
		name       string
		advertised bool
		iss        func(as *fakeAS) []string // nil: no iss
		ok         bool
	}{
		{"missing-advertised", true, nil, false},
		{"other", true, func(*fakeAS) []string { return []string{"https://attacker.example"} }, false},
		{"trailing-slash", true, func(as *fakeAS) []string { return []string{as.issuer() + "/"} }, false},
		{"twice", true, func(as *fakeAS) []string { return []string{as.issuer(), as.issuer()} }, false},
		{"other-not-advertised", false, func(*fakeAS) []string { return []string{"https://attacker.example"} }, false},
		{"missing-not-advertised", false, nil, true},
		{"right", true, func(as *fakeAS) []string { return []string{as.issuer()} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t, "as", "")
			as.meta = func(m map[string]any) { m["authorization_response_iss_parameter_supported"] = tc.advertised }
			as.response = func(q url.Values) {
				if tc.iss == nil {
					q.Del("iss")
				} else {
					q["iss"] = tc.iss(as)
				}
			}
			rs := newFakeRS(t, as)
			o := &OAuth{Redirector: &approve{}}
			status, err := call(o, rs.url())
			if tc.ok {
				if err != nil || status != http.StatusOK {
					t.Fatalf("HTTP %d, %v", status, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "RFC 9207") {
				t.Errorf("error %v, want an RFC 9207 refusal", err)
			}
			if n := len(as.tokenRequests()); n != 0 {
				t.Errorf("%d token requests after a refused response", n)
			}
		})
	}
}

// TestStateMismatchRefused checks that an authorization response whose
// state is not the request's is refused without a token request.
func TestStateMismatchRefused(t *testing.T) {
	for _, state := range []string{"forged", ""} {
		as := newFakeAS(t, "as", "")
		rs := newFakeRS(t, as)
		o := &OAuth{Redirector: &approve{tamper: func(q url.Values) { q.Set("state", state) }}}
		if _, err := call(o, rs.url()); err == nil || !strings.Contains(err.Error(), "state") {
			t.Errorf("state %q: error %v, want a state refusal", state, err)
		}
		if n := len(as.tokenRequests()); n != 0 {
			t.Errorf("state %q: %d token requests", state, n)
		}
	}
}

// TestPKCES256Required checks that an authorization server that lists PKCE
// methods without S256 is refused before any authorization request, and
// that every authorization request carries an S256 challenge.
func TestPKCES256Required(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.meta = func(m map[string]any) { m["code_challenge_methods_supported"] = []string{"plain"} }
	rs := newFakeRS(t, as)
	o := &OAuth{Redirector: &approve{}}
	if _, err := call(o, rs.url()); err == nil || !strings.Contains(err.Error(), "S256") {
		t.Errorf("error %v, want an S256 refusal", err)
	}
	if len(as.authRequests())+len(as.registrations()) != 0 {
		t.Error("the authorization server was used")
	}

	as = newFakeAS(t, "as", "")
	rs = newFakeRS(t, as)
	o = &OAuth{Redirector: &approve{}}
	mustCall(t, o, rs.url())
	q := as.authRequests()[0]
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 {
		t.Errorf("authorization request %v has no S256 challenge", q)
	}
	tr := as.tokenRequests()[0].form
	if v := tr.Get("code_verifier"); len(v) < 43 {
		t.Errorf("code_verifier %d characters long, want at least 43", len(v))
	}
}

// TestRelativeEndpoints checks that relative endpoint URLs in the metadata
// are resolved against the URL the metadata was fetched from.
func TestRelativeEndpoints(t *testing.T) {
	as := newFakeAS(t, "as", "/t1")
	as.meta = func(m map[string]any) {
		m["authorization_endpoint"] = "/t1/authorize"
		m["token_endpoint"] = "/t1/token"
		m["registration_endpoint"] = "/t1/register"
	}
	rs := newFakeRS(t, as)
	o := &OAuth{Redirector: &approve{}}
	mustCall(t, o, rs.url())
	md := o.server.md
	if md.AuthorizationEndpoint != as.issuer()+"/authorize" || md.TokenEndpoint != as.issuer()+"/token" || md.RegistrationEndpoint != as.issuer()+"/register" {
		t.Errorf("endpoints %s %s %s, want them under %s", md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint, as.issuer())
	}
}

// TestDecodeServerMetadataEndpoints checks the endpoint rules of
// DecodeServerMetadata on its own.
func TestDecodeServerMetadataEndpoints(t *testing.T) {
	const iss = "https://as.example/t1"
	const at = "https://as.example/.well-known/oauth-authorization-server/t1"
	for _, tc := range []struct {
		doc, err, token string
	}{
		{`{"issuer":"` + iss + `","token_endpoint":"/t1/token"}`, "", "https://as.example/t1/token"},
		{`{"issuer":"` + iss + `","token_endpoint":"token"}`, "", "https://as.example/.well-known/oauth-authorization-server/token"},
		{`{"issuer":"` + iss + `","token_endpoint":"https://other.example/token"}`, "", "https://other.example/token"},
		{`{"issuer":"` + iss + `"}`, "no token_endpoint", ""},
		{`{"issuer":"` + iss + `","token_endpoint":"ftp://as.example/token"}`, "not an http(s) URL", ""},
		{`{"issuer":"` + iss + `","token_endpoint":"/token#x"}`, "fragment", ""},
		{`{"issuer":"` + iss + `","token_endpoint":"//::/"}`, `token_endpoint "//::/" is not a URL`, ""},
		{`{"issuer":"` + iss + `","token_endpoint":"/token","authorization_endpoint":"javascript:alert(1)"}`, "not an http(s) URL", ""},
		{`{"issuer":"` + iss + `/","token_endpoint":"/token"}`, "RFC 8414", ""},
		{`{"issuer":3}`, "decoding", ""},
	} {
		m, err := DecodeServerMetadata([]byte(tc.doc), iss, at)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.doc, err)
		case tc.err == "" && m.TokenEndpoint != tc.token:
			t.Errorf("%s: token endpoint %s, want %s", tc.doc, m.TokenEndpoint, tc.token)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one saying %q", tc.doc, err, tc.err)
		}
	}
}

// TestMetadataSizeLimit checks that a metadata document larger than 1 MiB
// is refused with an error saying so, and one just under it is read.
func TestMetadataSizeLimit(t *testing.T) {
	for _, size := range []int{maxMetadataSize, maxMetadataSize + 1} {
		as := newFakeAS(t, "as", "")
		rs := newFakeRS(t, as)
		rs.prm = func(m map[string]any) {
			b, _ := json.Marshal(m)
			m["padding"] = strings.Repeat("x", size-len(b)-len(`,"padding":""`)-1) // the encoder's newline
		}
		o := &OAuth{Redirector: &approve{}}
		_, err := call(o, rs.url())
		if size > maxMetadataSize {
			if err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
				t.Errorf("%d bytes: error %v, want the size limit", size, err)
			}
		} else if err != nil {
			t.Errorf("%d bytes: %v", size, err)
		}
	}
}
