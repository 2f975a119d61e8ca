package auth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrInsecureEndpoint is returned (wrapped) for an OAuth endpoint or
// metadata URL that is plain http to a host other than this machine's.
var ErrInsecureEndpoint = errors.New("plain http to a host other than this machine")

// checkEndpoint checks that the URL u, the OAuth endpoint or metadata
// document what names, is https, or http to a loopback host: nothing of
// OAuth travels in the clear over a network.
func checkEndpoint(what string, u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("%s %s is %w: refusing it (OAuth endpoints must use https)", what, excerpt(stripURL(u)), ErrInsecureEndpoint)
	}
	return fmt.Errorf("%s %s is not an http(s) URL", what, excerpt(stripURL(u)))
}

// isLoopbackHost reports whether host is a loopback address or a name that
// always means this machine (localhost, RFC 6761).
func isLoopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// isPublicAddr reports whether ip is an address on the public internet: not
// loopback, link-local (such as a cloud metadata service at
// 169.254.169.254), private, shared (100.64.0.0/10), unspecified or
// multicast.
func isPublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	shared := netip.MustParsePrefix("100.64.0.0/10")
	return ip.IsValid() && !ip.IsLoopback() && !ip.IsLinkLocalUnicast() && !ip.IsLinkLocalMulticast() &&
		!ip.IsPrivate() && !ip.IsUnspecified() && !ip.IsMulticast() && !ip.IsInterfaceLocalMulticast() && !shared.Contains(ip)
}

// lookupHost resolves a host name; a variable for the tests.
var lookupHost = func(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// checkResourceMetadataURL applies the rule for the resource_metadata URL
// of a server's challenge: it is fetched when it is on the MCP server's own
// origin, or over https from a host whose every address is public. Another
// origin on this machine or the local network (a cloud metadata service, a
// router) is never asked on a server's word.
func checkResourceMetadataURL(ctx context.Context, raw string, server *url.URL) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, fmt.Errorf("the server's resource_metadata %s is not an absolute URL", excerpt(raw))
	}
	if sameOrigin(u, server) {
		return u, nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("the server's resource_metadata %s is on another origin than the server and %s: refusing to fetch it (only the server's own origin, or https to a public address, is fetched)", excerpt(stripURL(u)), why)
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return nil, refuse("is not https")
	}
	host := u.Hostname()
	if isLoopbackHost(host) {
		return nil, refuse("is on this machine")
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else if addrs, err = lookupHost(ctx, host); err != nil {
		return nil, refuse("its host cannot be resolved")
	}
	for _, ip := range addrs {
		if !isPublicAddr(ip) {
			return nil, refuse(fmt.Sprintf("its host has the non-public address %s", ip))
		}
	}
	return u, nil
}

// maxExcerpt is the most runes of a fetched value an error quotes.
const maxExcerpt = 64

// excerpt returns s, cut to maxExcerpt runes, quoted with Go escapes, for an
// error to name a value a server sent without passing on terminal escapes
// or long text.
func excerpt(s string) string {
	if utf8.RuneCountInString(s) > maxExcerpt {
		r := []rune(s)
		s = string(r[:maxExcerpt]) + "…"
	}
	return strconv.Quote(s)
}
