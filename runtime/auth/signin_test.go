package auth

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRegistrationOrder checks which client signs in: the client ID
// metadata document URL when the server advertises support for it, then the
// pre-registered client (for its issuer only), then a dynamic registration
// as a native application.
func TestRegistrationOrder(t *testing.T) {
	const cimd = "https://client.example/mcpgen.json"
	pre := &Client{ID: "pre-registered"}
	for _, tc := range []struct {
		name         string
		cimd         bool   // the server supports client ID metadata documents
		clientIssuer string // "as" for the server's own issuer
		want         string
	}{
		{"cimd", true, "", cimd},
		{"pre-registered", false, "", "pre-registered"},
		{"pre-registered-for-issuer", false, "as", "pre-registered"},
		{"pre-registered-elsewhere", false, "https://other.example", "as-client-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t, "as", "")
			as.meta = func(m map[string]any) { m["client_id_metadata_document_supported"] = tc.cimd }
			rs := newFakeRS(t, as)
			ci := tc.clientIssuer
			if ci == "as" {
				ci = as.issuer()
			}
			o := &OAuth{Redirector: &approve{}, ClientMetadataURL: cimd, Client: pre, ClientIssuer: ci}
			mustCall(t, o, rs.url())
			if got := as.authRequests()[0].Get("client_id"); got != tc.want {
				t.Errorf("client_id %q, want %q", got, tc.want)
			}
			regs := as.registrations()
			if tc.want != "as-client-1" {
				if len(regs) != 0 {
					t.Errorf("%d registrations, want none", len(regs))
				}
				return
			}
			if len(regs) != 1 {
				t.Fatalf("%d registrations, want 1", len(regs))
			}
			r := regs[0]
			if r["application_type"] != "native" || r["token_endpoint_auth_method"] != "none" || !slices.Equal(toStrings(r["redirect_uris"]), []string{"http://127.0.0.1:1" + RedirectPath(as.issuer())}) || !slices.Contains(toStrings(r["grant_types"]), "refresh_token") {
				t.Errorf("registration %v", r)
			}
		})
	}
}

