package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpgen/mcpgen/internal/origin"
	"github.com/mcpgen/mcpgen/internal/redact"
)

// ErrCredentialIssuer is returned (wrapped) when a client secret, key or
// Flow would go to an authorization server other than OAuth.ClientIssuer,
// or ClientIssuer is not set.
var ErrCredentialIssuer = errors.New("the client credentials are not for this authorization server")

// ErrPKCEUnadvertised is returned (wrapped) for an authorization server
// whose metadata has no code_challenge_methods_supported, unless
// OAuth.AllowUnadvertisedPKCE is set.
var ErrPKCEUnadvertised = errors.New("the authorization server metadata does not advertise PKCE (no code_challenge_methods_supported)")

// ErrLoginRequired is returned (wrapped) by OAuth when the server needs a
// sign-in that OAuth cannot do on its own: no usable grant is stored and no
// Redirector is set.
var ErrLoginRequired = errors.New("sign-in required")

// OAuth is a runtime.Authorizer that signs in to an MCP server with OAuth 2.1,
// as the MCP authorization specification describes. On the server's first
// 401 it discovers the protected resource metadata (RFC 9728) and the
// authorization server's metadata (RFC 8414, OpenID discovery), picks a
// client registration, and then uses a stored grant, refreshes it, or runs
// the authorization code flow with PKCE through the Redirector. It answers a
// 403 insufficient_scope by asking for the challenged scopes on top of the
// granted ones.
//
// Set its fields before first use; an OAuth serves one MCP server.
type OAuth struct {
	// ClientName is the client_name sent in a dynamic registration;
	// "mcpgen" when empty.
	ClientName string

	// ClientMetadataURL is the HTTPS URL of this client's Client ID
	// Metadata Document. When the authorization server advertises
	// client_id_metadata_document_supported, it is the client ID and no
	// registration is needed.
	ClientMetadataURL string

	// Client is a client registered in advance with the authorization
	// server. With ClientIssuer set it is used only with that issuer.
	// Without a usable Client or client ID metadata document, OAuth
	// registers a client dynamically (RFC 7591).
	Client *Client

	// ClientIssuer is the issuer identifier of the authorization server
	// that Client and Flow are registered with. A credential (a Client
	// with a secret, or a Flow) is sent to that issuer's token endpoint
	// alone, and so needs ClientIssuer: without it, or when the server
	// names another authorization server, OAuth refuses to use it
	// (ErrCredentialIssuer). A Client without a secret and no
	// ClientIssuer is used with any issuer.
	ClientIssuer string

	// Redirector takes the user to the authorization endpoint and returns
	// the authorization response. Nil means no interactive sign-in: without
	// a stored grant that works, authorization fails with ErrLoginRequired.
	Redirector Redirector

	// Flow, when set, obtains tokens with no user present (client
	// credentials, JWT bearer) instead of the authorization code flow.
	Flow Flow

	// Store keeps registrations and grants; nil means an in-memory store.
	Store Store

	// Scopes, when set, are requested instead of the ones the server
	// names. A step up (403 insufficient_scope) asks for them together
	// with the ones its challenge names.
	Scopes []string

	// HTTPClient makes the requests to metadata, registration and token
	// endpoints; nil means http.DefaultClient. OAuth never lets it follow
	// a redirect to another origin with credentials.
	HTTPClient *http.Client

	// AllowMissingIssuer accepts authorization server metadata that has no
	// issuer, taking the issuer it was fetched for, as servers reached
	// through a local address may serve (Home Assistant). A metadata issuer
	// that differs is still refused.
	AllowMissingIssuer bool

	// AllowUnadvertisedPKCE signs in with an authorization server whose
	// metadata has no code_challenge_methods_supported, sending a PKCE
	// challenge with S256 all the same, as for Home Assistant. By default
	// such a server is refused (ErrPKCEUnadvertised), as the MCP
	// authorization specification says.
	AllowUnadvertisedPKCE bool

	// DisableDPoP keeps tokens unbound even when the authorization server
	// supports DPoP (RFC 9449). By default they are bound to a P-256 key
	// that the store keeps with the grant.
	DisableDPoP bool

	// LoginHint is the sentence ErrLoginRequired errors carry, such as the
	// command that signs in; it defaults to a generic one.
	LoginHint string

	// Logger receives what OAuth does, never a secret; nil discards it.
	Logger *slog.Logger

	mu     sync.Mutex
	server *discovered
	grant  *Grant
	src    *savingSource
	dpop   *dpopKey
}

