package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// testHookResponseTaken, when set by a test, runs once Redirect has taken
// the authorization response, before its server shuts down.
var testHookResponseTaken func()

// A Redirector takes the user to an authorization endpoint and brings back
// the authorization response.
type Redirector interface {
	// Redirect starts receiving one authorization response from the
	// authorization server issuer, calls authURL with the redirect URI it
	// receives it at to get the URL the user is sent to, sends the user
	// there, and returns the query parameters of the response (code, state,
	// iss, or error). The redirect URI must be one of issuer's own, such
	// as RedirectPath gives, so that a response meant for another issuer
	// never arrives there (the mix-up defence of RFC 9700 section 4.4).
	Redirect(ctx context.Context, issuer string, authURL func(redirectURI string) (string, error)) (url.Values, error)
}

// RedirectPath returns the path of the loopback redirect URI for the
// authorization server issuer: /callback/ and a short hash of the issuer
// identifier. A client registered in advance with issuer lists
// http://127.0.0.1/callback/HASH among its redirect URIs.
func RedirectPath(issuer string) string {
	h := sha256.Sum256([]byte(issuer))
	return "/callback/" + hex.EncodeToString(h[:8])
}

// DefaultLoopbackTimeout is how long a Loopback waits for the authorization
// response.
const DefaultLoopbackTimeout = 5 * time.Minute

// Loopback is a Redirector for native applications (RFC 8252 section 7.3):
// it receives the authorization response on
// http://127.0.0.1:PORT/callback/HASH (see RedirectPath), with a port chosen
// at random unless Port is set, and gives up after Timeout. Signing in for
// OAuth with a client registered before, it takes the port of the client's
// redirect URI when that port is free. It accepts one response: one with
// the state of the authorization URL, sent to 127.0.0.1:PORT. A request
// with another state, or another Host (as a web page rebinding a name to
// 127.0.0.1 sends), is answered with an error page and ignored.
type Loopback struct {
	// Open shows the user the authorization URL, for example by printing
	// it and opening a browser. It is required.
	Open func(ctx context.Context, authURL string) error

	// Timeout bounds the wait for the response; DefaultLoopbackTimeout
	// when zero.
	Timeout time.Duration

	// Port, when not zero, is the port to listen on instead of a random
	// one, for authorization servers that tie the client ID to the
	// redirect URI's origin (IndieAuth, as Home Assistant does).
	Port int
}

// Redirect implements Redirector.
func (l *Loopback) Redirect(ctx context.Context, issuer string, authURL func(redirectURI string) (string, error)) (url.Values, error) {
	if l.Open == nil {
		return nil, errors.New("the loopback redirector has no Open function")
	}
	if l.Port < 0 || l.Port > 65535 {
		return nil, fmt.Errorf("the loopback port %d is not a TCP port", l.Port)
	}
	path := RedirectPath(issuer)
	var ln net.Listener
	if l.Port == 0 {
		ln = listenRegistered(ctx, path)
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", l.Port)); err != nil {
			return nil, fmt.Errorf("listening for the authorization response: %w", err)
		}
	}
	defer ln.Close()
	host := fmt.Sprintf("127.0.0.1:%d", ln.Addr().(*net.TCPAddr).Port)
	redirectURI := "http://" + host + path
	u, err := authURL(redirectURI)
	if err != nil {
		return nil, err
	}
	var state string
	if pu, err := url.Parse(u); err == nil {
		state = pu.Query().Get("state")
	}
	// answered lets one response through; got holds it until Redirect
	// takes it. A flag of its own, because a channel whose buffer
	// Redirect has emptied would let a second response through as a
	// success in the moment before the server shuts down.
	var answered atomic.Bool
	got := make(chan url.Values, 1)
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.URL.Path != path {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			q := r.URL.Query()
			switch {
			case r.Host != host:
				loopbackPage(w, http.StatusBadRequest, "This request was not sent to "+host+": it is ignored.")
				return
			case state != "" && q.Get("state") != state:
				loopbackPage(w, http.StatusBadRequest, "This response does not belong to the sign-in in progress: it is ignored.")
				return
			}
			if !answered.CompareAndSwap(false, true) {
				loopbackPage(w, http.StatusConflict, "This sign-in has already been answered.")
				return
			}
			got <- q
			msg := "Signed in. You can close this window."
			if e := q.Get("error"); e != "" {
				msg = "Sign-in failed: " + e
			}
			loopbackPage(w, http.StatusOK, msg)
		}),
	}
	go srv.Serve(ln)
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultLoopbackTimeout
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	openErr := make(chan error, 1)
	go func() { openErr <- l.Open(wctx, u) }()
	for {
		select {
		case q := <-got:
			if testHookResponseTaken != nil {
				testHookResponseTaken()
			}
			return q, nil
		case err := <-openErr:
			if err != nil {
				return nil, fmt.Errorf("opening the authorization URL: %w", err)
			}
			openErr = nil
		case <-wctx.Done():
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("no authorization response within %s", timeout)
		}
	}
}

// registeredRedirectsKey keys, in the context of Redirect, the redirect URIs
// of the client OAuth would sign in with.
type registeredRedirectsKey struct{}

// listenRegistered listens on the port of the loopback redirect URI at path
// that the client of the sign-in in ctx is registered with, and returns nil
// when there is none or the port is taken. A client registered dynamically
// lists the redirect URI of its first sign-in, port included, and many
// authorization servers compare it whole; on another port, OAuth would
// register a new client.
func listenRegistered(ctx context.Context, path string) net.Listener {
	uris, _ := ctx.Value(registeredRedirectsKey{}).([]string)
	for _, s := range uris {
		u, err := url.Parse(s)
		if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.EscapedPath() != path {
			continue
		}
		if ln, err := net.Listen("tcp", "127.0.0.1:"+u.Port()); err == nil {
			return ln
		}
	}
	return nil
}

// loopbackPage answers a request to the loopback listener with msg.
func loopbackPage(w http.ResponseWriter, status int, msg string) {
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><title>mcpgen</title><p>%s</p>\n", html.EscapeString(msg))
}

// FollowRedirects returns an Open function for a Loopback that requests the
// authorization URL itself and follows its redirects, for authorization
// servers that approve without asking the user, such as test servers. A nil
// client means http.DefaultClient's transport.
func FollowRedirects(client *http.Client) func(ctx context.Context, authURL string) error {
	return func(ctx context.Context, authURL string) error {
		c := http.Client{}
		if client != nil {
			c.Transport = client.Transport
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
}
