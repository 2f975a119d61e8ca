package auth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestMissingIssuerIsErrNoIssuer(t *testing.T) {
	_, err := DecodeServerMetadata([]byte(`{"authorization_endpoint":"/auth/authorize","token_endpoint":"/auth/token"}`), "http://ha.local:8123", "http://ha.local:8123/.well-known/oauth-authorization-server")
	if !errors.Is(err, ErrNoIssuer) || !strings.Contains(err.Error(), "has no issuer") {
		t.Fatalf("error %v, want ErrNoIssuer", err)
	}
}

func TestNoRegistrationIsErrNoClient(t *testing.T) {
	for _, cimd := range []bool{false, true} {
		md := &ServerMetadata{Issuer: "https://as.example", ClientIDMetadataDocumentSupported: cimd}
		_, err := register(context.Background(), http.DefaultClient, md, "mcpgen", "http://127.0.0.1:1/callback")
		if !errors.Is(err, ErrNoClient) {
			t.Fatalf("cimd %v: error %v, want ErrNoClient", cimd, err)
		}
		if cimd != strings.Contains(err.Error(), "client ID metadata document") {
			t.Errorf("cimd %v: error %q", cimd, err)
		}
	}
}

func TestLoopbackFixedPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	l := &Loopback{Port: port, Timeout: time.Minute, Open: FollowRedirects(nil)}
	var got string
	q, err := l.Redirect(context.Background(), testIssuer, func(redirectURI string) (string, error) {
		got = redirectURI
		return redirectURI + "?" + url.Values{"code": {"c"}, "state": {"s"}}.Encode(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("http://127.0.0.1:%d%s", port, RedirectPath(testIssuer)); got != want || q.Get("code") != "c" {
		t.Fatalf("redirect URI %s, code %q; want %s and c", got, q.Get("code"), want)
	}
	if _, err := (&Loopback{Port: -1, Open: FollowRedirects(nil)}).Redirect(context.Background(), testIssuer, nil); err == nil {
		t.Fatal("port -1 was accepted")
	}
}
