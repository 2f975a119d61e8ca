package auth

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// fakeAS is an authorization server for the tests: it serves its metadata,
// registers clients, approves every authorization request at once, and
// issues opaque tokens, recording every request it gets.
type fakeAS struct {
	srv  *httptest.Server
	name string // prefixes the client IDs and tokens it issues
	path string // the issuer's path, such as "/tenant1"; "" for none

	// wellKnown is where the metadata is served: "oauth" (RFC 8414 path
	// insertion, the default), "openid" (OpenID insertion),
	// "openid-append" (OpenID's own form) or "none".
	wellKnown string
	// meta changes the metadata document before it is served.
	meta func(m map[string]any)
	// response changes the authorization response before the redirect.
	response func(q url.Values)
	// ttl is the lifetime of the access tokens; an hour when zero.
	ttl time.Duration
	// refuseRefresh answers refresh requests with this body and HTTP 400.
	refuseRefresh func(form url.Values) string
	// noRefresh issues no refresh tokens.
	noRefresh bool
	// tokenType is the token_type of the tokens it issues; "Bearer" when
	// empty, "DPoP" for a request with a proof when dpop is set.
	tokenType string
	// dpop binds the tokens of a token request that carries a DPoP proof
	// to the proof's key, refresh tokens included: a bound refresh token
	// is refused with a proof of another key (RFC 9449 section 5).
	dpop bool

	mu      sync.Mutex
	gets    []string // paths of the GET requests
	auths   []url.Values
	tokens  []recorded
	regs    []map[string]any
	codes   map[string]codeGrant
	refresh map[string]codeGrant
	access  map[string]accessGrant
	n       int
}

type recorded struct {
	form   url.Values
	header http.Header
}

type codeGrant struct {
	clientID, redirectURI, challenge, resource string
	scopes                                     []string
	jkt                                        string // the key a refresh token is bound to
}

type accessGrant struct {
	issuer   string
	resource string
	scopes   []string
	expires  time.Time
	jkt      string // the thumbprint of the key the token is bound to
}

func newFakeAS(t *testing.T, name, path string) *fakeAS {
	as := &fakeAS{name: name, path: path}
	as.srv = httptest.NewServer(as)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *fakeAS) issuer() string { return as.srv.URL + as.path }

func (as *fakeAS) metadata() map[string]any {
	iss := as.issuer()
	m := map[string]any{
		"issuer":                                         iss,
		"authorization_endpoint":                         iss + "/authorize",
		"token_endpoint":                                 iss + "/token",
		"registration_endpoint":                          iss + "/register",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
	}
	if as.meta != nil {
		as.meta(m)
	}
	return m
}

func (as *fakeAS) metadataPath() string {
	switch as.wellKnown {
	case "none":
		return ""
	case "openid":
		return "/.well-known/openid-configuration" + as.path
	case "openid-append":
		return as.path + "/.well-known/openid-configuration"
	}
	return "/.well-known/oauth-authorization-server" + as.path
}

func (as *fakeAS) next(kind string) string {
	as.n++
	return fmt.Sprintf("%s-%s-%d", as.name, kind, as.n)
}

func (as *fakeAS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	as.mu.Lock()
	defer as.mu.Unlock()
	if r.Method == http.MethodGet {
		as.gets = append(as.gets, r.URL.Path)
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path != "" && r.URL.Path == as.metadataPath():
		writeJSON(w, http.StatusOK, as.metadata())
	case r.Method == http.MethodGet && r.URL.Path == as.path+"/authorize":
		as.authorize(w, r)
	case r.Method == http.MethodPost && r.URL.Path == as.path+"/token":
		as.token(w, r)
	case r.Method == http.MethodPost && r.URL.Path == as.path+"/register":
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client_metadata"})
			return
		}
		as.regs = append(as.regs, req)
		writeJSON(w, http.StatusCreated, map[string]any{
			"client_id":                  as.next("client"),
			"redirect_uris":              req["redirect_uris"],
			"token_endpoint_auth_method": "none",
		})
	default:
		http.NotFound(w, r)
	}
}

func (as *fakeAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.auths = append(as.auths, q)
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("client_id") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := as.next("code")
	if as.codes == nil {
		as.codes = map[string]codeGrant{}
	}
	as.codes[code] = codeGrant{clientID: q.Get("client_id"), redirectURI: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
	resp := url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {as.issuer()}}
	if as.response != nil {
		as.response(resp)
	}
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+resp.Encode(), http.StatusFound)
}