// discovered is what OAuth learnt about the server and its authorization
// server.
type discovered struct {
	server   string // the MCP server URL it was learnt for
	resource string // the canonical resource indicator
	prmURL   string // where prm was found
	prm      *ResourceMetadata
	md       *ServerMetadata
	client   *Client
}

func (o *OAuth) log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

func (o *OAuth) store() Store {
	if o.Store == nil {
		o.Store = &MemoryStore{}
	}
	return o.Store
}

func (o *OAuth) httpClient() *http.Client {
	base := o.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		if req.Method != http.MethodGet || !sameOrigin(req.URL, via[0].URL) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return &c
}

// sameOriginURL reports whether the URLs a and b have the same origin.
func sameOriginURL(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && sameOrigin(ua, ub)
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && origin.SameHost(a, b)
}

// Authorize sets the bearer token of the current grant, refreshing it when
// it expired. Before the first sign-in, requests go without one.
func (o *OAuth) Authorize(req *http.Request) error {
	o.mu.Lock()
	src, dpop := o.src, o.dpop
	o.mu.Unlock()
	if src == nil {
		return nil
	}
	tok, err := src.Token(req.Context())
	if err != nil {
		if cerr := req.Context().Err(); cerr != nil {
			// The request ended while the token was being refreshed:
			// the grant is still good for the next request.
			return cerr
		}
		// The refresh failed: send the request without a token, and let
		// the 401 start a new sign-in.
		o.log().Debug("refreshing the access token failed", "error", tokenError(err))
		o.mu.Lock()
		if o.src == src {
			o.src = nil
		}
		o.mu.Unlock()
		return nil
	}
	if dpop != nil && strings.EqualFold(tok.Type(), "DPoP") {
		p, err := dpop.proof(req.Method, req.URL, tok.AccessToken)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		req.Header.Set("DPoP", p)
		return nil
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

// Refused answers a 401 or 403: it obtains a token, from the store, by
// refreshing, or by signing in, and reports whether the request may be sent
// again.
func (o *OAuth) Refused(ctx context.Context, req *http.Request, resp *http.Response) (bool, error) {
	chs, _ := Challenges(resp.Header)
	bearer, ok := Find(chs, "bearer")
	if !ok {
		bearer, _ = Find(chs, "dpop")
	}
	o.mu.Lock()
	dpop := o.dpop
	o.mu.Unlock()
	if dp, _ := Find(chs, "dpop"); dpop != nil && (dp.Params["error"] == "use_dpop_nonce" || bearer.Params["error"] == "use_dpop_nonce") {
		// RFC 9449 section 9: send the request again with the new nonce.
		// The error is in the DPoP challenge, which may follow a Bearer
		// one.
		return dpop.learnNonce(req.URL, resp.Header), nil
	}
	insufficient := bearer.Params["error"] == "insufficient_scope"
	if resp.StatusCode == http.StatusForbidden && !insufficient {
		return false, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	sent := req.Header.Get("Authorization")
	if o.src != nil && !insufficient {
		// Another request may have signed in since this one was sent.
		if tok, err := o.src.Token(ctx); err == nil && !sentToken(sent, tok.AccessToken) {
			return true, nil
		}
	}
	d, err := o.discover(ctx, req.URL, bearer.Params["resource_metadata"])
	if err != nil {
		return false, err
	}
	if err := o.checkCredentialIssuer(d); err != nil {
		return false, err
	}
	scopes := o.scopesFor(d, bearer, insufficient)
	if n := len(strings.Join(scopes, " ")); n > maxScopeBytes {
		return false, fmt.Errorf("signing in to %s: the scopes to ask for (%d, from the server's challenge, its metadata, the configuration and the grant) come to %d bytes, more than the %d an authorization request carries: refusing to sign in", d.server, len(scopes), n, maxScopeBytes)
	}
	if !insufficient {
		if ok, err := o.useStored(ctx, d, scopes, sent); ok || err != nil {
			return ok, err
		}
	}
	if o.Flow != nil {
		err = o.runFlow(ctx, d, scopes)
	} else {
		err = o.signIn(ctx, d, scopes)
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// checkCredentialIssuer checks that the credential OAuth holds, if any,
// may go to d's authorization server: the Flow's, or the secret of Client.
func (o *OAuth) checkCredentialIssuer(d *discovered) error {
	var what string
	switch {
	case o.Flow != nil:
		what = "the credentials of client " + o.Flow.ClientID()
	case o.Client != nil && o.Client.Secret != "":
		what = "the credentials of client " + o.Client.ID
	default:
		return nil
	}
	if o.ClientIssuer == "" {
		return fmt.Errorf("%s are bound to no issuer: set the issuer they are registered with (OAuth.ClientIssuer): %w", what, ErrCredentialIssuer)
	}
	if d.md.Issuer != o.ClientIssuer {
		return fmt.Errorf("%s are for the authorization server %s, but %s names the authorization server %s: refusing to send them there: %w", what, o.ClientIssuer, d.server, excerpt(d.md.Issuer), ErrCredentialIssuer)
	}
	return nil
}

// runFlow obtains a token through o.Flow and makes it the current grant;
// when it expires, the flow runs again.
func (o *OAuth) runFlow(ctx context.Context, d *discovered, scopes []string) error {
	t := &TokenRequest{Metadata: d.md, Resource: d.resource, Scopes: scopes}
	tok, err := o.Flow.Token(o.tokenContext(ctx, ""), t)
	if err != nil {
		return err
	}
	if err := checkTokenType(tok, o.dpop != nil); err != nil {
		return err
	}
	granted := scopes
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		granted = strings.Fields(s)
	}
	g := &Grant{Issuer: d.md.Issuer, Resource: d.resource, ClientID: o.Flow.ClientID(), Scopes: granted, Token: tok}
	if err := o.bind(g); err != nil {
		return err
	}
	if err := o.store().SaveGrant(ctx, g); err != nil {
		return err
	}
	o.grant = g
	flow := o.Flow
	hc := o.tokenClient("")
	o.src = newSavingSource(o.store(), g, o.dpop, true, func(ctx context.Context, _ *oauth2.Token) (*oauth2.Token, error) {
		ctx, cancel := context.WithTimeout(context.WithValue(ctx, oauth2.HTTPClient, hc), time.Minute)
		defer cancel()
		return flow.Token(ctx, t)
	})
	return nil
}

// maxScopeBytes bounds the scopes one sign-in asks for, joined by spaces.
// They go into the authorization request's URL, which the browser opens
// and the command line prints, and a server's challenge or metadata may
// name any number: past 8 KiB, more than servers take in a URL, the sign-in
// is refused rather than sent.
const maxScopeBytes = 8 << 10

// scopesFor returns the scopes to ask for: the configured ones, else those
// of the challenge, else those the resource supports; on a step up, with
// the scopes the challenge names and those already granted; and
// offline_access where the authorization server supports it, for a
// refresh token.
func (o *OAuth) scopesFor(d *discovered, ch Challenge, stepUp bool) []string {
	var scopes []string
	switch {
	case len(o.Scopes) > 0:
		scopes = slices.Clone(o.Scopes)
	case ch.Params["scope"] != "":
		scopes = strings.Fields(ch.Params["scope"])
	case d.prm != nil && len(d.prm.ScopesSupported) > 0:
		scopes = slices.Clone(d.prm.ScopesSupported)
	}
	if stepUp {
		more := strings.Fields(ch.Params["scope"])
		if o.grant != nil {
			more = append(more, o.grant.Scopes...)
		}
		// A set, as a challenge may name scopes by the hundred thousand.
		have := make(map[string]bool, len(scopes)+len(more))
		for _, s := range scopes {
			have[s] = true
		}
		for _, s := range more {
			if !have[s] {
				have[s] = true
				scopes = append(scopes, s)
			}
		}
	}
	if o.Flow == nil && len(scopes) > 0 && slices.Contains(d.md.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	return scopes
}

// discover learns, once per server, its resource metadata, its
// authorization server's metadata, and the client to use with it. The
// resource metadata is fetched again on every call, so that a server that
// moves to another authorization server is followed.
func (o *OAuth) discover(ctx context.Context, server *url.URL, prmURL string) (*discovered, error) {
	c := o.httpClient()
	srv := stripURL(server)
	d := &discovered{server: srv}
	if prmURL == "" && o.server != nil && o.server.server == srv {
		// A challenge without resource_metadata, such as a step up's:
		// the metadata is where it was found before.
		prmURL = o.server.prmURL
	}
	if err := checkEndpoint("the MCP server's protected resource metadata at", server); err != nil {
		return nil, err
	}
	if prmURL != "" {
		if _, err := checkResourceMetadataURL(ctx, prmURL, server); err != nil {
			return nil, err
		}
	}
	var prmErr error
	for _, u := range resourceMetadataURLs(server, prmURL) {
		var m ResourceMetadata
		err := getJSON(ctx, c, u, &m)
		if errors.Is(err, errNotFound) {
			prmErr = err
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fetching protected resource metadata: %w", err)
		}
		if err := checkResourceMetadata(&m, server); err != nil {
			return nil, err
		}
		d.prm, d.prmURL = &m, u
		break
	}
	var issuer string
	if d.prm != nil {
		if len(d.prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("protected resource metadata of %s names no authorization server", srv)
		}
		issuer = d.prm.AuthorizationServers[0]
		r, _ := url.Parse(d.prm.Resource)
		d.resource = canonicalResource(r)
	} else {
		// The 2025-03-26 rules: the server's origin is the authorization
		// server, and the resource is the server itself.
		o.log().Debug("no protected resource metadata; using the server's origin as authorization server", "error", prmErr)
		issuer = server.Scheme + "://" + server.Host
		d.resource = canonicalResource(server)
	}
	if o.server != nil && o.server.md != nil && o.server.md.Issuer == issuer && o.server.server == srv {
		d.md, d.client = o.server.md, o.server.client
		o.server = d
		return d, nil
	}
	md, err := o.serverMetadata(ctx, c, issuer, d.prm == nil)
	if err != nil {
		return nil, err
	}
	d.md = md
	o.server = d
	if o.dpop == nil && !o.DisableDPoP && supportsDPoP(md) {
		if o.dpop, err = newDPoPKey(nil); err != nil {
			return nil, err
		}
	}
	if o.grant != nil && o.grant.Issuer != md.Issuer {
		// A new authorization server: nothing of the old one is used.
		o.log().Debug("the server moved to another authorization server", "issuer", md.Issuer)
		o.grant, o.src = nil, nil
	}
	return d, nil
}

// serverMetadata fetches and checks the metadata of the authorization
// server issuer. With fallback (no resource metadata, the 2025-03-26 rules),
// a server without metadata gets the default endpoints.
func (o *OAuth) serverMetadata(ctx context.Context, c *http.Client, issuer string, fallback bool) (*ServerMetadata, error) {
	iu, err := url.Parse(issuer)
	if err != nil || !iu.IsAbs() {
		return nil, fmt.Errorf("authorization server %s is not an absolute URL", excerpt(issuer))
	}
	if err := checkEndpoint("authorization server", iu); err != nil {
		return nil, err
	}
	for _, u := range serverMetadataURLs(iu) {
		var m ServerMetadata
		err := getJSON(ctx, c, u, &m)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fetching authorization server metadata: %w", err)
		}
		if err := checkServerMetadata(&m, issuer, u, o.AllowMissingIssuer); err != nil {
			return nil, err
		}
		if m.AuthorizationEndpoint == "" && o.Redirector != nil {
			return nil, fmt.Errorf("authorization server metadata at %s has no authorization_endpoint", u)
		}
		if len(m.CodeChallengeMethodsSupported) > 0 && !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
			return nil, fmt.Errorf("authorization server %s does not support PKCE with S256: refusing to sign in without it", issuer)
		}
		return &m, nil
	}
	if !fallback {
		return nil, fmt.Errorf("authorization server %s publishes no metadata (tried %s)", issuer, strings.Join(serverMetadataURLs(iu), ", "))
	}
	base := strings.TrimSuffix(issuer, "/")
	return &ServerMetadata{
		Issuer:                        issuer,
		AuthorizationEndpoint:         base + "/authorize",
		TokenEndpoint:                 base + "/token",
		RegistrationEndpoint:          base + "/register",
		CodeChallengeMethodsSupported: []string{"S256"},
	}, nil
}

// useStored takes a stored grant for the server, refreshing it when needed,
// unless it is the one the server just refused.
func (o *OAuth) useStored(ctx context.Context, d *discovered, scopes []string, refused string) (bool, error) {
	client, err := o.knownClient(ctx, d)
	if err != nil || client == nil {
		return false, err
	}
	g, err := o.store().Grant(ctx, d.md.Issuer, d.resource, client.ID)
	if err != nil || g == nil || g.Token == nil {
		return false, err
	}
	cfg := o.config(d, client, "")
	stale := func(tok *oauth2.Token) bool {
		return sentToken(refused, tok.AccessToken) || !usable(tok, o.Flow != nil || tok.RefreshToken != "")
	}
	if o.Flow != nil && stale(g.Token) {
		return false, nil
	}
	if stale(g.Token) {
		if g.Token.RefreshToken == "" {
			return false, nil
		}
		unlock, err := lockGrant(ctx, o.store(), g)
		if err != nil {
			return false, err
		}
		defer unlock()
		// Another process may have refreshed the grant while this one
		// waited for the lock: its refresh token is then the one that
		// still works.
		if again, err := o.store().Grant(ctx, g.Issuer, g.Resource, g.ClientID); err == nil && again != nil && again.Token != nil {
			g = again
		}
	}
	if g.DPoPKey != nil {
		k, err := parseDPoPKey(g.DPoPKey)
		if err != nil {
			return false, err
		}
		o.dpop = k
	}
	if err := checkTokenType(g.Token, g.DPoPKey != nil); err != nil {
		// A grant stored without the key its token is bound to, or of a
		// type this client cannot send: neither the token nor its refresh
		// token can be used.
		o.log().Debug("the stored grant cannot be used", "error", err)
		return false, nil
	}
	if stale(g.Token) {
		if g.Token.RefreshToken == "" {
			return false, nil
		}
		fresh, err := cfg.TokenSource(o.tokenContext(ctx, d.resource), &oauth2.Token{RefreshToken: g.Token.RefreshToken}).Token()
		if err != nil {
			o.log().Debug("refreshing the stored grant failed", "error", tokenError(err, g.Token.RefreshToken))
			return false, nil
		}
		if err := checkTokenType(fresh, o.dpop != nil); err != nil {
			return false, err
		}
		g.Token = fresh
		// The refresh may have bound the token to this process's key.
		if err := o.bind(g); err != nil {
			return false, err
		}
		if err := o.store().SaveGrant(ctx, g); err != nil {
			return false, err
		}
	}
	d.client = client
	o.use(cfg, g)
	return true, nil
}

// use makes g the current grant, refreshed through cfg.
func (o *OAuth) use(cfg *oauth2.Config, g *Grant) {
	o.grant = g
	hc := o.tokenClient(g.Resource)
	o.src = newSavingSource(o.store(), g, o.dpop, false, func(ctx context.Context, tok *oauth2.Token) (*oauth2.Token, error) {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
		fresh, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		if err != nil {
			return nil, tokenError(err, tok.RefreshToken)
		}
		return fresh, nil
	})
}

// tokenContext returns ctx carrying the HTTP client of the token requests
// for resource.
func (o *OAuth) tokenContext(ctx context.Context, resource string) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, o.tokenClient(resource))
}

// tokenClient is the HTTP client of token endpoint requests: with a DPoP
// proof on each when tokens are bound, and, with a resource, with that
// resource indicator on each refresh, which oauth2 has no parameter for.
func (o *OAuth) tokenClient(resource string) *http.Client {
	c := o.httpClient()
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	if o.dpop != nil {
		base = &dpopTransport{base: base, key: o.dpop}
	}
	if resource != "" {
		base = &resourceTransport{base: base, resource: resource}
	}
	c.Transport = base
	return c
}

// checkTokenType refuses a token of a type other than Bearer and DPoP: this
// client knows how to send no other, and sending one as a bearer token
// would give it to whoever holds it. It refuses a DPoP token as well
// unless proof reports that the token request carried a DPoP proof: such a
// token is bound to no key of this client, so no proof can go with it, and
// a resource server refuses it as a bearer token.
func checkTokenType(tok *oauth2.Token, proof bool) error {
	t := tok.Type()
	if !strings.EqualFold(t, "Bearer") && !strings.EqualFold(t, "DPoP") {
		return fmt.Errorf("the token endpoint issued a token of type %s, which this client cannot send: only Bearer and DPoP tokens are supported", redact.Quote(t))
	}
	if !proof && strings.EqualFold(t, "DPoP") {
		return fmt.Errorf("the token endpoint issued a token of type %s to a request without a DPoP proof: the token is bound to no key of this client, which cannot send it", redact.Quote(t))
	}
	return nil
}

// usable reports whether tok may be sent. A token that can be renewed (it
// has a refresh token, or a Flow obtains the next) serves until 10 s
// before its expiry, as oauth2 counts, so that a new one is had before a
// request could reach the server with one that has just expired; another
// serves until its expiry.
func usable(tok *oauth2.Token, renewable bool) bool {
	if renewable {
		return tok.Valid()
	}
	return tok.AccessToken != "" && (tok.Expiry.IsZero() || time.Now().Before(tok.Expiry))
}

// sentToken reports whether the Authorization header sent carried token.
func sentToken(header, token string) bool {
	scheme, t, ok := strings.Cut(header, " ")
	return ok && t == token && (strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "DPoP"))
}

