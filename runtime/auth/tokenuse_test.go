package auth

import (
	"context"
	"crypto"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// TestShortLivedTokenWithoutRefreshIsUsed signs in at an authorization
// server that issues tokens for 10 s and no refresh token. The token must
// serve until it expires: it used to count as expired at once, by the 10 s
// margin kept for a refresh that could not happen, so each request went
// without it and started a new sign-in.
func TestShortLivedTokenWithoutRefreshIsUsed(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.ttl = 10 * time.Second
	as.noRefresh = true
	rs := newFakeRS(t, as)
	o := &OAuth{Redirector: &approve{}}
	for range 3 {
		mustCall(t, o, rs.url())
	}
	if n := len(as.authRequests()); n != 1 {
		t.Errorf("%d sign-ins for three requests, want 1; token requests %q", n, as.grantTypes())
	}
}

// TestRefreshedTokenKeepsItsDPoPKey refreshes a stored bearer grant at an
// authorization server that has come to support DPoP, which binds the new
// token, and its refresh token, to the key of the refresh's proof. The
// store must keep that key with the token: it used to keep the grant
// without it, so the next process signed its proofs with a key of its own,
// had the token refused, could not refresh it either, and had to sign in
// again.
func TestRefreshedTokenKeepsItsDPoPKey(t *testing.T) {
	for _, where := range []string{"stored", "in use"} {
		t.Run(where, func(t *testing.T) {
			as := newFakeAS(t, "as", "")
			rs := newFakeRS(t, as)
			store := &FileStore{Dir: t.TempDir()}
			first := &OAuth{Redirector: &approve{}, Store: store}
			mustCall(t, first, rs.url())
			as.mu.Lock()
			as.dpop = true
			as.meta = func(m map[string]any) { m["dpop_signing_alg_values_supported"] = []string{"ES256"} }
			as.mu.Unlock()
			first.mu.Lock()
			g := *first.grant
			first.mu.Unlock()
			if g.DPoPKey != nil || !strings.EqualFold(g.Token.Type(), "Bearer") {
				t.Fatalf("the first grant is a %s token, with a key: %v", g.Token.Type(), g.DPoPKey != nil)
			}

			second := &OAuth{Store: store}
			if where == "stored" {
				// The stored token has expired: the next process
				// refreshes it as it takes the grant.
				tok := *g.Token
				tok.Expiry = time.Now().Add(-time.Minute)
				g.Token = &tok
				if err := store.SaveGrant(context.Background(), &g); err != nil {
					t.Fatal(err)
				}
				mustCall(t, second, rs.url())
			} else {
				// The token expires while the process uses it.
				mustCall(t, second, rs.url())
				second.mu.Lock()
				second.src.grant.Token.Expiry = time.Now().Add(-time.Minute)
				second.mu.Unlock()
				mustCall(t, second, rs.url())
			}
			if got := as.grantTypes(); len(got) != 2 || got[1] != "refresh_token" {
				t.Fatalf("token requests %q, want a sign-in and a refresh", got)
			}

			// The next process signs its proofs with the stored key.
			third := &OAuth{Store: store}
			if status, err := call(third, rs.url()); status != http.StatusOK || err != nil {
				t.Errorf("the next process: HTTP %d, %v", status, err)
			}
			if got := as.grantTypes(); len(got) != 2 {
				t.Errorf("token requests %q, want no more after the refresh", got)
			}
			stored, err := store.Grant(context.Background(), g.Issuer, g.Resource, g.ClientID)
			if err != nil || stored == nil {
				t.Fatalf("the stored grant: %v, %v", stored, err)
			}
			bound, ok := as.valid(stored.Token.AccessToken)
			if !ok || bound.jkt == "" {
				t.Fatalf("the stored token is not the bound one the refresh issued")
			}
			if stored.DPoPKey == nil {
				t.Fatalf("the store keeps the %s token without the key it is bound to", stored.Token.Type())
			}
			k, err := parseDPoPKey(stored.DPoPKey)
			if err != nil {
				t.Fatal(err)
			}
			tp, err := (&jose.JSONWebKey{Key: k.key.Public()}).Thumbprint(crypto.SHA256)
			if err != nil {
				t.Fatal(err)
			}
			if base64.RawURLEncoding.EncodeToString(tp) != bound.jkt {
				t.Errorf("the stored key is not the one the token is bound to")
			}
		})
	}
}

// TestUnknownTokenTypeRefused signs in at an authorization server that
// issues tokens of a type this client cannot send. The sign-in must fail,
// naming the type: the token used to be sent as a bearer token.
func TestUnknownTokenTypeRefused(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.tokenType = "MAC"
	rs := newFakeRS(t, as)
	o := &OAuth{Redirector: &approve{}}
	status, err := call(o, rs.url())
	if err == nil || !strings.Contains(err.Error(), `"MAC"`) {
		t.Errorf("GET: HTTP %d, error %v; want an error naming the token type \"MAC\"", status, err)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, h := range rs.headers {
		if a := h.Get("Authorization"); a != "" {
			t.Errorf("the server got the token: Authorization %q", a)
		}
	}
}

// TestStepUpBeyondConfiguredScopes asks for configured scopes (Scopes, as
// mcpgen login --scope sets) at a server that then asks for more with 403
// insufficient_scope. The step up must ask for both: it used to ask for the
// configured scopes alone, which the server refused again.
func TestStepUpBeyondConfiguredScopes(t *testing.T) {
	as := newFakeAS(t, "as", "")
	rs := newFakeRS(t, as)
	rs.require = []string{"files:read", "files:write"}
	o := &OAuth{Redirector: &approve{}, Scopes: []string{"files:read"}}
	mustCall(t, o, rs.url())
	reqs := as.authRequests()
	last := strings.Fields(reqs[len(reqs)-1].Get("scope"))
	for _, s := range rs.require {
		if !slices.Contains(last, s) {
			t.Errorf("the step up asked for %q, want %q among them", last, s)
		}
	}
}

// TestDPoPTokenWithoutProofRefused has an authorization server that does
// not advertise DPoP issue a token of type DPoP to a request that carried
// no proof, at sign-in and at a refresh. The token is bound to no key of
// this client, so it cannot be sent with a proof, and sent as a bearer
// token it is refused: the sign-in, or the refresh, must fail saying so.
// The token used to be sent as a bearer token.
func TestDPoPTokenWithoutProofRefused(t *testing.T) {
	for _, when := range []string{"sign-in", "refresh"} {
		t.Run(when, func(t *testing.T) {
			as := newFakeAS(t, "as", "")
			rs := newFakeRS(t, as)
			o := &OAuth{Redirector: &approve{}}
			if when == "refresh" {
				mustCall(t, o, rs.url())
				o.mu.Lock()
				o.src.grant.Token.Expiry = time.Now().Add(-time.Minute)
				o.mu.Unlock()
			}
			as.mu.Lock()
			as.tokenType = "DPoP"
			as.mu.Unlock()
			rs.mu.Lock()
			known := map[string]bool{"": true}
			for _, h := range rs.headers {
				known[h.Get("Authorization")] = true
			}
			rs.mu.Unlock()
			status, err := call(o, rs.url())
			if err == nil || !strings.Contains(err.Error(), `"DPoP"`) || !strings.Contains(err.Error(), "proof") {
				t.Errorf("GET: HTTP %d, error %v; want an error saying a DPoP token came without a proof", status, err)
			}
			rs.mu.Lock()
			defer rs.mu.Unlock()
			for _, h := range rs.headers {
				if a := h.Get("Authorization"); !known[a] {
					t.Errorf("the server got the DPoP token: Authorization %q", a)
				}
			}
		})
	}
}

// TestStoredGrantWithoutItsKeyNotSent loads a stored DPoP grant whose key
// is missing (a store written by hand, or by an older client). Its token
// cannot be sent: it used to go out once as a bearer token, which the
// server refused, before a new sign-in. It must not reach the server; the
// process signs in again at once.
func TestStoredGrantWithoutItsKeyNotSent(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.dpop = true
	as.meta = func(m map[string]any) { m["dpop_signing_alg_values_supported"] = []string{"ES256"} }
	rs := newFakeRS(t, as)
	store := &FileStore{Dir: t.TempDir()}
	first := &OAuth{Redirector: &approve{}, Store: store}
	mustCall(t, first, rs.url())
	first.mu.Lock()
	g := *first.grant
	first.mu.Unlock()
	if g.DPoPKey == nil || !strings.EqualFold(g.Token.Type(), "DPoP") {
		t.Fatalf("the first grant is a %s token, with a key: %v", g.Token.Type(), g.DPoPKey != nil)
	}
	g.DPoPKey = nil
	if err := store.SaveGrant(context.Background(), &g); err != nil {
		t.Fatal(err)
	}
	rs.mu.Lock()
	rs.headers = nil
	rs.mu.Unlock()

	second := &OAuth{Redirector: &approve{}, Store: store}
	mustCall(t, second, rs.url())
	if n := len(as.authRequests()); n != 2 {
		t.Errorf("%d sign-ins, want 2: the second process signs in again", n)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, h := range rs.headers {
		if a := h.Get("Authorization"); strings.Contains(a, g.Token.AccessToken) {
			t.Errorf("the server got the stored token without its proof: Authorization %q", a)
		}
	}
}
