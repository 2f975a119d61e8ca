package auth

import (
	"errors"
	"net/url"
	"strings"
)

// ServerResources returns the resource indicators under which a Store may
// hold grants for the MCP server at serverURL, without asking the server:
// its canonical URL, then each path above it on the same origin, since its
// protected resource metadata may name any of them (RFC 9728 section 3.3).
// Forgetting all of them signs out of the server.
func ServerResources(serverURL string) ([]string, error) {
	u, err := url.Parse(serverURL)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, errors.New("the server URL is not an absolute URL")
	}
	var out []string
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	for path != "" {
		p, err := url.PathUnescape(path)
		if err != nil {
			return nil, errors.New("the server URL has a malformed path")
		}
		out = append(out, canonicalResource(&url.URL{Scheme: u.Scheme, Host: u.Host, Path: p, RawPath: path}))
		path = path[:strings.LastIndexByte(path, '/')]
	}
	// The origin, with and without its trailing slash.
	origin := canonicalResource(&url.URL{Scheme: u.Scheme, Host: u.Host})
	return append(out, origin, origin+"/"), nil
}
