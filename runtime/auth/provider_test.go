package auth

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"golang.org/x/oauth2"
)

// oidcSecret is the client secret of the client registered with the
// provider.
const oidcSecret = "client-s3cret-7f3a9c1e5b"

// oidcProvider is oidc-provider (testdata/provider.mjs) run as the
// authorization server of a protected MCP server, rs.
type oidcProvider struct {
	issuer string
	cmd    *exec.Cmd
	mu     sync.Mutex
	grants []providerGrant
}

type providerGrant struct {
	Grant     string `json:"grant"`
	DPoP      bool   `json:"dpop"`
	TokenType string `json:"token_type"`
}

func (p *oidcProvider) grantTypes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, g := range p.grants {
		out = append(out, g.Grant)
	}
	return out
}

// startProvider starts oidc-provider for the resource, and stops it when the
// test ends.
func startProvider(t *testing.T, resource string) *oidcProvider {
	t.Helper()
	node := testenv.Node(t)
	script := filepath.Join(testenv.RepoRoot(), "runtime", "auth", "testdata", "provider.mjs")
	p := &oidcProvider{cmd: exec.Command(node, script, resource, oidcSecret)}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// exec copies the process's stderr into the buffer while the test
	// may read it: a locked buffer.
	stderr := &lockedBuffer{}
	p.cmd.Stderr = stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting oidc-provider: %v", err)
	}
	ready := make(chan string, 1)
	exited := make(chan struct{})
	var waitErr error
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var line struct {
				Issuer string `json:"issuer"`
				providerGrant
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			if line.Issuer != "" {
				ready <- line.Issuer
				continue
			}
			p.mu.Lock()
			p.grants = append(p.grants, line.providerGrant)
			p.mu.Unlock()
		}
		// Wait closes the pipe: only once everything was read.
		waitErr = p.cmd.Wait()
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("oidc-provider's stderr:\n%s", stderr.String())
		}
	})
	// The deadline only bounds a provider that hangs: one that fails
	// exits, and the test fails then, with its own error.
	select {
	case iss := <-ready:
		p.issuer = iss
	case <-exited:
		t.Fatalf("oidc-provider exited before it was ready (%v); its stderr:\n%s", waitErr, stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("oidc-provider was not ready within 2 minutes; its stderr:\n%s", stderr.String())
	}
	return p
}

