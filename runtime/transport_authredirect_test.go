package runtime

import (
	"context"
	"net/http"
	"testing"
)

// dpopAuthorizer sets a DPoP-bound token and its proof, as a DPoP
// Authorizer does.
type dpopAuthorizer struct{}

func (dpopAuthorizer) Authorize(req *http.Request) error {
	req.Header.Set("Authorization", "DPoP bound-token-5150")
	req.Header.Set("DPoP", "proof-for-"+req.URL.Host)
	return nil
}

func (dpopAuthorizer) Refused(context.Context, *http.Request, *http.Response) (bool, error) {
	return false, nil
}

// TestRedirectDropsDPoPHeader checks that a redirect to another host drops
// the DPoP proof an Authorizer set along with the Authorization header: the
// proof carries the token's hash and is the token's other half. It used to
// follow the redirect, as Go copies every header but a few it knows.
func TestRedirectDropsDPoPHeader(t *testing.T) {
	checkLeaks(t)
	other := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/final", http.StatusTemporaryRedirect)
		case "/same":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		default:
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		}
	})
	opts := testHTTPOptions(t)
	opts.Authorizer = dpopAuthorizer{}
	for _, path := range []string{"/same", "/away"} {
		c := dial(t, StreamableHTTP(srv.URL+path, opts))
		write(t, c, rpcReq(1, "tools/list", "2025-06-18"))
		readMsg(t, c)
	}
	for _, r := range srv.requests() {
		if r.Path == "/final" && (r.Header.Get("Authorization") == "" || r.Header.Get("DPoP") == "") {
			t.Errorf("same-host redirect lost the credentials: %v", r.Header)
		}
	}
	away := other.requests()
	if len(away) != 1 {
		t.Fatalf("the other host got %d requests", len(away))
	}
	if h := away[0].Header; h.Get("Authorization") != "" || h.Get("DPoP") != "" {
		t.Errorf("a redirect to another host kept the credentials: %v", h)
	}
}
