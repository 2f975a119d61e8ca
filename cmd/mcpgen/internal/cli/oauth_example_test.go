package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// TestOAuthLoginExampleServer signs in to the TypeScript SDK's example
// server with its demo authorization server, with "mcpgen login
// --no-browser" completed by fetching the URL it prints, then uses the
// stored token, finds it expired, signs in again (replacing the grant), and
// signs out; in the example's lenient mode and in its strict one, which
// checks the token's resource.
func TestOAuthLoginExampleServer(t *testing.T) {
	for _, strict := range []bool{false, true} {
		name := "oauth"
		if strict {
			name = "oauth-strict"
		}
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			endpoint := testenv.ServeOAuthExample(t, strict)
			loginCmd := "mcpgen login --url " + endpoint

			code, _, errOut := runMCPGen(t, "tools", "--url", endpoint)
			if code != 1 || !strings.Contains(errOut, loginCmd) {
				t.Fatalf("tools before login: exit %d, stderr %q; want 1 and %q", code, errOut, loginCmd)
			}

			token := oauthLogin(t, endpoint)

			code, out, errOut := runMCPGen(t, "tools", "-v", "--url", endpoint)
			if code != 0 || !strings.Contains(out, "greet") {
				t.Fatalf("tools after login: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			noOAuthSecret(t, "tools -v", out+errOut, token)
			code, out, errOut = runMCPGen(t, "call", "--url", endpoint, "greet", `{"name":"Ada"}`)
			if code != 0 || out != "Hello, Ada!\n" {
				t.Fatalf("call greet: exit %d, stdout %q, stderr %q", code, out, errOut)
			}

			// An expired token, with no refresh token to renew it.
			editOAuthGrant(t, func(tok map[string]any) { tok["expiry"] = "2001-01-01T00:00:00Z" })
			code, _, errOut = runMCPGen(t, "call", "--url", endpoint, "greet", `{"name":"Ada"}`)
			if code != 1 || !strings.Contains(errOut, loginCmd) {
				t.Fatalf("call with an expired token: exit %d, stderr %q; want 1 and %q", code, errOut, loginCmd)
			}

			// A token the server no longer knows is not tested here: the
			// example answers it with HTTP 500, not 401 (its token
			// verifier throws a plain Error). cmd/mcpgen/internal/cli tests it.
			token = oauthLogin(t, endpoint)
			code, out, errOut = runMCPGen(t, "logout", "--url", endpoint)
			if code != 0 || !strings.Contains(out, "1 stored grant(s) forgotten") {
				t.Fatalf("logout: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if files := oauthGrants(t); len(files) != 0 {
				t.Fatalf("logout left %q", files)
			}
			code, _, errOut = runMCPGen(t, "call", "--url", endpoint, "greet", `{"name":"Ada"}`)
			if code != 1 || !strings.Contains(errOut, loginCmd) {
				t.Fatalf("call after logout: exit %d, stderr %q; want 1 and %q", code, errOut, loginCmd)
			}
			noOAuthSecret(t, "call after logout", errOut, token)
		})
	}
}

// runMCPGen runs the command line in-process.
func runMCPGen(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// oauthOutput is a bytes.Buffer written and read concurrently.
type oauthOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *oauthOutput) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *oauthOutput) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// oauthLogin runs "mcpgen login --no-browser", fetches the authorization
// URL it prints as a browser would (the demo authorization server approves
// at once and redirects to mcpgen's loopback listener), and returns the
// access token stored.
func oauthLogin(t *testing.T, endpoint string) string {
	t.Helper()
	var out, errOut oauthOutput
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"login", "--no-browser", "--timeout", "10m", "--url", endpoint}, strings.NewReader(""), &out, &errOut)
	}()
	var authURL string
	deadline := time.Now().Add(testenv.WaitLimit(t))
	for authURL == "" && time.Now().Before(deadline) {
		for _, line := range strings.Split(errOut.String(), "\n") {
			if strings.HasPrefix(line, "http") && strings.Contains(line, "/authorize?") {
				authURL = line
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if authURL == "" {
		t.Fatalf("login printed no authorization URL; stderr %q", errOut.String())
	}
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatalf("following the authorization URL: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Host == "" || !strings.HasPrefix(resp.Request.URL.Host, "127.0.0.1:") {
		t.Fatalf("the authorization URL ended at %s with HTTP %d, not at mcpgen's loopback listener", resp.Request.URL.Redacted(), resp.StatusCode)
	}
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(out.String(), "Signed in to "+endpoint) {
			t.Fatalf("login: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
		}
	case <-time.After(testenv.WaitLimit(t)):
		t.Fatal("login did not end after the sign-in")
	}
	files := oauthGrants(t)
	if len(files) != 1 {
		t.Fatalf("login stored %d grants, want 1", len(files))
	}
	token := readOAuthToken(t, files[0])["access_token"].(string)
	noOAuthSecret(t, "login", out.String()+errOut.String(), token)
	return token
}

func oauthDir(t *testing.T) string {
	return filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "mcpgen", "auth")
}

func oauthGrants(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(oauthDir(t), "grants", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func readOAuthToken(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]any
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	tok, _ := g["token"].(map[string]any)
	if tok == nil || tok["access_token"] == "" {
		t.Fatalf("%s holds no token", file)
	}
	return tok
}

// editOAuthGrant changes the token of the one stored grant.
func editOAuthGrant(t *testing.T, edit func(tok map[string]any)) {
	t.Helper()
	files := oauthGrants(t)
	if len(files) != 1 {
		t.Fatalf("%d grants stored, want 1", len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]any
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	edit(g["token"].(map[string]any))
	if data, err = json.Marshal(g); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func noOAuthSecret(t *testing.T, what, text, secret string) {
	t.Helper()
	if secret != "" && strings.Contains(text, secret) {
		t.Errorf("%s: the output shows the access token", what)
	}
}