// lockedBuffer is a bytes.Buffer that may be written and read at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitExpired waits until rs refuses the access token tok as expired, as
// it does once the token's exp has passed.
func waitExpired(t *testing.T, rs *jwtRS, tok string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	r := httptest.NewRequest(http.MethodPost, rs.url(), nil)
	for {
		err := rs.check(r, "DPoP", tok)
		if err != nil && err.Error() == "expired" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first access token did not expire within a minute: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lastToken returns the access token rs accepted last.
func lastToken(rs *jwtRS) string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.tokens[len(rs.tokens)-1]
}

// waitTokenInvalid waits until oauth2 takes tok for expired, as it does 10 s
// before its expiry.
func waitTokenInvalid(t *testing.T, tok *oauth2.Token) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for tok.Valid() {
		if time.Now().After(deadline) {
			t.Fatal("the access token is still valid after a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// jwtRS is a protected MCP server that accepts the JWT access tokens of an
// authorization server for itself: signed by one of the server's keys, its
// audience, not expired; and, for a token bound to a key (cnf.jkt), only
// with a DPoP proof of that key for the request.
type jwtRS struct {
	srv    *httptest.Server
	issuer string
	keys   jose.JSONWebKeySet

	// nonce, when set, is the DPoP nonce the proofs must carry (RFC 9449
	// section 9).
	nonce string

	mu      sync.Mutex
	tokens  []string // the access tokens accepted, in order
	schemes []string // their schemes
	asked   int      // the requests told to use the nonce
}

// errUseNonce is the refusal of a proof without the server's nonce.
var errUseNonce = fmt.Errorf("use_dpop_nonce")

func newJWTRS(t *testing.T) *jwtRS {
	rs := &jwtRS{}
	rs.srv = httptest.NewServer(rs)
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *jwtRS) url() string { return rs.srv.URL + mcpPath }

// trust fetches the keys of the authorization server issuer.
func (rs *jwtRS) trust(t *testing.T, issuer string) {
	t.Helper()
	var md struct {
		JWKSURI string `json:"jwks_uri"`
	}
	for _, u := range []string{issuer + "/.well-known/openid-configuration", ""} {
		if u == "" {
			u = md.JWKSURI
		}
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		var v any = &md
		if u == md.JWKSURI {
			v = &rs.keys
		}
		err = json.NewDecoder(resp.Body).Decode(v)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
	}
	rs.mu.Lock()
	rs.issuer = issuer
	rs.mu.Unlock()
}

func (rs *jwtRS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp":
		rs.mu.Lock()
		writeJSON(w, http.StatusOK, map[string]any{"resource": rs.url(), "authorization_servers": []string{rs.issuer}, "scopes_supported": []string{"mcp:tools"}})
		rs.mu.Unlock()
	case mcpPath:
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		err := rs.check(r, scheme, tok)
		if err == errUseNonce {
			rs.mu.Lock()
			rs.asked++
			rs.mu.Unlock()
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp", DPoP algs="ES256", error="use_dpop_nonce", error_description="a nonce is required"`)
			w.Header().Set("DPoP-Nonce", rs.nonce)
			http.Error(w, "use the nonce", http.StatusUnauthorized)
			return
		}
		if err != nil {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", error_description=%q`, err.Error()))
			w.Header().Add("WWW-Authenticate", `DPoP algs="ES256"`)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		rs.mu.Lock()
		rs.tokens = append(rs.tokens, tok)
		rs.schemes = append(rs.schemes, scheme)
		rs.mu.Unlock()
		serveMCP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// check validates the access token tok sent with scheme.
func (rs *jwtRS) check(r *http.Request, scheme, tok string) error {
	if tok == "" {
		return fmt.Errorf("no access token")
	}
	jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.PS256})
	if err != nil {
		return fmt.Errorf("not a JWT: %v", err)
	}
	rs.mu.Lock()
	keys := rs.keys.Key(jws.Signatures[0].Header.KeyID)
	issuer := rs.issuer
	rs.mu.Unlock()
	if len(keys) == 0 {
		return fmt.Errorf("unknown key %q", jws.Signatures[0].Header.KeyID)
	}
	payload, err := jws.Verify(keys[0])
	if err != nil {
		return fmt.Errorf("bad signature: %v", err)
	}
	var c struct {
		Iss string `json:"iss"`
		Aud any    `json:"aud"`
		Exp int64  `json:"exp"`
		Cnf struct {
			JKT string `json:"jkt"`
		} `json:"cnf"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return err
	}
	aud := fmt.Sprint(c.Aud)
	switch {
	case c.Iss != issuer:
		return fmt.Errorf("issuer %q", c.Iss)
	case aud != rs.url() && aud != "["+rs.url()+"]":
		return fmt.Errorf("audience %v", c.Aud)
	case time.Now().Unix() >= c.Exp:
		return fmt.Errorf("expired")
	case c.Cnf.JKT == "" && !strings.EqualFold(scheme, "Bearer"):
		return fmt.Errorf("a bearer token sent as %s", scheme)
	case c.Cnf.JKT == "":
		return nil
	case !strings.EqualFold(scheme, "DPoP"):
		return fmt.Errorf("a DPoP-bound token sent as %s", scheme)
	}
	nonce, err := checkProof(r, tok, c.Cnf.JKT)
	if err == nil && nonce != rs.nonce {
		return errUseNonce
	}
	return err
}

// checkProof checks the DPoP proof of r for the access token tok bound to
// the key whose thumbprint is jkt (RFC 9449 sections 4.3 and 7.1), and
// returns its nonce.
func checkProof(r *http.Request, tok, jkt string) (string, error) {
	proof, err := jose.ParseSignedCompact(r.Header.Get("DPoP"), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return "", fmt.Errorf("no DPoP proof: %v", err)
	}
	h := proof.Signatures[0].Protected
	if h.JSONWebKey == nil || h.ExtraHeaders["typ"] != "dpop+jwt" {
		return "", fmt.Errorf("the DPoP proof has no jwk or the wrong typ")
	}
	payload, err := proof.Verify(h.JSONWebKey)
	if err != nil {
		return "", fmt.Errorf("DPoP proof signature: %v", err)
	}
	tp, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil || base64.RawURLEncoding.EncodeToString(tp) != jkt {
		return "", fmt.Errorf("the DPoP proof's key is not the token's (cnf.jkt)")
	}
	var c struct {
		HTM   string `json:"htm"`
		HTU   string `json:"htu"`
		ATH   string `json:"ath"`
		IAT   int64  `json:"iat"`
		Nonce string `json:"nonce"`
	}
	json.Unmarshal(payload, &c)
	sum := sha256.Sum256([]byte(tok))
	switch {
	case c.HTM != r.Method || c.HTU != "http://"+r.Host+r.URL.Path:
		return "", fmt.Errorf("the DPoP proof is for %s %s", c.HTM, c.HTU)
	case c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]):
		return "", fmt.Errorf("the DPoP proof's ath is not the token's hash")
	case time.Since(time.Unix(c.IAT, 0)).Abs() > time.Minute:
		return "", fmt.Errorf("the DPoP proof is stale")
	}
	return c.Nonce, nil
}

// approveWithCookies is a Loopback Open function that goes through the
// provider's authorization and interaction endpoints as a browser does,
// keeping their cookies; the provider approves at once.
func approveWithCookies(ctx context.Context, authURL string) error {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Jar: jar}).Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the authorization ended in HTTP %d at %s", resp.StatusCode, resp.Request.URL.Redacted())
	}
	return nil
}

// oidcSetup starts a protected MCP server and oidc-provider as its
// authorization server.
func oidcSetup(t *testing.T) (*jwtRS, *oidcProvider) {
	rs := newJWTRS(t)
	p := startProvider(t, rs.url())
	rs.trust(t, p.issuer)
	return rs, p
}

// TestOIDCProviderRefresh signs in to a server whose authorization server
// is oidc-provider, with access tokens living 2 s: once the first token has
// expired, the next call still works, through a refresh the caller does not
// see.
func TestOIDCProviderRefresh(t *testing.T) {
	rs, p := oidcSetup(t)
	store := &FileStore{Dir: t.TempDir()}
	o := &OAuth{
		Client:       &Client{ID: "mcpgen", Secret: oidcSecret},
		ClientIssuer: p.issuer,
		Redirector:   &Loopback{Open: approveWithCookies, Timeout: 2 * time.Minute},
		Store:        store,
		DisableDPoP:  true,
	}
	s := connect(t, rs.url(), o, nil)
	callEcho(t, s)
	rs.mu.Lock()
	first := rs.tokens[0]
	rs.mu.Unlock()

	waitExpired(t, rs, first)
	req, _ := http.NewRequest(http.MethodPost, rs.url(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer "+first)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the first token is still accepted after it expired: %v %v", resp, err)
	}
	callEcho(t, s)

	grants := p.grantTypes()
	if !slices.Contains(grants, "refresh_token") || grants[0] != "authorization_code" || slices.Index(grants[1:], "authorization_code") >= 0 {
		t.Errorf("the provider saw the grants %q, want one authorization_code and then refreshes", grants)
	}
	rs.mu.Lock()
	last := rs.tokens[len(rs.tokens)-1]
	schemes := slices.Clone(rs.schemes)
	rs.mu.Unlock()
	if last == first {
		t.Error("the last call went with the first token")
	}
	if slices.ContainsFunc(schemes, func(s string) bool { return s != "Bearer" }) {
		t.Errorf("schemes %q, want Bearer only", schemes)
	}
	g, err := store.Grant(context.Background(), p.issuer, rs.url(), "mcpgen")
	if err != nil || g == nil || g.Token.RefreshToken == "" {
		t.Fatalf("stored grant %+v, %v: want one with a refresh token", g, err)
	}
}

// TestOIDCProviderDPoP signs in with DPoP, which oidc-provider supports:
// the tokens it issues are DPoP-bound (token_type DPoP, cnf.jkt), every
// request carries a proof of the bound key, the server accepts them, and
// so it does after a refresh.
func TestOIDCProviderDPoP(t *testing.T) {
	testDPoP(t, "")
}

// TestDPoPNonceAfterBearerChallenge signs in with DPoP to an MCP server
// that wants a nonce in the proofs (RFC 9449 section 9), which it hands out
// in a 401 whose WWW-Authenticate has a Bearer challenge before the DPoP
// one carrying use_dpop_nonce. Asked once, the client sends the nonce in
// every later proof. The error used to be looked for in the Bearer
// challenge only, and the client signed in again and again instead.
func TestDPoPNonceAfterBearerChallenge(t *testing.T) {
	testDPoP(t, "server-nonce-1")
}

func testDPoP(t *testing.T, nonce string) {
	rs, p := oidcSetup(t)
	rs.nonce = nonce
	store := &MemoryStore{}
	o := &OAuth{
		Client:       &Client{ID: "mcpgen", Secret: oidcSecret},
		ClientIssuer: p.issuer,
		Redirector:   &Loopback{Open: approveWithCookies, Timeout: 2 * time.Minute},
		Store:        store,
	}
	s := connect(t, rs.url(), o, nil)
	callEcho(t, s)
	rs.mu.Lock()
	first := rs.tokens[0]
	rs.mu.Unlock()
	waitExpired(t, rs, first)
	callEcho(t, s)

	g, _ := store.Grant(context.Background(), p.issuer, rs.url(), "mcpgen")
	if g == nil || g.Token.Type() != "DPoP" || g.DPoPKey == nil {
		t.Fatalf("stored grant %+v: want a DPoP token and its key", g)
	}
	rs.mu.Lock()
	schemes := slices.Clone(rs.schemes)
	rs.mu.Unlock()
	if len(schemes) == 0 || slices.ContainsFunc(schemes, func(s string) bool { return s != "DPoP" }) {
		t.Errorf("schemes %q, want DPoP only", schemes)
	}
	rs.mu.Lock()
	asked := rs.asked
	rs.mu.Unlock()
	if want := min(len(nonce), 1); asked != want {
		t.Errorf("the server asked %d times for its nonce, want %d", asked, want)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	refreshed := false
	for _, gr := range p.grants {
		if !gr.DPoP || gr.TokenType != "DPoP" {
			t.Errorf("a %s grant with a DPoP proof %v issued a %q token, want a proof and a DPoP token", gr.Grant, gr.DPoP, gr.TokenType)
		}
		refreshed = refreshed || gr.Grant == "refresh_token"
	}
	if !refreshed {
		t.Error("no refresh")
	}
}