func (as *fakeAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request"})
		return
	}
	as.tokens = append(as.tokens, recorded{form: r.PostForm, header: r.Header.Clone()})
	clientID := r.PostForm.Get("client_id")
	if id, _, ok := r.BasicAuth(); ok {
		clientID, _ = url.QueryUnescape(id)
	}
	jkt := ""
	if as.dpop && r.Header.Get("DPoP") != "" {
		var err error
		if jkt, err = proofKey(r); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_dpop_proof"})
			return
		}
	}
	var g codeGrant
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		c, ok := as.codes[r.PostForm.Get("code")]
		delete(as.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case !ok:
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "unknown code"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		case c.clientID != clientID || c.redirectURI != r.PostForm.Get("redirect_uri"):
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "client or redirect URI mismatch"})
			return
		}
		g = c
	case "refresh_token":
		if as.refuseRefresh != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, as.refuseRefresh(r.PostForm))
			return
		}
		c, ok := as.refresh[r.PostForm.Get("refresh_token")]
		if !ok || c.jkt != "" && c.jkt != jkt {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
			return
		}
		g = c
	case "client_credentials":
		g = codeGrant{clientID: clientID, resource: r.PostForm.Get("resource"), scopes: strings.Fields(r.PostForm.Get("scope"))}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
		return
	}
	ttl := as.ttl
	if ttl == 0 {
		ttl = time.Hour
	}
	at := as.next("access")
	if as.access == nil {
		as.access = map[string]accessGrant{}
		as.refresh = map[string]codeGrant{}
	}
	as.access[at] = accessGrant{issuer: as.issuer(), resource: g.resource, scopes: g.scopes, expires: time.Now().Add(ttl), jkt: jkt}
	typ := "Bearer"
	switch {
	case as.tokenType != "":
		typ = as.tokenType
	case jkt != "":
		typ = "DPoP"
	}
	out := map[string]any{"access_token": at, "token_type": typ, "expires_in": int(ttl / time.Second), "scope": strings.Join(g.scopes, " ")}
	if r.PostForm.Get("grant_type") != "client_credentials" && !as.noRefresh {
		rt := as.next("refresh")
		g.jkt = jkt
		as.refresh[rt] = g
		out["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, out)
}

// proofKey checks the signature of r's DPoP proof and returns the
// thumbprint of its key.
func proofKey(r *http.Request) (string, error) {
	proof, err := jose.ParseSignedCompact(r.Header.Get("DPoP"), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return "", err
	}
	h := proof.Signatures[0].Protected
	if h.JSONWebKey == nil {
		return "", fmt.Errorf("the DPoP proof has no jwk")
	}
	if _, err := proof.Verify(h.JSONWebKey); err != nil {
		return "", err
	}
	tp, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(tp), nil
}

// valid returns the grant of an access token the server issued, if it is
// valid.
func (as *fakeAS) valid(token string) (accessGrant, bool) {
	as.mu.Lock()
	defer as.mu.Unlock()
	g, ok := as.access[token]
	return g, ok && time.Now().Before(g.expires)
}

// grantTypes returns the grant_type of each token request so far.
func (as *fakeAS) grantTypes() []string {
	as.mu.Lock()
	defer as.mu.Unlock()
	var out []string
	for _, r := range as.tokens {
		out = append(out, r.form.Get("grant_type"))
	}
	return out
}

func (as *fakeAS) authRequests() []url.Values {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.auths)
}

func (as *fakeAS) tokenRequests() []recorded {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.tokens)
}

func (as *fakeAS) registrations() []map[string]any {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.regs)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// fakeRS is a protected MCP server: its endpoint answers "ok" to a request
// that carries an access token its authorization server issued for it, with
// the scopes it requires, and 401 or 403 otherwise.
type fakeRS struct {
	srv *httptest.Server
	as  *fakeAS // whose tokens it accepts; may change
	// prmAt is where the resource metadata is served: "header" (a path
	// the challenge names), "path" (path-based well-known URL), "root",
	// or "none".
	prmAt string
	// prm changes the resource metadata document before it is served.
	prm func(m map[string]any)
	// scope is the challenge's scope parameter; none when empty.
	scope string
	// require are the scopes a token needs; a token without them gets a
	// 403 insufficient_scope naming them.
	require []string
	// bare403 leaves resource_metadata out of the insufficient_scope
	// challenge.
	bare403 bool

	mu      sync.Mutex
	gets    []string
	headers []http.Header // of the MCP requests
}

