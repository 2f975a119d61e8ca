package auth

import (
	"net/url"
	"testing"
)

// FuzzMetadata decodes arbitrary documents as protected resource metadata
// and as authorization server metadata. Neither may panic, and what they
// accept must hold: a resource on the server's origin and above its path,
// absolute authorization servers, the exact issuer, and absolute http(s)
// endpoints without fragments, a token endpoint among them.
func FuzzMetadata(f *testing.F) {
	for _, s := range []string{
		`{"resource":"https://mcp.example/api/mcp","authorization_servers":["https://as.example/tenant1"],"scopes_supported":["a"]}`,
		`{"resource":"https://MCP.example:443/","authorization_servers":["https://as.example"]}`,
		`{"resource":"https://mcp.example/api/mcpx","authorization_servers":["as.example"]}`,
		`{"issuer":"https://as.example/tenant1","authorization_endpoint":"/tenant1/authorize","token_endpoint":"https://as.example/tenant1/token","registration_endpoint":"register","code_challenge_methods_supported":["S256"]}`,
		`{"issuer":"https://as.example/tenant1","token_endpoint":"//other.example/token"}`,
		`{"issuer":"https://as.example/tenant1","token_endpoint":"http:token"}`,
		`{"issuer":"https://as.example/tenant1","token_endpoint":"/token#f"}`,
		`{"issuer":"https://as.example/tenant1/","token_endpoint":"/token"}`,
		`null`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	server, _ := url.Parse("https://mcp.example/api/mcp")
	const issuer = "https://as.example/tenant1"
	const at = "https://as.example/.well-known/oauth-authorization-server/tenant1"
	f.Fuzz(func(t *testing.T, data []byte) {
		if prm, err := DecodeResourceMetadata(data, server); err == nil {
			r, err := url.Parse(prm.Resource)
			if err != nil || !coversResource(r, server) {
				t.Fatalf("accepted resource %q for %s", prm.Resource, server)
			}
			if c, err := url.Parse(canonicalResource(r)); err != nil || !coversResource(c, server) {
				t.Fatalf("the canonical form %q of %q does not cover %s", canonicalResource(r), prm.Resource, server)
			}
			for _, as := range prm.AuthorizationServers {
				if u, err := url.Parse(as); err != nil || !u.IsAbs() || u.Host == "" {
					t.Fatalf("accepted authorization server %q", as)
				}
			}
		}
		md, err := DecodeServerMetadata(data, issuer, at)
		if err != nil {
			return
		}
		if md.Issuer != issuer {
			t.Fatalf("accepted issuer %q for %q", md.Issuer, issuer)
		}
		if md.TokenEndpoint == "" {
			t.Fatal("accepted metadata without a token endpoint")
		}
		for _, e := range []string{md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint} {
			if e == "" {
				continue
			}
			u, err := url.Parse(e)
			if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Fragment != "" || u.String() != e {
				t.Fatalf("accepted endpoint %q", e)
			}
		}
	})
}
