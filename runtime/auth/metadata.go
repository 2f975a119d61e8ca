package auth

import (
	"github.com/mcpgen/mcpgen/internal/origin"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// ResourceMetadata is an OAuth 2.0 Protected Resource Metadata document
// (RFC 9728): what an MCP server says about its own authorization.
type ResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
	BearerMethods        []string `json:"bearer_methods_supported,omitempty"`
}

// ServerMetadata is an OAuth 2.0 Authorization Server Metadata document
// (RFC 8414), or the OpenID Connect discovery document, which has the same
// fields.
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                     string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported            []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported               []string `json:"grant_types_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	// TokenEndpointAuthSigningAlgs lists the algorithms the token endpoint
	// accepts for private_key_jwt.
	TokenEndpointAuthSigningAlgs      []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported,omitempty"`
	// IssParameterSupported says the authorization response carries iss
	// (RFC 9207).
	IssParameterSupported bool     `json:"authorization_response_iss_parameter_supported,omitempty"`
	DPoPSigningAlgs       []string `json:"dpop_signing_alg_values_supported,omitempty"`
}

// maxMetadataSize bounds a metadata document or a token endpoint answer.
const maxMetadataSize = 1 << 20

// resourceMetadataURLs returns where the protected resource metadata of the
// MCP server at server is looked for, in order (RFC 9728 section 3.1 and
// the MCP authorization spec): the URL of the WWW-Authenticate challenge,
// then the path-based well-known URL, then the one at the root.
func resourceMetadataURLs(server *url.URL, fromHeader string) []string {
	var out []string
	if fromHeader != "" {
		out = append(out, fromHeader)
	}
	root := &url.URL{Scheme: server.Scheme, Host: server.Host, Path: "/.well-known/oauth-protected-resource"}
	if p := strings.TrimSuffix(server.EscapedPath(), "/"); p != "" {
		out = append(out, root.String()+p)
	}
	return append(out, root.String())
}

// serverMetadataURLs returns where the metadata of the authorization server
// whose issuer identifier is issuer is looked for, in order: OAuth metadata
// then OpenID discovery, with the well-known segment inserted before the
// issuer's path (RFC 8414 section 3.1), and OpenID's own form that appends it.
func serverMetadataURLs(issuer *url.URL) []string {
	origin := issuer.Scheme + "://" + issuer.Host
	p := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if p == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}
}

// errNotFound reports a metadata document that is not there (404 and the
// like), as opposed to one that is there and wrong.
var errNotFound = errors.New("not found")

// getJSON fetches u and decodes its JSON body into v. A 4xx answer is
// errNotFound, so that the next candidate URL can be tried.
func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return fmt.Errorf("GET %s: HTTP %d: %w", u, resp.StatusCode, errNotFound)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return fmt.Errorf("GET %s: content type %q is not JSON: %w", u, mt, errNotFound)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataSize+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if len(b) > maxMetadataSize {
		return fmt.Errorf("GET %s: the document is larger than %d bytes", u, maxMetadataSize)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: decoding the document: %w", u, err)
	}
	return nil
}

// DecodeResourceMetadata decodes and checks a protected resource metadata
// document fetched for the MCP server at server: its resource must name the
// server, or a path above it on the same origin (RFC 9728 section 3.3).
func DecodeResourceMetadata(data []byte, server *url.URL) (*ResourceMetadata, error) {
	var m ResourceMetadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decoding protected resource metadata: %w", err)
	}
	return &m, checkResourceMetadata(&m, server)
}

func checkResourceMetadata(m *ResourceMetadata, server *url.URL) error {
	if m.Resource == "" {
		return errors.New("protected resource metadata has no resource")
	}
	r, err := url.Parse(m.Resource)
	if err != nil || !r.IsAbs() {
		return fmt.Errorf("protected resource metadata: resource %s is not an absolute URL", excerpt(m.Resource))
	}
	if !coversResource(r, server) {
		return fmt.Errorf("protected resource metadata names resource %s, which is not the server %s: refusing to authorize for it", excerpt(m.Resource), stripURL(server))
	}
	for _, as := range m.AuthorizationServers {
		u, err := url.Parse(as)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return fmt.Errorf("protected resource metadata: authorization server %s is not an absolute URL", excerpt(as))
		}
		if err := checkEndpoint("protected resource metadata: authorization server", u); err != nil {
			return err
		}
	}
	return nil
}

