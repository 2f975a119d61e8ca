package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCredentialBoundToIssuer checks that a client secret or a flow's
// credentials go to the token endpoint of their issuer alone: when the
// server names another authorization server, or no issuer was set for
// them, they are not sent anywhere.
func TestCredentialBoundToIssuer(t *testing.T) {
	honest := newFakeAS(t, "honest", "")
	evil := newFakeAS(t, "evil", "")
	rs := newFakeRS(t, evil)
	for _, tc := range []struct {
		name string
		o    *OAuth
	}{
		{"flow, another issuer", &OAuth{Flow: &ClientCredentials{ID: "ci", Secret: "ci-s3cret"}, ClientIssuer: honest.issuer()}},
		{"flow, no issuer", &OAuth{Flow: &ClientCredentials{ID: "ci", Secret: "ci-s3cret"}}},
		{"client secret, another issuer", &OAuth{Redirector: &approve{}, Client: &Client{ID: "ci", Secret: "ci-s3cret"}, ClientIssuer: honest.issuer()}},
		{"client secret, no issuer", &OAuth{Redirector: &approve{}, Client: &Client{ID: "ci", Secret: "ci-s3cret"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := call(tc.o, rs.url())
			if !errors.Is(err, ErrCredentialIssuer) {
				t.Fatalf("error %v, want ErrCredentialIssuer", err)
			}
			for _, r := range evil.tokenRequests() {
				t.Errorf("the other authorization server got a token request: %v %v", r.form, r.header)
			}
		})
	}
	good := &OAuth{Flow: &ClientCredentials{ID: "ci", Secret: "ci-s3cret"}, ClientIssuer: honest.issuer()}
	mustCall(t, good, newFakeRS(t, honest).url())
}

// TestInsecureEndpointsRefused checks that an authorization server whose
// endpoints are plain http to another host, or one named by plain http, is
// refused for every flow, with an error that says why, and nothing is sent.
func TestInsecureEndpointsRefused(t *testing.T) {
	for _, field := range []string{"token_endpoint", "authorization_endpoint", "registration_endpoint"} {
		for _, flow := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/flow=%v", field, flow), func(t *testing.T) {
				as := newFakeAS(t, "as", "")
				as.meta = func(m map[string]any) { m[field] = "http://as.evil.test/x" }
				o := &OAuth{Redirector: &approve{}}
				if flow {
					o = &OAuth{Flow: &ClientCredentials{ID: "ci", Secret: "ci-s3cret"}, ClientIssuer: as.issuer()}
				}
				_, err := call(o, newFakeRS(t, as).url())
				if !errors.Is(err, ErrInsecureEndpoint) || !strings.Contains(err.Error(), field) {
					t.Fatalf("error %v, want a refusal of the plain http %s", err, field)
				}
			})
		}
	}
	as := newFakeAS(t, "as", "")
	rs := newFakeRS(t, as)
	rs.prm = func(m map[string]any) { m["authorization_servers"] = []string{"http://as.evil.test"} }
	if _, err := call(&OAuth{Redirector: &approve{}}, rs.url()); !errors.Is(err, ErrInsecureEndpoint) {
		t.Fatalf("an issuer over plain http: error %v, want ErrInsecureEndpoint", err)
	}
}