// bind records in g the DPoP key its token is bound to.
func (o *OAuth) bind(g *Grant) error {
	if o.dpop == nil || !strings.EqualFold(g.Token.Type(), "DPoP") {
		return nil
	}
	der, err := o.dpop.marshal()
	if err != nil {
		return err
	}
	g.DPoPKey = der
	return nil
}

// knownClient returns the client to use with d's authorization server
// without registering one: the client ID metadata document, the
// pre-registered client, or a stored registration.
func (o *OAuth) knownClient(ctx context.Context, d *discovered) (*Client, error) {
	switch {
	case d.client != nil:
		return d.client, nil
	case o.Flow != nil:
		return &Client{ID: o.Flow.ClientID()}, nil
	case o.ClientMetadataURL != "" && d.md.ClientIDMetadataDocumentSupported:
		return &Client{ID: o.ClientMetadataURL, AuthMethod: "none"}, nil
	case o.Client != nil && (o.ClientIssuer == "" || o.ClientIssuer == d.md.Issuer):
		c := *o.Client
		if c.AuthMethod == "" {
			c.AuthMethod = preferredAuthMethod(c.Secret != "", d.md.TokenEndpointAuthMethodsSupported)
		}
		return &c, nil
	}
	return o.store().Client(ctx, d.md.Issuer)
}