// TestNoRegistrationEndpoint checks the error when no client can be used:
// no registration endpoint, no pre-registered client, no client ID metadata
// document.
func TestNoRegistrationEndpoint(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.meta = func(m map[string]any) { delete(m, "registration_endpoint") }
	rs := newFakeRS(t, as)
	o := &OAuth{Redirector: &approve{}}
	if _, err := call(o, rs.url()); err == nil || !strings.Contains(err.Error(), "configure a client ID") {
		t.Fatalf("error %v, want one asking for a client ID", err)
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestCredentialsKeyedByIssuer checks that a server that moves to another
// authorization server gets a registration there, and that neither the old
// client ID nor the old tokens are sent to the new one.
func TestCredentialsKeyedByIssuer(t *testing.T) {
	as1 := newFakeAS(t, "one", "")
	as2 := newFakeAS(t, "two", "")
	rs := newFakeRS(t, as1)
	store := &MemoryStore{}
	o := &OAuth{Redirector: &approve{}, Store: store}
	mustCall(t, o, rs.url())
	rs.mu.Lock()
	rs.as = as2
	rs.mu.Unlock()
	mustCall(t, o, rs.url())
	if n := len(as2.registrations()); n != 1 {
		t.Errorf("%d registrations at the new server, want 1", n)
	}
	if got := as2.authRequests()[0].Get("client_id"); got != "two-client-1" {
		t.Errorf("client_id %q at the new server, want its own registration", got)
	}
	for _, r := range as2.tokenRequests() {
		for _, v := range r.form {
			if strings.HasPrefix(v[0], "one-") {
				t.Errorf("the new server got %s of the old one", v[0])
			}
		}
	}
	c1, _ := store.Client(context.Background(), as1.issuer())
	c2, _ := store.Client(context.Background(), as2.issuer())
	if c1 == nil || c2 == nil || c1.ID != "one-client-1" || c2.ID != "two-client-1" {
		t.Errorf("stored clients %+v and %+v, want one per issuer", c1, c2)
	}

	// A new OAuth with the same store, for the first server again, reuses
	// the first registration and grant.
	rs.mu.Lock()
	rs.as = as1
	rs.mu.Unlock()
	o = &OAuth{Redirector: &approve{}, Store: store}
	mustCall(t, o, rs.url())
	if n := len(as1.registrations()); n != 1 {
		t.Errorf("%d registrations at the first server, want the stored one reused", n)
	}
	if n := len(as1.authRequests()); n != 1 {
		t.Errorf("%d authorization requests at the first server, want the stored grant reused", n)
	}
}

// TestScopes checks which scopes are asked for: the challenge's, else the
// resource metadata's scopes_supported, else none; offline_access only when
// the authorization server lists it.
func TestScopes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		challenge string
		supported []string
		offline   bool
		want      string // the scope parameter; "-" for none
	}{
		{"challenge", "files:read", []string{"a", "b"}, false, "files:read"},
		{"resource-metadata", "", []string{"a", "b"}, false, "a b"},
		{"none", "", nil, false, "-"},
		{"offline", "files:read", nil, true, "files:read offline_access"},
		{"none-offline", "", nil, true, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t, "as", "")
			if tc.offline {
				as.meta = func(m map[string]any) { m["scopes_supported"] = []string{"files:read", "offline_access"} }
			}
			rs := newFakeRS(t, as)
			rs.scope = tc.challenge
			if tc.supported != nil {
				rs.prm = func(m map[string]any) { m["scopes_supported"] = tc.supported }
			}
			o := &OAuth{Redirector: &approve{}}
			mustCall(t, o, rs.url())
			q := as.authRequests()[0]
			got := q.Get("scope")
			if _, ok := q["scope"]; !ok {
				got = "-"
			}
			if got != tc.want {
				t.Errorf("scope %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStepUpKeepsScopes checks that a 403 insufficient_scope asks for the
// challenged scopes on top of the ones granted, and that the request then
// succeeds.
func TestStepUpKeepsScopes(t *testing.T) {
	testStepUp(t, false)
}

// TestStepUpWithoutResourceMetadataURL checks a step up on a 403 whose
// challenge names no resource_metadata, where the 401 did: the resource
// metadata found then still holds. It used to be looked for at the
// well-known URLs only, and, not found there, the server's origin was taken
// for a 2025-03-26 authorization server, where the client registered.
func TestStepUpWithoutResourceMetadataURL(t *testing.T) {
	testStepUp(t, true)
}

func testStepUp(t *testing.T, bare403 bool) {
	as := newFakeAS(t, "as", "")
	rs := newFakeRS(t, as)
	rs.bare403 = bare403
	rs.scope = "read"
	o := &OAuth{Redirector: &approve{}}
	mustCall(t, o, rs.url())
	rs.mu.Lock()
	rs.require = []string{"write"}
	rs.mu.Unlock()
	mustCall(t, o, rs.url())
	auths := as.authRequests()
	if len(auths) != 2 {
		t.Fatalf("%d authorization requests, want 2", len(auths))
	}
	if got := strings.Fields(auths[1].Get("scope")); !slices.Contains(got, "read") || !slices.Contains(got, "write") {
		t.Errorf("step-up scope %q, want read and write", auths[1].Get("scope"))
	}
}

// TestRefreshSendsResourceIndicator checks that the authorization request
// and every token request, the refreshes included (RFC 8707 section 2.2, and
// the MCP spec's "both authorization and token requests"), carry the
// resource indicator in canonical form: lower-case scheme and host, no
// default port, no trailing slash. Refreshes used to go without it, and an
// authorization server then issues a token for no resource or its default
// one.
func TestRefreshSendsResourceIndicator(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.ttl = time.Second // below oauth2's expiry margin: every use refreshes
	rs := newFakeRS(t, as)
	u, _ := url.Parse(rs.url())
	rs.prm = func(m map[string]any) { m["resource"] = "HTTP://" + strings.ToUpper(u.Host) + "/mcp/" }
	o := &OAuth{Redirector: &approve{}}
	call(o, rs.url())
	if got := canonicalResource(&url.URL{Scheme: "HTTPS", Host: "Example.COM:443", Path: "/mcp/"}); got != "https://example.com/mcp" {
		t.Errorf("canonical form %s", got)
	}
	if got := as.authRequests()[0].Get("resource"); got != rs.url() {
		t.Errorf("authorization request resource %q, want %q", got, rs.url())
	}
	trs := as.tokenRequests()
	if len(trs) < 2 {
		t.Fatalf("%d token requests, want a code exchange and a refresh", len(trs))
	}
	for _, r := range trs {
		if got := r.form.Get("resource"); got != rs.url() {
			t.Errorf("%s token request resource %q, want %q", r.form.Get("grant_type"), got, rs.url())
		}
	}
}

// TestTokenEndpointAuthMethods checks how the client authenticates at the
// token endpoint: HTTP basic, in the body, or not at all for a public
// client.
func TestTokenEndpointAuthMethods(t *testing.T) {
	for _, tc := range []struct {
		name      string
		client    *Client
		supported []string
		basic     bool
		secret    string // client_secret in the body
	}{
		{"basic", &Client{ID: "c", Secret: "s3cret"}, []string{"client_secret_basic", "client_secret_post"}, true, ""},
		{"basic-by-default", &Client{ID: "c", Secret: "s3cret"}, nil, true, ""},
		{"post", &Client{ID: "c", Secret: "s3cret"}, []string{"client_secret_post"}, false, "s3cret"},
		{"post-forced", &Client{ID: "c", Secret: "s3cret", AuthMethod: "client_secret_post"}, nil, false, "s3cret"},
		{"none", &Client{ID: "c"}, nil, false, ""},
		{"none-with-secret", &Client{ID: "c", Secret: "s3cret", AuthMethod: "none"}, nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t, "as", "")
			as.meta = func(m map[string]any) {
				if tc.supported != nil {
					m["token_endpoint_auth_methods_supported"] = tc.supported
				} else {
					delete(m, "token_endpoint_auth_methods_supported")
				}
			}
			rs := newFakeRS(t, as)
			o := &OAuth{Redirector: &approve{}, Client: tc.client, ClientIssuer: as.issuer()}
			mustCall(t, o, rs.url())
			r := as.tokenRequests()[0]
			id, secret, basic := (&http.Request{Header: r.header}).BasicAuth()
			if basic != tc.basic || basic && (id != "c" || secret != "s3cret") {
				t.Errorf("basic auth %v (%q, %q), want %v", basic, id, secret, tc.basic)
			}
			if got := r.form.Get("client_secret"); got != tc.secret {
				t.Errorf("client_secret in the body %q, want %q", got, tc.secret)
			}
			if !basic && r.form.Get("client_id") != "c" {
				t.Errorf("client_id in the body %q, want c", r.form.Get("client_id"))
			}
		})
	}
}

// TestRefreshTransparent checks that Authorize refreshes an expired access
// token by itself: the request goes with the new token and succeeds at
// once, and the store holds the new token.
func TestRefreshTransparent(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.ttl = 12 * time.Second // valid for 2 s with oauth2's expiry margin of 10 s
	rs := newFakeRS(t, as)
	store := &MemoryStore{}
	o := &OAuth{Redirector: &approve{}, Store: store}
	mustCall(t, o, rs.url())
	if got := as.grantTypes(); !slices.Equal(got, []string{"authorization_code"}) {
		t.Fatalf("token requests %q, want a code exchange", got)
	}
	first, _ := store.Grant(context.Background(), as.issuer(), rs.url(), "as-client-1")
	waitTokenInvalid(t, first.Token)
	req, _ := http.NewRequest(http.MethodGet, rs.url(), nil)
	if err := o.Authorize(req); err != nil {
		t.Fatal(err)
	}
	if got := as.grantTypes(); !slices.Equal(got, []string{"authorization_code", "refresh_token"}) {
		t.Fatalf("token requests %q, want a code exchange and a refresh", got)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HTTP %d with the refreshed token", resp.StatusCode)
	}
	_, sent, _ := strings.Cut(req.Header.Get("Authorization"), " ")
	g, _ := store.Grant(context.Background(), as.issuer(), rs.url(), "as-client-1")
	if g == nil || g.Token.AccessToken != sent || sent == first.Token.AccessToken {
		t.Errorf("stored token %+v, sent %q, want the refreshed one", g, sent)
	}
	if n := len(as.authRequests()); n != 1 {
		t.Errorf("%d authorization requests, want 1", n)
	}
}

// TestStoredGrantRefreshed checks that a new OAuth over a store with an
// expired grant refreshes it on the first 401 instead of signing in again.
func TestStoredGrantRefreshed(t *testing.T) {
	as := newFakeAS(t, "as", "")
	rs := newFakeRS(t, as)
	store := &MemoryStore{}
	mustCall(t, &OAuth{Redirector: &approve{}, Store: store}, rs.url())
	g, _ := store.Grant(context.Background(), as.issuer(), rs.url(), "as-client-1")
	g.Token.Expiry = time.Now().Add(-time.Minute)
	store.SaveGrant(context.Background(), g)
	mustCall(t, &OAuth{Store: store}, rs.url())
	if got := as.grantTypes(); !slices.Equal(got, []string{"authorization_code", "refresh_token"}) {
		t.Errorf("token requests %q, want a code exchange and a refresh", got)
	}
}

// TestLoginRequiredWithoutRedirector checks that OAuth without a
// Redirector and without a stored grant fails with ErrLoginRequired and the
// hint it was given.
func TestLoginRequiredWithoutRedirector(t *testing.T) {
	as := newFakeAS(t, "as", "")
	rs := newFakeRS(t, as)
	_, err := call(&OAuth{LoginHint: "run mcpgen login"}, rs.url())
	if err == nil || !strings.Contains(err.Error(), "run mcpgen login") || !strings.Contains(err.Error(), ErrLoginRequired.Error()) {
		t.Fatalf("error %v, want ErrLoginRequired with the hint", err)
	}
}

// TestCrossOriginRedirectsNotFollowed checks that metadata and token
// requests do not follow a redirect to another origin: the other origin
// never sees the code, the verifier or the client's secret.
func TestCrossOriginRedirectsNotFollowed(t *testing.T) {
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.Path)
		writeJSON(w, http.StatusOK, map[string]any{"access_token": "stolen", "token_type": "Bearer"})
	}))
	defer other.Close()

	t.Run("token", func(t *testing.T) {
		as := newFakeAS(t, "as", "")
		redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/token", http.StatusTemporaryRedirect)
		}))
		defer redirecting.Close()
		as.meta = func(m map[string]any) { m["token_endpoint"] = redirecting.URL + "/token" }
		rs := newFakeRS(t, as)
		o := &OAuth{Redirector: &approve{}, Client: &Client{ID: "c", Secret: "s3cret"}, ClientIssuer: as.issuer()}
		if _, err := call(o, rs.url()); err == nil {
			t.Error("signed in through a redirected token endpoint")
		}
	})
	t.Run("metadata", func(t *testing.T) {
		as := newFakeAS(t, "as", "")
		rs := newFakeRS(t, as)
		rs.prmAt = "none"
		redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == mcpPath {
				rs.ServeHTTP(w, r)
				return
			}
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		}))
		defer redirecting.Close()
		rs.srv = redirecting
		o := &OAuth{Redirector: &approve{}}
		call(o, rs.url())
	})
	if len(seen) != 0 {
		t.Errorf("the other origin got %q", seen)
	}
}

