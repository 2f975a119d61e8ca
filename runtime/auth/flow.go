package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// A Flow obtains an access token with no user present, for CI and services.
// OAuth.Flow takes one in place of the authorization code flow; OAuth still
// does the discovery, the scopes, the store and the retries.
type Flow interface {
	// ClientID is the client the tokens are issued to, which keys them in
	// the store.
	ClientID() string
	// Token obtains a token for t.
	Token(ctx context.Context, t *TokenRequest) (*oauth2.Token, error)
}

// TokenRequest is what a Flow is asked for: a token from the authorization
// server described by Metadata, for Resource, with Scopes.
type TokenRequest struct {
	Metadata *ServerMetadata
	Resource string
	Scopes   []string
}

// Grant types and token types of the flows.
const (
	GrantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	GrantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	TokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	clientAssertionJWT = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// ClientCredentials is the client credentials grant (RFC 6749 section 4.4):
// the client authenticates with its secret (client_secret_basic, or
// client_secret_post when AuthMethod says so or the server supports only
// that) or, when PrivateKey is set, with a signed JWT (private_key_jwt, RFC
// 7523 section 2.2).
type ClientCredentials struct {
	ID     string
	Secret string
	// AuthMethod forces "client_secret_basic" or "client_secret_post".
	AuthMethod string
	// PrivateKey signs the client assertion; an *ecdsa.PrivateKey,
	// *rsa.PrivateKey or ed25519.PrivateKey.
	PrivateKey crypto.Signer
	// Algorithm is the assertion's JWS algorithm; by default ES256, ES384
	// or ES512 for an EC key by its curve, RS256 for RSA, EdDSA for Ed25519.
	Algorithm string
	// KeyID is the assertion's kid header, when the server needs one.
	KeyID string
}

// ClientID implements Flow.
func (c *ClientCredentials) ClientID() string { return c.ID }

// Token implements Flow.
func (c *ClientCredentials) Token(ctx context.Context, t *TokenRequest) (*oauth2.Token, error) {
	cfg := &clientcredentials.Config{
		ClientID:       c.ID,
		TokenURL:       t.Metadata.TokenEndpoint,
		Scopes:         t.Scopes,
		EndpointParams: url.Values{"resource": {t.Resource}},
	}
	if c.PrivateKey != nil {
		assertion, err := clientAssertion(c.PrivateKey, c.Algorithm, c.KeyID, c.ID, t.Metadata.Issuer)
		if err != nil {
			return nil, err
		}
		cfg.AuthStyle = oauth2.AuthStyleInParams
		cfg.EndpointParams.Set("client_assertion_type", clientAssertionJWT)
		cfg.EndpointParams.Set("client_assertion", assertion)
	} else {
		cfg.ClientSecret = c.Secret
		cfg.AuthStyle = authStyle(c.AuthMethod, c.Secret != "", t.Metadata)
	}
	tok, err := cfg.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("client credentials grant at %s: %w", t.Metadata.Issuer, tokenError(err, c.Secret, cfg.EndpointParams.Get("client_assertion")))
	}
	return tok, nil
}