// preferredAuthMethod picks the token endpoint authentication method for a
// client with or without a secret from the methods a server supports.
func preferredAuthMethod(hasSecret bool, supported []string) string {
	if !hasSecret {
		return "none"
	}
	if len(supported) > 0 && !slices.Contains(supported, "client_secret_basic") && slices.Contains(supported, "client_secret_post") {
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// config returns the oauth2 configuration of client with d's
// authorization server.
func (o *OAuth) config(d *discovered, client *Client, redirectURI string) *oauth2.Config {
	style := oauth2.AuthStyleInParams
	if client.AuthMethod == "client_secret_basic" {
		style = oauth2.AuthStyleInHeader
	}
	secret := client.Secret
	if client.AuthMethod == "none" {
		secret = ""
	}
	return &oauth2.Config{
		ClientID:     client.ID,
		ClientSecret: secret,
		Endpoint: oauth2.Endpoint{
			AuthURL:   d.md.AuthorizationEndpoint,
			TokenURL:  d.md.TokenEndpoint,
			AuthStyle: style,
		},
		RedirectURL: redirectURI,
	}
}

// signIn runs the authorization code flow with PKCE and stores the grant.
func (o *OAuth) signIn(ctx context.Context, d *discovered, scopes []string) error {
	if o.Redirector == nil {
		hint := o.LoginHint
		if hint == "" {
			hint = "sign in to the server first"
		}
		return fmt.Errorf("%s needs authorization from %s: %s: %w", d.server, d.md.Issuer, hint, ErrLoginRequired)
	}
	if d.md.AuthorizationEndpoint == "" {
		return fmt.Errorf("authorization server %s has no authorization endpoint", d.md.Issuer)
	}
	if len(d.md.CodeChallengeMethodsSupported) == 0 && !o.AllowUnadvertisedPKCE {
		return fmt.Errorf("signing in at %s: %w: refusing to sign in (set AllowUnadvertisedPKCE for a server known to support S256 all the same)", d.md.Issuer, ErrPKCEUnadvertised)
	}
	state, err := randomString()
	if err != nil {
		return err
	}
	verifier := oauth2.GenerateVerifier()
	var cfg *oauth2.Config
	var client *Client
	rctx := ctx
	if known, err := o.knownClient(ctx, d); err == nil && known != nil {
		// A Loopback listens on the port of the redirect URI the known
		// client was registered with, when it is free, so that the
		// registration serves again: a new one would supersede it, and
		// with it the grants for the other servers of this issuer.
		rctx = context.WithValue(ctx, registeredRedirectsKey{}, known.RedirectURIs)
	}
	params, err := o.Redirector.Redirect(rctx, d.md.Issuer, func(redirectURI string) (string, error) {
		client, err = o.clientFor(ctx, d, redirectURI)
		if err != nil {
			return "", err
		}
		cfg = o.config(d, client, redirectURI)
		opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.resource)}
		if len(scopes) > 0 {
			opts = append(opts, oauth2.SetAuthURLParam("scope", strings.Join(scopes, " ")))
		}
		return cfg.AuthCodeURL(state, opts...), nil
	})
	if err != nil {
		return fmt.Errorf("signing in at %s: %w", d.md.Issuer, err)
	}
	if e := params.Get("error"); e != "" {
		msg := e
		if desc := params.Get("error_description"); desc != "" {
			msg += ": " + desc
		}
		return fmt.Errorf("signing in at %s: the authorization server refused: %s", d.md.Issuer, redact.Quote(msg))
	}
	if params.Get("state") != state {
		return fmt.Errorf("signing in at %s: the authorization response's state does not match the request's: refusing it", d.md.Issuer)
	}
	// RFC 9207: a present iss must be the issuer, compared as strings; a
	// server that advertises iss must send it.
	if iss, ok := params["iss"]; ok {
		if len(iss) != 1 || iss[0] != d.md.Issuer {
			return fmt.Errorf("signing in at %s: the authorization response comes from issuer %q: refusing it (RFC 9207)", d.md.Issuer, params.Get("iss"))
		}
	} else if d.md.IssParameterSupported {
		return fmt.Errorf("signing in at %s: the authorization response has no iss, which the server advertises: refusing it (RFC 9207)", d.md.Issuer)
	} else if !sameOriginURL(d.md.AuthorizationEndpoint, d.md.Issuer) {
		// Without iss, nothing shows that the response comes from this
		// issuer rather than from the server whose authorization endpoint
		// its metadata names (a mix-up attack, RFC 9700 section 4.4).
		return fmt.Errorf("signing in at %s: the authorization endpoint is on another origin than the issuer, and the response has no iss to show it comes from this issuer: refusing it (RFC 9700 section 4.4)", d.md.Issuer)
	}
	code := params.Get("code")
	if code == "" {
		return fmt.Errorf("signing in at %s: the authorization response has no code", d.md.Issuer)
	}
	tok, err := cfg.Exchange(o.tokenContext(ctx, d.resource), code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	if err != nil {
		return fmt.Errorf("signing in at %s: exchanging the code: %w", d.md.Issuer, tokenError(err, code, verifier, client.Secret))
	}
	if err := checkTokenType(tok, o.dpop != nil); err != nil {
		return fmt.Errorf("signing in at %s: %w", d.md.Issuer, err)
	}
	granted := scopes
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		granted = strings.Fields(s)
	}
	g := &Grant{Issuer: d.md.Issuer, Resource: d.resource, ClientID: client.ID, Scopes: granted, Token: tok}
	if err := o.bind(g); err != nil {
		return err
	}
	if err := o.store().SaveGrant(ctx, g); err != nil {
		return err
	}
	d.client = client
	o.use(cfg, g)
	o.log().Debug("signed in", "issuer", d.md.Issuer, "resource", d.resource, "scopes", strings.Join(granted, " "))
	return nil
}

