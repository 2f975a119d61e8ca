package auth

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestLoopbackOneResponse checks the loopback redirector: it listens on
// 127.0.0.1 only, on a port of its own, takes the first authorization
// response, and never answers a second one as a success: the second gets a
// 409, or no connection once the redirector is done.
func TestLoopbackOneResponse(t *testing.T) {
	var redirectURI string
	second := make(chan string, 1)
	l := &Loopback{Timeout: 5 * time.Second, Open: func(ctx context.Context, authURL string) error {
		u, err := url.Parse(redirectURI)
		if err != nil {
			return err
		}
		if _, err := net.DialTimeout("tcp", net.JoinHostPort("::1", u.Port()), time.Second); err == nil {
			t.Error("the redirector accepts connections on ::1")
		}
		resp, err := http.Get(redirectURI + "?code=first&state=s")
		if err != nil {
			return err
		}
		resp.Body.Close()
		// The same connection, kept alive, before the redirector shuts
		// down.
		resp, err = http.Get(redirectURI + "?code=second&state=s")
		if err != nil {
			second <- "no connection"
			return nil
		}
		resp.Body.Close()
		second <- resp.Status
		return nil
	}}
	q, err := l.Redirect(context.Background(), func(ru string) (string, error) {
		redirectURI = ru
		return "https://as.example/authorize", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if q.Get("code") != "first" || q.Get("state") != "s" {
		t.Errorf("response %v, want the first one", q)
	}
	if s := <-second; s != "409 Conflict" && s != "no connection" {
		t.Errorf("a second response got %s, want 409 Conflict or no connection", s)
	}
	u, _ := url.Parse(redirectURI)
	if u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.Port() == "0" || u.Path != "/callback" {
		t.Errorf("redirect URI %s, want http://127.0.0.1:PORT/callback", redirectURI)
	}
	if _, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		t.Error("the listener is still open after the response")
	}
}

// TestLoopbackRandomPorts checks that two sign-ins at once listen on
// different ports.
func TestLoopbackRandomPorts(t *testing.T) {
	uris := make(chan string, 2)
	release := make(chan struct{})
	for range 2 {
		go func() {
			l := &Loopback{Timeout: 5 * time.Second, Open: func(context.Context, string) error {
				<-release
				return nil
			}}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			l.Redirect(ctx, func(ru string) (string, error) {
				uris <- ru
				return "https://as.example/authorize", nil
			})
		}()
	}
	a, b := <-uris, <-uris
	close(release)
	if a == b {
		t.Errorf("two redirectors share %s", a)
	}
}

// TestLoopbackTimeout checks that the redirector gives up when no response
// comes within its timeout, and says so.
func TestLoopbackTimeout(t *testing.T) {
	l := &Loopback{Timeout: 100 * time.Millisecond, Open: func(context.Context, string) error { return nil }}
	start := time.Now()
	_, err := l.Redirect(context.Background(), func(string) (string, error) { return "https://as.example/authorize", nil })
	if err == nil || !strings.Contains(err.Error(), "no authorization response within 100ms") {
		t.Fatalf("error %v, want a timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("gave up after %s", d)
	}
}