// TestRegistrationAnswerTooLarge checks that a registration answer over
// 1 MiB is an error that says so. It used to be cut at 1 MiB and reported
// as broken JSON.
func TestRegistrationAnswerTooLarge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"client_id":"c","client_name":"` + strings.Repeat("x", maxMetadataSize) + `"}`))
	}))
	defer srv.Close()
	md := &ServerMetadata{Issuer: srv.URL, RegistrationEndpoint: srv.URL + "/register"}
	_, err := register(context.Background(), http.DefaultClient, md, "mcpgen", "http://127.0.0.1:1/callback")
	if err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Fatalf("error %v, want the size limit", err)
	}
}

// TestRefusedRefreshBodyNotLogged checks that a token endpoint refusing a
// refresh with a body that repeats the refresh token does not get it into
// the log. oauth2's error holds the whole body, and it used to be logged as
// it was.
func TestRefusedRefreshBodyNotLogged(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.ttl = 12 * time.Second // valid for 2 s with oauth2's expiry margin of 10 s
	rs := newFakeRS(t, as)
	var logs strings.Builder
	o := &OAuth{Redirector: &approve{}, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	mustCall(t, o, rs.url())
	as.mu.Lock()
	as.refuseRefresh = func(form url.Values) string { return "no such refresh token: " + form.Get("refresh_token") }
	as.mu.Unlock()
	o.mu.Lock()
	tok := o.grant.Token
	o.mu.Unlock()
	waitTokenInvalid(t, tok)
	mustCall(t, o, rs.url())
	if !strings.Contains(logs.String(), "refreshing") {
		t.Fatalf("the failed refresh is not logged: the test proves nothing\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "as-refresh-") {
		t.Errorf("the refresh token shows in the log:\n%s", logs.String())
	}
}
