package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/mcpgen/mcpgen/internal/redact"
)

// ErrNoClient is returned (wrapped) when OAuth has no client to sign in
// with: none is configured, and the authorization server supports no dynamic
// registration.
var ErrNoClient = errors.New("no client registration")

// registrationRequest is the client metadata of a dynamic registration (RFC
// 7591 section 2), with application_type from OpenID Connect registration.
type registrationRequest struct {
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type"`
	Scope                   string   `json:"scope,omitempty"`
}

// register registers a client dynamically at the registration endpoint of
// md, for the redirect URI redirectURI.
func register(ctx context.Context, c *http.Client, md *ServerMetadata, name, redirectURI string) (*Client, error) {
	if md.RegistrationEndpoint == "" {
		if md.ClientIDMetadataDocumentSupported {
			return nil, fmt.Errorf("authorization server %s supports no dynamic client registration but accepts a client ID metadata document: configure its URL (ClientMetadataURL) or a client ID: %w", md.Issuer, ErrNoClient)
		}
		return nil, fmt.Errorf("authorization server %s supports no dynamic client registration, and no client is registered for it: configure a client ID (and secret) for it: %w", md.Issuer, ErrNoClient)
	}
	method := "none"
	grants := []string{"authorization_code", "refresh_token"}
	reqBody := registrationRequest{
		ClientName:              name,
		RedirectURIs:            []string{redirectURI},
		GrantTypes:              grants,
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: method,
		ApplicationType:         "native",
	}
	body, err := json.Marshal(reqBody)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("registering a client: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("registering a client at %s: %w", md.RegistrationEndpoint, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataSize+1))
	if err != nil {
		return nil, fmt.Errorf("registering a client at %s: %w", md.RegistrationEndpoint, err)
	}
	if len(b) > maxMetadataSize {
		return nil, fmt.Errorf("registering a client at %s: the answer is larger than %d bytes", md.RegistrationEndpoint, maxMetadataSize)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("registering a client at %s: HTTP %d: %s", md.RegistrationEndpoint, resp.StatusCode, oauthErrorText(b))
	}
	var out Client
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("registering a client at %s: decoding the answer: %w", md.RegistrationEndpoint, err)
	}
	if out.ID == "" {
		return nil, fmt.Errorf("registering a client at %s: the answer has no client_id", md.RegistrationEndpoint)
	}
	if out.AuthMethod == "" {
		if out.Secret != "" {
			out.AuthMethod = "client_secret_basic"
		} else {
			out.AuthMethod = method
		}
	}
	if len(out.RedirectURIs) == 0 {
		out.RedirectURIs = []string{redirectURI}
	}
	return &out, nil
}

// oauthErrorText returns the error and error_description of an OAuth error
// answer (RFC 6749 section 5.2), quoted and cut as any text a server sends,
// or the start of the body when it is not one. Neither holds a secret the
// client sent.
func oauthErrorText(b []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		if e.Description != "" {
			return redact.Quote(e.Error + ": " + e.Description)
		}
		return redact.Quote(e.Error)
	}
	b = bytes.TrimSpace(b)
	if len(b) > 200 {
		b = append(b[:200:200], "..."...)
	}
	return fmt.Sprintf("%q", b)
}
