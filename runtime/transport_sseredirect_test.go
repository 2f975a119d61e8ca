package runtime

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestSSERedirectKeepsCredentialsHome checks that a legacy HTTP+SSE
// stream redirected to another host does not lead the bearer token and the
// user's headers there: the redirect policy drops them from the GET, and
// the POSTs to the endpoint that the other host names must not carry them
// either.
func TestSSERedirectKeepsCredentialsHome(t *testing.T) {
	checkLeaks(t)
	t.Setenv("MCPGEN_TEST_TOKEN", "sse-redirect-token-1234")
	other := newSSEServer(t)
	front := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/sse", http.StatusFound)
	})
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_TOKEN"
	opts.Header = http.Header{"X-Api-Key": {"sse-header-secret-42"}}
	c, err := SSE(front.URL+"/sse", opts).Connect(context.Background())
	if err == nil {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5e9)
		defer cancel()
		c.Write(ctx, rpcReq(1, "initialize", ""))
		c.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "redirected to another host") {
		t.Errorf("Connect error = %v, want the endpoint refused for the redirect", err)
	}
	for _, r := range other.requests() {
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Api-Key") != "" {
			t.Errorf("%s %s on the host the stream was redirected to carried the credentials: Authorization %q, X-Api-Key %q",
				r.Method, r.Path, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
		}
	}
}
