// Package origin compares the hosts of URLs as the web compares origins: a
// host without a port stands for its scheme's default port, so that
// http://example.com and http://example.com:80 are one.
package origin

import (
	"net/url"
	"strings"
)

// HostPort returns u's host with its port, the scheme's default (80 for
// http, 443 for https) when u names none; u.Host as it is for another
// scheme.
func HostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u.Host + ":443"
	case "http":
		return u.Host + ":80"
	}
	return u.Host
}

// SameHost reports whether a and b name the same host and port, a port left
// out being its scheme's default; host names compare without regard to
// case.
func SameHost(a, b *url.URL) bool {
	return strings.EqualFold(HostPort(a), HostPort(b))
}
