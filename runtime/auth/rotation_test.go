package auth

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// rotateRefreshTokens makes as spend each refresh token on its first use,
// as OAuth 2.1 asks of public clients, and answer a spent one as a stolen
// token: invalid_grant, with every token it issued revoked.
func rotateRefreshTokens(as *fakeAS) {
	var mu sync.Mutex
	spent := map[string]bool{}
	as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") && r.ParseForm() == nil && r.PostForm.Get("grant_type") == "refresh_token" {
			rt := r.PostForm.Get("refresh_token")
			mu.Lock()
			reused := spent[rt]
			spent[rt] = true
			mu.Unlock()
			if reused {
				as.mu.Lock()
				as.access, as.refresh = nil, nil
				as.mu.Unlock()
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "refresh token reused: grant revoked"})
				return
			}
		}
		as.ServeHTTP(w, r)
	})
}

// TestRefreshAfterAnotherSessionRefreshed runs two sessions on one stored
// grant, as two mcpgen commands or two programs with one FileStore do,
// against an authorization server that rotates refresh tokens. Once the
// access token expires, the first session refreshes it and stores the new
// refresh token; the second must then take the stored grant rather than
// spend its old refresh token again, which the server takes for a stolen
// one, revoking the grant of both and leaving a new sign-in as the only way
// back.
func TestRefreshAfterAnotherSessionRefreshed(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.ttl = 12 * time.Second // valid for 2 s with oauth2's expiry margin of 10 s
	rotateRefreshTokens(as)
	rs := newFakeRS(t, as)
	store := &FileStore{Dir: t.TempDir()}
	first := &OAuth{Redirector: &approve{}, Store: store}
	mustCall(t, first, rs.url())
	second := &OAuth{Store: store}
	mustCall(t, second, rs.url())

	first.mu.Lock()
	tok := first.grant.Token
	first.mu.Unlock()
	waitTokenInvalid(t, tok)
	mustCall(t, first, rs.url())
	mustCall(t, second, rs.url())
	mustCall(t, first, rs.url())
	if got := as.grantTypes(); slices.Index(got, "authorization_code") != 0 || slices.Contains(got[1:], "authorization_code") {
		t.Errorf("token requests %q, want one sign-in, then refreshes", got)
	}
}
