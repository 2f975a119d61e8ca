package auth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/auth"
)

// TestInsufficientScopeForever checks, through runtime.Connect, that a
// server answering 403 insufficient_scope to every token ends the request
// in an *runtime.AuthError after runtime.MaxAuthRetries sign-ins, instead of
// signing in again and again.
func TestInsufficientScopeForever(t *testing.T) {
	var asURL string
	var authz, mcp atomic.Int32
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	asURL = srv.URL + "/as"
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL+"/mcp", asURL)
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server/as", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":%q,"token_endpoint":%q,"code_challenge_methods_supported":["S256"]}`, asURL, asURL+"/authorize", asURL+"/token")
	})
	mux.HandleFunc("GET /as/authorize", func(w http.ResponseWriter, r *http.Request) {
		authz.Add(1)
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c&state="+q.Get("state"), http.StatusFound)
	})
	mux.HandleFunc("POST /as/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"tok","token_type":"Bearer","expires_in":3600}`)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		mcp.Add(1)
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer scope="read"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
		w.WriteHeader(http.StatusForbidden)
	})
	o := &auth.OAuth{
		Client:     &auth.Client{ID: "c"},
		Redirector: &auth.Loopback{Open: auth.FollowRedirects(nil), Timeout: time.Minute},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := runtime.Connect(ctx, runtime.StreamableHTTP(srv.URL+"/mcp", &runtime.HTTPOptions{Authorizer: o}), nil)
	if err == nil {
		s.Close()
		t.Fatal("connected to a server that refuses every token")
	}
	var ae *runtime.AuthError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusForbidden {
		t.Fatalf("error %v, want a 403 *runtime.AuthError", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("gave up only at the deadline: %v", err)
	}
	if n := authz.Load(); n != runtime.MaxAuthRetries {
		t.Errorf("%d sign-ins, want runtime.MaxAuthRetries = %d", n, runtime.MaxAuthRetries)
	}
	if n := mcp.Load(); n > runtime.MaxAuthRetries+1 {
		t.Errorf("%d requests to the server, want at most %d", n, runtime.MaxAuthRetries+1)
	}
	if !strings.Contains(err.Error(), "403") {
		t.Errorf("error %q does not name the status", err)
	}
}