const mcpPath = "/mcp"

func newFakeRS(t *testing.T, as *fakeAS) *fakeRS {
	rs := &fakeRS{as: as, prmAt: "header"}
	rs.srv = httptest.NewServer(rs)
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *fakeRS) url() string { return rs.srv.URL + mcpPath }

func (rs *fakeRS) prmPath() string {
	switch rs.prmAt {
	case "header":
		return "/meta/prm"
	case "path":
		return "/.well-known/oauth-protected-resource" + mcpPath
	case "root":
		return "/.well-known/oauth-protected-resource"
	}
	return ""
}

func (rs *fakeRS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rs.mu.Lock()
	as := rs.as
	if r.Method == http.MethodGet && r.URL.Path != mcpPath {
		rs.gets = append(rs.gets, r.URL.Path)
	}
	if r.URL.Path == mcpPath {
		rs.headers = append(rs.headers, r.Header.Clone())
	}
	rs.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path != "" && r.URL.Path == rs.prmPath():
		m := map[string]any{
			"resource":              rs.url(),
			"authorization_servers": []string{as.issuer()},
		}
		if rs.prm != nil {
			rs.prm(m)
		}
		writeJSON(w, http.StatusOK, m)
	case r.URL.Path == mcpPath:
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		g, ok := as.valid(tok)
		if ok && g.jkt != "" {
			// A bound token goes with a proof of its key.
			_, err := checkProof(r, tok, g.jkt)
			ok = strings.EqualFold(scheme, "DPoP") && err == nil
		} else if !strings.EqualFold(scheme, "Bearer") {
			ok = false
		}
		if !ok || g.resource != rs.url() {
			ch := `Bearer error="invalid_token"`
			if rs.prmAt == "header" {
				ch += fmt.Sprintf(`, resource_metadata="%s%s"`, rs.srv.URL, rs.prmPath())
			}
			if rs.scope != "" {
				ch += fmt.Sprintf(`, scope="%s"`, rs.scope)
			}
			w.Header().Set("WWW-Authenticate", ch)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		for _, s := range rs.require {
			if !slices.Contains(g.scopes, s) {
				ch := fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s"`, strings.Join(rs.require, " "))
				if rs.prmAt == "header" && !rs.bare403 {
					ch += fmt.Sprintf(`, resource_metadata="%s%s"`, rs.srv.URL, rs.prmPath())
				}
				w.Header().Set("WWW-Authenticate", ch)
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
		}
		if r.Method == http.MethodPost {
			serveMCP(w, r)
			return
		}
		io.WriteString(w, "ok")
	default:
		http.NotFound(w, r)
	}
}

func (rs *fakeRS) getPaths() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.gets)
}

// approve is a Redirector that sends the authorization request itself, as an
// authorization server that approves at once lets it, and returns the
// query of the redirect it answers with, changed by tamper.
type approve struct {
	redirectURI string // "http://127.0.0.1:1" and RedirectPath(issuer) when empty
	tamper      func(q url.Values)
}

func (a *approve) Redirect(ctx context.Context, issuer string, authURL func(string) (string, error)) (url.Values, error) {
	ru := a.redirectURI
	if ru == "" {
		ru = "http://127.0.0.1:1" + RedirectPath(issuer)
	}
	u, err := authURL(ru)
	if err != nil {
		return nil, err
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return nil, fmt.Errorf("the authorization endpoint answered HTTP %d", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	q := loc.Query()
	if a.tamper != nil {
		a.tamper(q)
	}
	return q, nil
}

// call sends a GET to u the way the runtime's HTTP transports do: with the
// credentials o sets, and again, at most runtime.MaxAuthRetries times (2),
// after o obtained new ones.
func call(o *OAuth, u string) (int, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return 0, err
		}
		if err := o.Authorize(req); err != nil {
			return 0, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden || attempt == 2 {
			return resp.StatusCode, nil
		}
		retry, err := o.Refused(context.Background(), req, resp)
		if err != nil {
			return resp.StatusCode, err
		}
		if !retry {
			return resp.StatusCode, nil
		}
	}
}

// mustCall calls u and fails the test unless the server answers 200.
func mustCall(t *testing.T, o *OAuth, u string) {
	t.Helper()
	status, err := call(o, u)
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d, %v", u, status, err)
	}
}
