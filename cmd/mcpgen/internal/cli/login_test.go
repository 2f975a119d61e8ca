package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// homeAssistant imitates the OAuth side of Home Assistant's MCP server in
// front of the go-sdk server: no protected resource metadata, authorization
// server metadata without an issuer and with relative endpoints, client ID
// metadata documents advertised and no registration endpoint, and
// IndieAuth's rule that the redirect URI shares the client ID's origin.
type homeAssistant struct {
	*httptest.Server
	mu       sync.Mutex
	n        int
	codes    map[string]string // code -> client ID
	access   map[string]bool
	refresh  map[string]string // refresh token -> client ID
	secrets  []string          // every token and code issued
	refusals int               // authorize requests refused
}

func newHomeAssistant(t *testing.T) *homeAssistant {
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
	ha := &homeAssistant{codes: map[string]string{}, access: map[string]bool{}, refresh: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/mcp", func(w http.ResponseWriter, r *http.Request) {
		ha.mu.Lock()
		ok := ha.access[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		ha.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"authorization_endpoint":"/auth/authorize","token_endpoint":"/auth/token","revocation_endpoint":"/auth/revoke","client_id_metadata_document_supported":true,"response_types_supported":["code"],"service_documentation":"https://developers.home-assistant.io/docs/auth_api"}`)
	})
	mux.HandleFunc("/auth/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		client, err1 := url.Parse(q.Get("client_id"))
		redirect, err2 := url.Parse(q.Get("redirect_uri"))
		if err1 != nil || err2 != nil || client.Scheme != redirect.Scheme || client.Host != redirect.Host || q.Get("code_challenge") == "" {
			ha.mu.Lock()
			ha.refusals++
			ha.mu.Unlock()
			http.Error(w, "invalid client id or redirect url", http.StatusBadRequest)
			return
		}
		code := ha.issue("code")
		ha.mu.Lock()
		ha.codes[code] = q.Get("client_id")
		ha.mu.Unlock()
		back := *redirect
		back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("/auth/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		client := r.PostForm.Get("client_id")
		ha.mu.Lock()
		var ok bool
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			ok = ha.codes[r.PostForm.Get("code")] == client && client != ""
			delete(ha.codes, r.PostForm.Get("code"))
		case "refresh_token":
			ok = ha.refresh[r.PostForm.Get("refresh_token")] == client && client != ""
		}
		ha.mu.Unlock()
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		tok, ref := ha.issue("access"), r.PostForm.Get("refresh_token")
		if ref == "" {
			ref = ha.issue("refresh")
		}
		ha.mu.Lock()
		ha.access[tok] = true
		ha.refresh[ref] = client
		ha.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":1800,"refresh_token":%q}`, tok, ref)
	})
	ha.Server = httptest.NewServer(mux)
	t.Cleanup(ha.Close)
	return ha
}

// issue returns a new secret of kind.
func (ha *homeAssistant) issue(kind string) string {
	ha.mu.Lock()
	defer ha.mu.Unlock()
	ha.n++
	s := fmt.Sprintf("ha-%s-%d-5ecret", kind, ha.n)
	ha.secrets = append(ha.secrets, s)
	return s
}

// expire makes every access token invalid; with refreshToo, the refresh
// tokens as well, as revoking the sign-in does.
func (ha *homeAssistant) expire(refreshToo bool) {
	ha.mu.Lock()
	defer ha.mu.Unlock()
	ha.access = map[string]bool{}
	if refreshToo {
		ha.refresh = map[string]string{}
	}
}

func (ha *homeAssistant) noSecrets(t *testing.T, what, text string) {
	t.Helper()
	ha.mu.Lock()
	defer ha.mu.Unlock()
	for _, s := range ha.secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s: the output shows the secret %s", what, s)
		}
	}
}

// lockedBuffer is a bytes.Buffer written and read concurrently.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// loginBrowsing runs mcpgen login with args and, when it prints an authorization
// URL, fetches it as a browser would.
func loginBrowsing(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return loginSlowly(t, 0, args...)
}

