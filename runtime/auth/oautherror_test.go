package auth

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// refuseTokens makes as answer the token requests of grant type grant, while
// on is set, with HTTP 400 and the OAuth error whose error_description
// describe returns for the request's form.
func refuseTokens(as *fakeAS, grant string, on *atomic.Bool, describe func(r *http.Request) string) {
	as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if on.Load() && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") && r.ParseForm() == nil && r.PostForm.Get("grant_type") == grant {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": describe(r)})
			return
		}
		as.ServeHTTP(w, r)
	})
}

// TestRefusedRefreshDescriptionNotLogged checks that a token endpoint
// refusing a refresh with an OAuth error whose error_description repeats
// the refresh token does not get it into the log, as the package promises
// of every refresh token. Only the body that is not an OAuth error was kept
// out of it.
func TestRefusedRefreshDescriptionNotLogged(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.ttl = 12 * time.Second // valid for 2 s with oauth2's expiry margin of 10 s
	var refuse atomic.Bool
	refuseTokens(as, "refresh_token", &refuse, func(r *http.Request) string {
		return "no such refresh token: " + r.PostForm.Get("refresh_token")
	})
	rs := newFakeRS(t, as)
	var logs strings.Builder
	o := &OAuth{Redirector: &approve{}, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	mustCall(t, o, rs.url())
	o.mu.Lock()
	tok := o.grant.Token
	o.mu.Unlock()
	refuse.Store(true)
	waitTokenInvalid(t, tok)
	mustCall(t, o, rs.url())
	if !strings.Contains(logs.String(), "no such refresh token") {
		t.Fatalf("the refused refresh is not logged with its description: the test proves nothing\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "as-refresh-") {
		t.Errorf("the refresh token shows in the log:\n%s", logs.String())
	}
}

// TestTokenEndpointErrorQuoted checks the error of a code exchange that a
// token endpoint refuses with an error_description of 512 KiB that starts
// with terminal escapes and repeats the code: the error shows the
// description quoted and cut, as every text a server sends, and not the
// code.
func TestTokenEndpointErrorQuoted(t *testing.T) {
	as := newFakeAS(t, "as", "")
	var refuse atomic.Bool
	refuse.Store(true)
	refuseTokens(as, "authorization_code", &refuse, func(r *http.Request) string {
		return fmt.Sprintf("\x1b]0;pwned\x07\x1b[2J bad code %s %s", r.PostForm.Get("code"), strings.Repeat("x", 512<<10))
	})
	rs := newFakeRS(t, as)
	o := &OAuth{Redirector: &approve{}}
	_, err := call(o, rs.url())
	if err == nil {
		t.Fatal("the sign-in succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "bad code") {
		t.Fatalf("the error does not show the description: the test proves nothing: %.300q", msg)
	}
	if len(msg) > 1000 {
		t.Errorf("the error is %d bytes long: %.300q", len(msg), msg)
	}
	if strings.ContainsAny(msg, "\x1b\x07") {
		t.Errorf("the error holds raw terminal escapes: %.300q", msg)
	}
	if strings.Contains(msg, "as-code-") {
		t.Errorf("the error shows the code: %.300q", msg)
	}
}

// TestAuthorizationServerErrorsQuoted checks the errors of a sign-in that
// the authorization server refuses, with an error_description of 512 KiB
// that starts with terminal escapes: in the authorization response, and in
// the answer to a dynamic registration. Each error shows the description
// quoted and cut, as every text a server sends.
func TestAuthorizationServerErrorsQuoted(t *testing.T) {
	evil := "\x1b]0;pwned\x07\x1b[2J refused " + strings.Repeat("x", 512<<10)
	for _, tc := range []struct {
		name  string
		setup func(as *fakeAS, a *approve)
	}{
		{"authorization response", func(as *fakeAS, a *approve) {
			a.tamper = func(q url.Values) {
				q.Del("code")
				q.Set("error", "access_denied")
				q.Set("error_description", evil)
			}
		}},
		{"registration", func(as *fakeAS, a *approve) {
			as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/register") {
					writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client_metadata", "error_description": evil})
					return
				}
				as.ServeHTTP(w, r)
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t, "as", "")
			a := &approve{}
			tc.setup(as, a)
			rs := newFakeRS(t, as)
			_, err := call(&OAuth{Redirector: a}, rs.url())
			if err == nil {
				t.Fatal("the sign-in succeeded")
			}
			msg := err.Error()
			if !strings.Contains(msg, "refused") {
				t.Fatalf("the error does not show the description: the test proves nothing: %.300q", msg)
			}
			if len(msg) > 1000 {
				t.Errorf("the error is %d bytes long: %.300q", len(msg), msg)
			}
			if strings.ContainsAny(msg, "\x1b\x07") {
				t.Errorf("the error holds raw terminal escapes: %.300q", msg)
			}
		})
	}
}