// coversResource reports whether the resource identifier r names server or
// a path above it, on the same scheme, host and port.
func coversResource(r, server *url.URL) bool {
	if !strings.EqualFold(r.Scheme, server.Scheme) || !origin.SameHost(r, server) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(server.EscapedPath(), "/")
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

// ErrNoIssuer is returned (wrapped) for authorization server metadata
// without an issuer, which OAuth refuses unless AllowMissingIssuer is set.
var ErrNoIssuer = errors.New("the authorization server metadata has no issuer")

// DecodeServerMetadata decodes and checks an authorization server metadata
// document fetched from metadataURL for the issuer identifier issuer. Its
// issuer must be issuer exactly (RFC 8414 section 3.3), and its endpoints are
// resolved against metadataURL when relative.
func DecodeServerMetadata(data []byte, issuer, metadataURL string) (*ServerMetadata, error) {
	var m ServerMetadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decoding authorization server metadata: %w", err)
	}
	return &m, checkServerMetadata(&m, issuer, metadataURL, false)
}

// checkServerMetadata checks m, fetched from metadataURL for issuer. With
// allowMissingIssuer, a document without an issuer (as some servers reached
// through a local address serve) takes issuer as its own.
func checkServerMetadata(m *ServerMetadata, issuer, metadataURL string, allowMissingIssuer bool) error {
	switch {
	case m.Issuer == "" && allowMissingIssuer:
		m.Issuer = issuer
	case m.Issuer == "":
		return fmt.Errorf("%w (fetched from %s): set AllowMissingIssuer to accept it for this server", ErrNoIssuer, metadataURL)
	case m.Issuer != issuer:
		return fmt.Errorf("authorization server metadata at %s names issuer %s, not %q (RFC 8414 section 3.3): refusing it", metadataURL, excerpt(m.Issuer), issuer)
	}
	base, err := url.Parse(metadataURL)
	if err != nil {
		return fmt.Errorf("authorization server metadata URL %q: %w", metadataURL, err)
	}
	for _, e := range []struct {
		name string
		v    *string
	}{
		{"authorization_endpoint", &m.AuthorizationEndpoint},
		{"token_endpoint", &m.TokenEndpoint},
		{"registration_endpoint", &m.RegistrationEndpoint},
	} {
		if *e.v == "" {
			continue
		}
		u, err := url.Parse(*e.v)
		if err != nil {
			return fmt.Errorf("authorization server metadata: %s %s is not a URL", e.name, excerpt(*e.v))
		}
		u = base.ResolveReference(u)
		if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
			return fmt.Errorf("authorization server metadata: %s %s is not an http(s) URL", e.name, excerpt(*e.v))
		}
		if u.Fragment != "" {
			return fmt.Errorf("authorization server metadata: %s %s has a fragment", e.name, excerpt(*e.v))
		}
		if err := checkEndpoint("authorization server metadata: "+e.name, u); err != nil {
			return err
		}
		// A host that url.Parse lets through only in a reference, such
		// as "//::/", resolves to a URL that does not parse back: a
		// request to it would fail later, far from the document that
		// named it.
		abs := u.String()
		if v, err := url.Parse(abs); err != nil || v.String() != abs {
			return fmt.Errorf("authorization server metadata: %s %s is not a URL", e.name, excerpt(*e.v))
		}
		*e.v = abs
	}
	if m.TokenEndpoint == "" {
		return fmt.Errorf("authorization server metadata at %s has no token_endpoint", metadataURL)
	}
	return nil
}

// stripURL returns u without user info, query and fragment.
func stripURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	c.ForceQuery = false
	c.Fragment = ""
	c.RawFragment = ""
	return c.String()
}

// canonicalResource returns the canonical form of a resource indicator (RFC
// 8707 and the MCP spec): lower-case scheme and host, no default port, no
// fragment, no query, and no trailing slash unless the path is only "/".
func canonicalResource(u *url.URL) string {
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}
	switch {
	case c.Scheme == "https" && strings.HasSuffix(c.Host, ":443"):
		c.Host = strings.TrimSuffix(c.Host, ":443")
	case c.Scheme == "http" && strings.HasSuffix(c.Host, ":80"):
		c.Host = strings.TrimSuffix(c.Host, ":80")
	}
	s := c.String()
	if c.Path != "/" {
		s = strings.TrimSuffix(s, "/")
	}
	return s
}