// TestResourceMetadataURLRule checks the rule for the resource_metadata URL
// of a challenge: another origin is fetched only over https from a public
// address, so link-local (a cloud metadata service), loopback and private
// addresses, and plain http, are never asked.
func TestResourceMetadataURLRule(t *testing.T) {
	var asked atomic.Int32
	bystander := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		writeJSON(w, http.StatusOK, map[string]any{"resource": "x"})
	}))
	defer bystander.Close()
	defer func(f func(context.Context, string) ([]netip.Addr, error)) { lookupHost = f }(lookupHost)
	lookupHost = func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "internal.example":
			return []netip.Addr{netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("10.1.2.3")}, nil
		case "public.example":
			return []netip.Addr{netip.MustParseAddr("203.0.113.9")}, nil
		}
		return nil, errors.New("no such host")
	}
	for _, prm := range []string{
		"https://169.254.169.254/latest/meta-data/",
		"http://169.254.169.254/latest/meta-data/",
		bystander.URL + "/prm",
		strings.Replace(bystander.URL, "http:", "https:", 1) + "/prm",
		"https://localhost:1/prm",
		"https://[::1]:1/prm",
		"https://192.168.1.1/prm",
		"https://internal.example/prm",
		"http://public.example/prm",
	} {
		challenge := fmt.Sprintf(`Bearer resource_metadata="%s"`, prm)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		}))
		_, err := call(&OAuth{Redirector: &approve{}}, srv.URL+"/mcp")
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), "refusing to fetch it") {
			t.Errorf("resource_metadata %s: error %v, want a refusal", prm, err)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("a server on another origin of this machine was asked %d times", n)
	}
	srv, _ := url.Parse("https://mcp.example/mcp")
	if _, err := checkResourceMetadataURL(context.Background(), "https://public.example/prm", srv); err != nil {
		t.Errorf("https to a public address: %v", err)
	}
	if _, err := checkResourceMetadataURL(context.Background(), "https://mcp.example/.well-known/x", srv); err != nil {
		t.Errorf("the server's own origin: %v", err)
	}
}

// TestFetchedValuesNotEchoed checks that a value of a fetched document named
// in an error is a short, escaped excerpt: terminal escapes and long text
// the server chose do not reach the user.
func TestFetchedValuesNotEchoed(t *testing.T) {
	as := newFakeAS(t, "as", "")
	rs := newFakeRS(t, as)
	evil := "https://x.example/\x1b]52;c;SGVsbG8=\x07\x1b[2J" + strings.Repeat("A", 5000)
	rs.prm = func(m map[string]any) { m["resource"] = evil }
	_, err := call(&OAuth{Redirector: &approve{}}, rs.url())
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\x1b\x07") || len(msg) > 600 {
		t.Errorf("the error passes on what the server sent (%d bytes): %q", len(msg), msg)
	}
}

// TestPKCEUnadvertised checks that an authorization server whose metadata
// has no code_challenge_methods_supported is refused, with an error that
// names the option that allows it, and that the option does.
func TestPKCEUnadvertised(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.meta = func(m map[string]any) { delete(m, "code_challenge_methods_supported") }
	rs := newFakeRS(t, as)
	_, err := call(&OAuth{Redirector: &approve{}}, rs.url())
	if !errors.Is(err, ErrPKCEUnadvertised) || !strings.Contains(err.Error(), "AllowUnadvertisedPKCE") {
		t.Fatalf("error %v, want ErrPKCEUnadvertised naming AllowUnadvertisedPKCE", err)
	}
	if n := len(as.authRequests()); n != 0 {
		t.Fatalf("%d authorization requests, want none", n)
	}
	mustCall(t, &OAuth{Redirector: &approve{}, AllowUnadvertisedPKCE: true}, rs.url())
	if q := as.authRequests()[0]; q.Get("code_challenge_method") != "S256" {
		t.Errorf("authorization request %v, want a PKCE challenge with S256", q)
	}
}

// TestIdentityProviderInsecureEndpoint checks that the identity provider's
// token endpoint, which receives the user's ID token, is refused over plain
// http to another host.
func TestIdentityProviderInsecureEndpoint(t *testing.T) {
	idp := &IdentityProvider{TokenEndpoint: "http://idp.example/token", IDToken: func(context.Context) (string, error) { return "id-token", nil }}
	_, err := idp.IDJAG(context.Background(), &TokenRequest{Metadata: &ServerMetadata{Issuer: "https://as.example"}, Resource: "https://mcp.example/mcp"})
	if !errors.Is(err, ErrInsecureEndpoint) {
		t.Fatalf("error %v, want ErrInsecureEndpoint", err)
	}
}