// clientFor returns the client to sign in with at redirectURI: a known one
// whose redirect URIs allow it, or a new dynamic registration.
func (o *OAuth) clientFor(ctx context.Context, d *discovered, redirectURI string) (*Client, error) {
	c, err := o.knownClient(ctx, d)
	if err != nil {
		return nil, err
	}
	if c != nil && (len(c.RedirectURIs) == 0 || slices.Contains(c.RedirectURIs, redirectURI)) {
		return c, nil
	}
	name := o.ClientName
	if name == "" {
		name = "mcpgen"
	}
	c, err = register(ctx, o.httpClient(), d.md, name, redirectURI)
	if err != nil {
		return nil, err
	}
	if err := o.store().SaveClient(ctx, d.md.Issuer, c); err != nil {
		return nil, err
	}
	return c, nil
}

// tokenError shortens an *oauth2.RetrieveError to the server's error code
// and description; its body could echo what was sent. The code and
// description are quoted and cut, as any text a server sends, with the
// secrets of the request, sent (a refresh token, a code, a verifier, a
// client secret), replaced: the description may repeat them too.
func tokenError(err error, sent ...string) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			msg := re.ErrorCode
			if re.ErrorDescription != "" {
				msg += ": " + re.ErrorDescription
			}
			return fmt.Errorf("the token endpoint answered HTTP %d: %s", re.Response.StatusCode, redact.New(sent...).Quote(msg))
		}
		return fmt.Errorf("the token endpoint answered HTTP %d", re.Response.StatusCode)
	}
	return err
}

