package cli

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestLoginRedirectKeepsHeaders checks that mcpgen login follows the
// transports' redirect rule: a redirect to another host does not carry the
// --header values there.
func TestLoginRedirectKeepsHeaders(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if v := r.Header.Get("X-Api-Key"); v != "" {
			leaked = append(leaked, r.Method+" "+v)
		}
		mu.Unlock()
		http.Error(w, "nothing here", http.StatusNotFound)
	}))
	defer other.Close()
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer server.Close()
	run(t, "", "login", "--no-browser", "--timeout", "30s", "--url", server.URL+"/mcp", "--header", "X-Api-Key: key-for-the-server-only")
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Errorf("the other host got the --header value: %q", leaked)
	}
}
