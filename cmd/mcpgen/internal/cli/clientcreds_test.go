package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestClientCredentials reaches a server whose authorization server issues
// tokens by the client credentials grant, with a secret from the
// environment and with a private key file, with no login; the secret and
// the tokens never show, not even with -v or in the snapshot.
func TestClientCredentials(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const secret = "ci-client-5ecret-value"
	t.Setenv("MCPGEN_TEST_CLIENT_SECRET", secret)
	backend, err := url.Parse(testenv.ServeSDK(t, false))
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: backend.Scheme, Host: backend.Host})
			r.Out.URL.Path = backend.Path
		},
		FlushInterval: -1,
	}
	var mu sync.Mutex
	issued := map[string]bool{}
	var tokens []string
	assertions := 0
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("/api/mcp", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ok := issued[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/api/mcp"`, srv.URL))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/api/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":"%s/api/mcp","authorization_servers":["%s"]}`, srv.URL, srv.URL)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":"%s","token_endpoint":"%s/token","token_endpoint_auth_methods_supported":["client_secret_basic","private_key_jwt"],"grant_types_supported":["client_credentials"]}`, srv.URL, srv.URL)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		id, sec, basic := r.BasicAuth()
		jwt := r.PostForm.Get("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" &&
			strings.Count(r.PostForm.Get("client_assertion"), ".") == 2 && r.PostForm.Get("client_id") == "ci"
		if r.PostForm.Get("grant_type") != "client_credentials" || !(basic && id == "ci" && sec == secret || jwt) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"invalid_client"}`)
			return
		}
		mu.Lock()
		tok := fmt.Sprintf("cc-access-%d-token", len(tokens))
		issued[tok] = true
		tokens = append(tokens, tok)
		if jwt {
			assertions++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":600}`, tok)
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	endpoint := srv.URL + "/api/mcp"

	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "ci-key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}

	var all strings.Builder
	withSecret := []string{"--url", endpoint, "--client-id", "ci", "--issuer", srv.URL, "--client-secret-env", "MCPGEN_TEST_CLIENT_SECRET"}
	code, out, errOut := run(t, "", append([]string{"tools", "-v"}, withSecret...)...)
	all.WriteString(out + errOut)
	if code != 0 || !strings.Contains(out, "echo") {
		t.Fatalf("tools with a client secret: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	snap := filepath.Join(dir, "snap.json")
	code, out, errOut = run(t, "", append([]string{"snapshot", "-v", "--out", snap}, withSecret...)...)
	all.WriteString(out + errOut)
	data, _ := os.ReadFile(snap)
	all.Write(data)
	if code != 0 || len(data) == 0 {
		t.Fatalf("snapshot with a client secret: exit %d, stderr %q", code, errOut)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	code, out, errOut = run(t, "", "call", "-v", "--url", endpoint, "--client-id", "ci", "--issuer", srv.URL, "--client-key", keyFile, "echo", `{"message":"signed"}`)
	all.WriteString(out + errOut)
	if code != 0 || out != "signed\n" || assertions == 0 {
		t.Fatalf("call with a client key: exit %d, stdout %q, stderr %q, %d assertions", code, out, errOut, assertions)
	}
	for _, s := range append(tokens, secret) {
		if strings.Contains(all.String(), s) {
			t.Errorf("the output shows the secret %s", s)
		}
	}
}

// TestOAuthFlagsUsage checks how the OAuth flags combine with the others.
func TestOAuthFlagsUsage(t *testing.T) {
	t.Setenv("MCPGEN_TEST_EMPTY", "")
	key := filepath.Join(t.TempDir(), "not-a-key.pem")
	os.WriteFile(key, []byte("not a key"), 0o600)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "--url", "http://127.0.0.1:1/mcp", "--client-secret-env", "X"}, "need --client-id"},
		{[]string{"tools", "--url", "http://127.0.0.1:1/mcp", "--client-id", "a", "--client-secret-env", "X", "--client-key", "k"}, "not both"},
		{[]string{"tools", "--url", "http://127.0.0.1:1/mcp", "--client-id", "a", "--bearer-env", "X"}, "fixed token"},
		{[]string{"tools", "--url", "http://127.0.0.1:1/mcp", "--scope", "a", "--header", "Authorization: Bearer x"}, "fixed token"},
		{[]string{"tools", "--client-id", "a", "--", "server"}, "not to a server command"},
		{[]string{"tools", "--url", "http://127.0.0.1:1/mcp", "--client-id", "a", "--issuer", "https://as.example", "--client-secret-env", "MCPGEN_TEST_EMPTY"}, "MCPGEN_TEST_EMPTY: the variable is unset or empty"},
		{[]string{"tools", "--url", "http://127.0.0.1:1/mcp", "--client-id", "a", "--issuer", "https://as.example", "--client-key", key}, "no PEM block"},
		{[]string{"tools", "--url", "http://127.0.0.1:1/mcp", "--client-id", "a", "--client-secret-env", "X"}, "need --issuer"},
		{[]string{"tools", "--url", "http://127.0.0.1:1/mcp", "--client-id", "a", "--issuer", "as.example", "--client-key", key}, "--issuer wants"},
		{[]string{"tools", "--url", "http://127.0.0.1:1/mcp", "--client-metadata-url", "ftp://x/"}, "https:// URL"},
		{[]string{"login", "--", "server"}, "login is for --url and --sse"},
		{[]string{"login", "--url", "http://127.0.0.1:1/mcp", "--bearer-env", "X"}, "nothing to sign in to"},
		{[]string{"logout"}, "no server given"},
		{[]string{"snapshot", "--config", "x.yaml", "--client-id", "a"}, "the OAuth flags"},
	} {
		code, _, errOut := run(t, "", tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