// randomString returns 32 random bytes in base64url.
func randomString() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// savingSource holds the tokens of the current grant: it refreshes the
// token once it has expired, within the context of the request that needs
// it, so that a token endpoint that never answers holds no request beyond
// its context, and it saves every new token in the store, with the DPoP
// key it is bound to.
type savingSource struct {
	refresh func(ctx context.Context, expired *oauth2.Token) (*oauth2.Token, error)
	store   Store
	// key is the DPoP key the refreshes are made with (PKCS #8), nil
	// without one.
	key []byte
	// flow is set when refresh obtains a token without a refresh token.
	flow bool
	// turn holds the turn to refresh; unlike a mutex, waiting for it can
	// be given up when a request's context ends.
	turn  chan struct{}
	grant Grant // its Token is the current token
}

func newSavingSource(store Store, g *Grant, key *dpopKey, flow bool, refresh func(context.Context, *oauth2.Token) (*oauth2.Token, error)) *savingSource {
	s := &savingSource{refresh: refresh, store: store, flow: flow, turn: make(chan struct{}, 1), grant: *g}
	if key != nil {
		s.key, _ = key.marshal()
	}
	return s
}

// usable reports whether tok may be sent.
func (s *savingSource) usable(tok *oauth2.Token) bool {
	return usable(tok, s.flow || tok.RefreshToken != "")
}