// loginSlowly is loginBrowsing with a person who takes delay to sign in.
func loginSlowly(t *testing.T, delay time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(append([]string{"login", "--no-browser", "--timeout", "20s"}, args...), strings.NewReader(""), &out, &errOut)
	}()
	fetched := false
	for {
		select {
		case code := <-done:
			return code, out.String(), errOut.String()
		case <-time.After(20 * time.Millisecond):
		}
		if fetched {
			continue
		}
		for _, line := range strings.Split(errOut.String(), "\n") {
			if strings.HasPrefix(line, "http") && strings.Contains(line, "authorize?") {
				fetched = true
				time.Sleep(delay)
				resp, err := http.Get(line)
				if err != nil {
					t.Errorf("following the authorization URL: %v", err)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	}
}

func grantFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "mcpgen", "auth", "grants", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestHomeAssistantSignIn signs in to a server that serves Home
// Assistant's authorization metadata: mcpgen refuses the metadata without
// an issuer unless told, names --client-metadata-url where no registration
// is offered, signs in with the redirect port the client ID names, uses and
// refreshes the token, asks for a new sign-in once it is revoked, and signs
// out; no token or code ever shows.
func TestHomeAssistantSignIn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ha := newHomeAssistant(t)
	endpoint := ha.URL + "/api/mcp"
	port := testenv.FreePort(t)
	clientID := fmt.Sprintf("http://127.0.0.1:%d/", port)
	var all strings.Builder
	record := func(parts ...string) {
		for _, p := range parts {
			all.WriteString(p)
		}
	}

	code, out, errOut := run(t, "", "tools", "--url", endpoint)
	record(out, errOut)
	if code != 1 || !strings.Contains(errOut, "has no issuer") || !strings.Contains(errOut, "--allow-missing-issuer") {
		t.Fatalf("tools without --allow-missing-issuer: exit %d, stderr %q; want 1 and a hint to --allow-missing-issuer", code, errOut)
	}
	code, out, errOut = loginBrowsing(t, "--url", endpoint, "--allow-missing-issuer", "--allow-unadvertised-pkce")
	record(out, errOut)
	if code != 1 || !strings.Contains(errOut, "--client-metadata-url") {
		t.Fatalf("login without a client: exit %d, stderr %q; want 1 and a hint to --client-metadata-url", code, errOut)
	}
	// The browser stays on the server's error page: the wait ends with
	// the --timeout.
	// Its metadata lists no code_challenge_methods_supported: refused
	// unless told, with the flag named.
	code, out, errOut = loginBrowsing(t, "--url", endpoint, "--allow-missing-issuer", "--client-metadata-url", clientID, "--redirect-port", fmt.Sprint(port))
	record(out, errOut)
	if code != 1 || !strings.Contains(errOut, "--allow-unadvertised-pkce") {
		t.Fatalf("login without --allow-unadvertised-pkce: exit %d, stderr %q; want 1 and a hint to --allow-unadvertised-pkce", code, errOut)
	}
	code, out, errOut = loginBrowsing(t, "--url", endpoint, "--allow-missing-issuer", "--allow-unadvertised-pkce", "--client-metadata-url", clientID, "--timeout", "2s")
	record(out, errOut)
	if code != 1 || ha.refusals != 1 {
		t.Fatalf("login on a random port: exit %d, %d refusals, stderr %q; want the server to refuse the redirect URI", code, ha.refusals, errOut)
	}

	flags := []string{"--url", endpoint, "--allow-missing-issuer", "--allow-unadvertised-pkce", "--client-metadata-url", clientID}
	code, out, errOut = loginBrowsing(t, append(flags, "-v", "--redirect-port", fmt.Sprint(port))...)
	record(out, errOut)
	if code != 0 || !strings.Contains(out, "Signed in to "+endpoint) || len(grantFiles(t)) != 1 {
		t.Fatalf("login: exit %d, stdout %q, stderr %q, %d grants", code, out, errOut, len(grantFiles(t)))
	}
	code, out, errOut = run(t, "", append([]string{"call", "-v", "echo", `{"message":"hi"}`}, flags...)...)
	record(out, errOut)
	if code != 0 || out != "hi\n" {
		t.Fatalf("call after login: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// An access token the server stopped accepting is refreshed, and the
	// new one stored.
	before, _ := os.ReadFile(grantFiles(t)[0])
	ha.expire(false)
	code, out, errOut = run(t, "", append([]string{"tools", "-v"}, flags...)...)
	record(out, errOut)
	if code != 0 || !strings.Contains(out, "echo") {
		t.Fatalf("tools with a stale access token: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if after, _ := os.ReadFile(grantFiles(t)[0]); bytes.Equal(before, after) {
		t.Error("the refreshed token was not stored")
	}

	// A revoked sign-in: the command says how to sign in again.
	ha.expire(true)
	code, out, errOut = run(t, "", append([]string{"tools"}, flags...)...)
	record(out, errOut)
	want := "mcpgen login --url " + endpoint + " --client-metadata-url " + clientID + " --allow-missing-issuer --allow-unadvertised-pkce"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Fatalf("tools after revocation: exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}

	code, out, errOut = run(t, "", "logout", "--url", endpoint)
	record(out, errOut)
	if code != 0 || len(grantFiles(t)) != 0 {
		t.Fatalf("logout: exit %d, stdout %q, stderr %q, %d grants left", code, out, errOut, len(grantFiles(t)))
	}
	ha.noSecrets(t, "the commands", all.String())
}

// TestHomeAssistantConfig signs in to the Home Assistant imitation through
// the auth block of mcpgen.yaml, and captures its snapshot with the stored
// token.
func TestHomeAssistantConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ha := newHomeAssistant(t)
	port := testenv.FreePort(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpgen.yaml")
	yaml := fmt.Sprintf(`servers:
  home:
    snapshot: home.json
    url: %s/api/mcp
    auth:
      client_metadata_url: http://127.0.0.1:%d/
      redirect_port: %d
      allow_missing_issuer: true
      allow_unadvertised_pkce: true
`, ha.URL, port, port)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "", "snapshot", "--config", cfg)
	want := "mcpgen login --config " + cfg + " --server home"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Fatalf("snapshot before login: exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
	code, out, errOut := loginBrowsing(t, "--config", cfg)
	if code != 0 || !strings.Contains(out, "Signed in to ") {
		t.Fatalf("login --config: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = run(t, "", "snapshot", "--config", cfg)
	if code != 0 {
		t.Fatalf("snapshot after login: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "home.json")); err != nil || !bytes.Contains(data, []byte(`"echo"`)) {
		t.Fatalf("the snapshot: %v\n%s", err, data)
	}
	ha.noSecrets(t, "snapshot", out+errOut)
	code, out, _ = run(t, "", "logout", "--config", cfg)
	if code != 0 || !strings.Contains(out, "1 stored grant(s) forgotten") {
		t.Fatalf("logout --config: exit %d, stdout %q", code, out)
	}
}

// TestSlowSignInLogin signs in more slowly than the handshake's protocol
// probe waits (two seconds): the sign-in must not run inside it, where the
// probe's limit cut it short and a second sign-in started.
func TestSlowSignInLogin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ha := newHomeAssistant(t)
	port := testenv.FreePort(t)
	code, out, errOut := loginSlowly(t, 3*time.Second, "--url", ha.URL+"/api/mcp", "--allow-missing-issuer", "--allow-unadvertised-pkce",
		"--client-metadata-url", fmt.Sprintf("http://127.0.0.1:%d/", port), "--redirect-port", fmt.Sprint(port), "--timeout", "10s")
	if code != 0 || strings.Count(errOut, "authorize?") != 1 || len(grantFiles(t)) != 1 {
		t.Fatalf("login: exit %d, stdout %q, stderr %q, %d grants; want one sign-in", code, out, errOut, len(grantFiles(t)))
	}
}