// authStyle returns how a client authenticates at the token endpoint.
func authStyle(method string, hasSecret bool, md *ServerMetadata) oauth2.AuthStyle {
	if method == "" {
		method = preferredAuthMethod(hasSecret, md.TokenEndpointAuthMethodsSupported)
	}
	if method == "client_secret_basic" {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// JWTBearer is the JWT bearer grant (RFC 7523 section 2.1): an assertion
// issued by someone the authorization server trusts is traded for an access
// token. Workload identity federation passes the platform's workload JWT;
// enterprise-managed authorization passes an identity assertion obtained from
// the identity provider (see IDJAG).
type JWTBearer struct {
	// ID and Secret authenticate the client; without a secret the client
	// ID goes in the request body.
	ID     string
	Secret string
	// Assertion returns the JWT to present, fresh for each request.
	Assertion func(ctx context.Context, t *TokenRequest) (string, error)
}

// ClientID implements Flow.
func (j *JWTBearer) ClientID() string { return j.ID }

// Token implements Flow. A refused grant is not retried.
func (j *JWTBearer) Token(ctx context.Context, t *TokenRequest) (*oauth2.Token, error) {
	if j.Assertion == nil {
		return nil, errors.New("the JWT bearer flow has no assertion")
	}
	assertion, err := j.Assertion(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("obtaining the assertion: %w", err)
	}
	cfg := &clientcredentials.Config{
		ClientID:     j.ID,
		ClientSecret: j.Secret,
		TokenURL:     t.Metadata.TokenEndpoint,
		Scopes:       t.Scopes,
		AuthStyle:    authStyle("", j.Secret != "", t.Metadata),
		EndpointParams: url.Values{
			"grant_type": {GrantJWTBearer},
			"assertion":  {assertion},
			"resource":   {t.Resource},
		},
	}
	tok, err := cfg.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("JWT bearer grant at %s: %w", t.Metadata.Issuer, tokenError(err, j.Secret, assertion))
	}
	return tok, nil
}

// IdentityProvider is an enterprise identity provider that issues identity
// assertion authorization grants (ID-JAGs) by token exchange (RFC 8693), for
// enterprise-managed authorization.
type IdentityProvider struct {
	TokenEndpoint string
	ClientID      string
	ClientSecret  string
	// IDToken returns the user's ID token from the identity provider.
	IDToken func(ctx context.Context) (string, error)
}

// IDJAG returns an Assertion for JWTBearer that exchanges the identity
// provider's ID token for an ID-JAG addressed to the authorization server
// and the resource.
func (p *IdentityProvider) IDJAG(ctx context.Context, t *TokenRequest) (string, error) {
	if p.IDToken == nil {
		return "", errors.New("the identity provider has no ID token source")
	}
	u, err := url.Parse(p.TokenEndpoint)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("the identity provider's token endpoint %q is not an absolute URL", p.TokenEndpoint)
	}
	if err := checkEndpoint("the identity provider's token endpoint", u); err != nil {
		return "", err
	}
	idToken, err := p.IDToken(ctx)
	if err != nil {
		return "", err
	}
	cfg := &clientcredentials.Config{
		ClientID:     p.ClientID,
		ClientSecret: p.ClientSecret,
		TokenURL:     p.TokenEndpoint,
		Scopes:       t.Scopes,
		AuthStyle:    oauth2.AuthStyleInParams,
		EndpointParams: url.Values{
			"grant_type":           {GrantTokenExchange},
			"requested_token_type": {TokenTypeIDJAG},
			"audience":             {t.Metadata.Issuer},
			"resource":             {t.Resource},
			"subject_token":        {idToken},
			"subject_token_type":   {TokenTypeIDToken},
		},
	}
	if p.ClientSecret != "" {
		cfg.AuthStyle = oauth2.AuthStyleInHeader
	}
	tok, err := cfg.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("token exchange at the identity provider: %w", tokenError(err, p.ClientSecret, idToken))
	}
	if tt, _ := tok.Extra("issued_token_type").(string); tt != "" && tt != TokenTypeIDJAG {
		return "", fmt.Errorf("token exchange at the identity provider: it issued a %s, not an ID-JAG", tt)
	}
	return tok.AccessToken, nil
}

// clientAssertion signs the private_key_jwt assertion of clientID for the
// authorization server issuer.
func clientAssertion(key crypto.Signer, alg, kid, clientID, issuer string) (string, error) {
	sigAlg, err := signingAlgorithm(key, alg)
	if err != nil {
		return "", err
	}
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if kid != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), kid)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: sigAlg, Key: key}, opts)
	if err != nil {
		return "", fmt.Errorf("signing the client assertion: %w", err)
	}
	jti, err := randomString()
	if err != nil {
		return "", err
	}
	now := time.Now()
	claims := jwt.Claims{
		Issuer:   clientID,
		Subject:  clientID,
		Audience: jwt.Audience{issuer},
		ID:       jti,
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(5 * time.Minute)),
	}
	s, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		return "", fmt.Errorf("signing the client assertion: %w", err)
	}
	return s, nil
}

// signingAlgorithm returns alg, or the default algorithm of key.
func signingAlgorithm(key crypto.Signer, alg string) (jose.SignatureAlgorithm, error) {
	if alg != "" {
		return jose.SignatureAlgorithm(alg), nil
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve.Params().BitSize {
		case 256:
			return jose.ES256, nil
		case 384:
			return jose.ES384, nil
		case 521:
			return jose.ES512, nil
		}
	case *rsa.PrivateKey:
		return jose.RS256, nil
	case ed25519.PrivateKey:
		return jose.EdDSA, nil
	}
	return "", fmt.Errorf("no default signing algorithm for a %T key", key)
}

// StaticAssertion returns an Assertion for JWTBearer that presents jwt, such
// as a workload identity token read from the environment.
func StaticAssertion(jwt string) func(context.Context, *TokenRequest) (string, error) {
	return func(context.Context, *TokenRequest) (string, error) { return jwt, nil }
}

// ParsePrivateKey parses a PEM private key for a client assertion: PKCS #8,
// or the SEC 1 ("EC PRIVATE KEY") and PKCS #1 ("RSA PRIVATE KEY") forms.
func ParsePrivateKey(pemData []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return nil, errors.New("parsing the private key: no PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing the private key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("parsing the private key: a %T cannot sign", key)
	}
	return signer, nil
}