// Token returns the current token, refreshed first when it has expired.
// A refresh ends when ctx does.
func (s *savingSource) Token(ctx context.Context) (*oauth2.Token, error) {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.turn }()
	if s.usable(s.grant.Token) {
		return s.grant.Token, nil
	}
	unlock, err := lockGrant(ctx, s.store, &s.grant)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Another session, or another process, may have refreshed the grant
	// since: an authorization server that rotates refresh tokens refuses
	// the one held here once spent, and may revoke the grant for it. The
	// stored token, bound to the same key, is then the one to use or
	// refresh.
	if g, err := s.store.Grant(ctx, s.grant.Issuer, s.grant.Resource, s.grant.ClientID); err == nil && g != nil && g.Token != nil &&
		g.Token.AccessToken != s.grant.Token.AccessToken && bytes.Equal(g.DPoPKey, s.grant.DPoPKey) {
		s.grant.Token = g.Token
		if s.usable(g.Token) {
			return g.Token, nil
		}
	}
	tok, err := s.refresh(ctx, s.grant.Token)
	if err != nil {
		return nil, err
	}
	if err := checkTokenType(tok, s.key != nil); err != nil {
		return nil, err
	}
	s.grant.Token = tok
	if s.key != nil && strings.EqualFold(tok.Type(), "DPoP") {
		// The refresh bound the token to the key of its proof.
		s.grant.DPoPKey = s.key
	}
	if err := s.store.SaveGrant(context.WithoutCancel(ctx), &s.grant); err != nil {
		return nil, err
	}
	return tok, nil
}
