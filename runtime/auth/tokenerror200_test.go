package auth

import (
	"net/http"
	"strings"
	"testing"
)

// TestTokenEndpointErrorWithStatus200 checks a token endpoint that refuses
// the code with HTTP 200 and an OAuth error body, as some servers do
// against RFC 6749 section 5.2: the sign-in fails with the server's error,
// quoted, rather than taking the body for a token without access_token.
func TestTokenEndpointErrorWithStatus200(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") {
			writeJSON(w, http.StatusOK, map[string]any{"error": "invalid_grant", "error_description": "\x1b[2J code already used"})
			return
		}
		as.ServeHTTP(w, r)
	})
	rs := newFakeRS(t, as)
	_, err := call(&OAuth{Redirector: &approve{}}, rs.url())
	if err == nil {
		t.Fatal("the sign-in succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "invalid_grant") || !strings.Contains(msg, "code already used") {
		t.Errorf("the error does not carry the server's OAuth error: %.300q", msg)
	}
	if strings.ContainsAny(msg, "\x1b") {
		t.Errorf("the error holds raw terminal escapes: %.300q", msg)
	}
}
