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

const testIssuer = "https://as.example"

// TestLoopbackOneResponse checks the loopback redirector: it listens on
// 127.0.0.1 only, on a port of its own, takes the first authorization
// response, and never answers a second one as a success: the second gets a
// 409, or no connection once the redirector is done.
func TestLoopbackOneResponse(t *testing.T) {
	var redirectURI string
	second := make(chan string, 1)
	// The timeout only bounds a failure: the test ends on the response.
	l := &Loopback{Timeout: time.Minute, Open: func(ctx context.Context, authURL string) error {
		u, err := url.Parse(redirectURI)
		if err != nil {
			return err
		}
		if c, err := net.Dial("tcp", net.JoinHostPort("::1", u.Port())); err == nil {
			c.Close()
			t.Error("the redirector accepts connections on ::1")
		}
		// The second on the same connection, kept alive, before the
		// redirector shuts down.
		return answerTwice(redirectURI, nil, second)
	}}
	q := redirect(t, l, "https://as.example/authorize?state=s", &redirectURI)
	if q.Get("code") != "first" || q.Get("state") != "s" {
		t.Errorf("response %v, want the first one", q)
	}
	if s := <-second; s != "409 Conflict" && s != "no connection" {
		t.Errorf("a second response got %s, want 409 Conflict or no connection", s)
	}
	u, _ := url.Parse(redirectURI)
	if u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.Port() == "0" || u.Path != RedirectPath(testIssuer) {
		t.Errorf("redirect URI %s, want http://127.0.0.1:PORT%s", redirectURI, RedirectPath(testIssuer))
	}
	if c, err := net.Dial("tcp", u.Host); err == nil {
		c.Close()
		t.Error("the listener is still open after the response")
	}
}

// TestLoopbackRandomPorts checks that two sign-ins at once listen on
// different ports. A redirector that cannot listen fails the test at once
// with its error.
func TestLoopbackRandomPorts(t *testing.T) {
	type result struct {
		uri string
		err error
	}
	results := make(chan result, 2)
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 2 {
		go func() {
			l := &Loopback{Timeout: time.Minute, Open: func(context.Context, string) error {
				<-release
				return nil
			}}
			sent := false
			_, err := l.Redirect(ctx, testIssuer, func(ru string) (string, error) {
				sent = true
				results <- result{uri: ru}
				return "https://as.example/authorize", nil
			})
			if !sent {
				results <- result{err: err}
			}
		}()
	}
	a, b := <-results, <-results
	close(release)
	for _, r := range []result{a, b} {
		if r.err != nil {
			t.Fatalf("a redirector could not start: %v", r.err)
		}
	}
	if a.uri == b.uri {
		t.Errorf("two redirectors share %s", a.uri)
	}
}

// TestLoopbackTimeout checks that the redirector gives up when no response
// comes within its timeout, and says so.
func TestLoopbackTimeout(t *testing.T) {
	l := &Loopback{Timeout: 100 * time.Millisecond, Open: func(context.Context, string) error { return nil }}
	_, err := l.Redirect(context.Background(), testIssuer, func(string) (string, error) { return "https://as.example/authorize", nil })
	if err == nil || !strings.Contains(err.Error(), "no authorization response within 100ms") {
		t.Fatalf("error %v, want a timeout", err)
	}
}

// TestLoopbackIgnoresForgedResponses checks that requests with another
// state, another Host, or to another issuer's redirect path are answered
// with an error and do not end the sign-in: the right response, sent after
// them, is the one returned.
func TestLoopbackIgnoresForgedResponses(t *testing.T) {
	statuses := make(chan []int, 1)
	var redirectURI string
	l := &Loopback{Timeout: time.Minute, Open: func(ctx context.Context, authURL string) error {
		u, _ := url.Parse(redirectURI)
		other := *u
		other.Path = RedirectPath("https://other.example")
		var got []int
		// Sent however Open ends, so that a broken redirector fails the
		// test rather than hanging it.
		defer func() { statuses <- got }()
		for _, forged := range []struct{ url, host string }{
			{redirectURI + "?code=forged&state=wrong", ""},
			{redirectURI + "?code=forged", ""},
			{redirectURI + "?code=forged&state=s", "evil.example:" + u.Port()},
			{redirectURI + "?code=forged&state=s", "localhost:" + u.Port()},
			{other.String() + "?code=forged&state=s", ""},
		} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, forged.url, nil)
			if forged.host != "" {
				req.Host = forged.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			resp.Body.Close()
			got = append(got, resp.StatusCode)
		}
		resp, err := http.Get(redirectURI + "?code=right&state=s")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}}
	q := redirect(t, l, "https://as.example/authorize?client_id=c&state=s", &redirectURI)
	if q.Get("code") != "right" {
		t.Errorf("returned %v, want the right response", q)
	}
	want := []int{400, 400, 400, 400, 404}
	got := <-statuses
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("forged requests got %v, want %v", got, want)
		}
	}
}

// TestRedirectPathPerIssuer checks that each issuer has a redirect path of
// its own, which the sign-in sends as its redirect URI.
func TestRedirectPathPerIssuer(t *testing.T) {
	a, b := RedirectPath("https://as.example"), RedirectPath("https://as.example/tenant2")
	if a == b || !strings.HasPrefix(a, "/callback/") || len(a) != len("/callback/")+16 {
		t.Fatalf("paths %s and %s, want two /callback/HASH paths", a, b)
	}
	as1, as2 := newFakeAS(t, "one", ""), newFakeAS(t, "two", "")
	for _, as := range []*fakeAS{as1, as2} {
		rs := newFakeRS(t, as)
		o := &OAuth{Redirector: &approve{}}
		mustCall(t, o, rs.url())
		reqs := as.authRequests()
		ru, _ := url.Parse(reqs[len(reqs)-1].Get("redirect_uri"))
		if ru.Path != RedirectPath(as.issuer()) {
			t.Errorf("issuer %s: redirect URI %s, want the path %s", as.issuer(), ru, RedirectPath(as.issuer()))
		}
	}
}

// TestLoopbackSecondResponseAfterTheFirstWasTaken checks the moment after
// Redirect has taken the first response and before its server shuts down:
// a second response arriving then is answered 409, not as a success that
// nobody reads. (TestLoopbackOneResponse sends its second response at
// once, and meets that moment only now and then.)
func TestLoopbackSecondResponseAfterTheFirstWasTaken(t *testing.T) {
	taken, secondDone := make(chan struct{}), make(chan struct{})
	testHookResponseTaken = func() {
		close(taken)
		<-secondDone
	}
	defer func() { testHookResponseTaken = nil }()
	var redirectURI string
	second := make(chan string, 1)
	l := &Loopback{Timeout: time.Minute, Open: func(ctx context.Context, authURL string) error {
		defer close(secondDone)
		return answerTwice(redirectURI, taken, second)
	}}
	q := redirect(t, l, "https://as.example/authorize?state=s", &redirectURI)
	if q.Get("code") != "first" {
		t.Errorf("response %v, want the first one", q)
	}
	if s := <-second; s != "409 Conflict" {
		t.Errorf("a second response after the first was taken got %s, want 409 Conflict", s)
	}
}

// answerTwice sends the authorization response code=first to the
// redirector at redirectURI, waits for between when it is set, sends
// code=second, and puts the second's HTTP status on second, or "no
// connection" when it found none.
func answerTwice(redirectURI string, between <-chan struct{}, second chan<- string) error {
	resp, err := http.Get(redirectURI + "?code=first&state=s")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if between != nil {
		<-between
	}
	resp, err = http.Get(redirectURI + "?code=second&state=s")
	if err != nil {
		second <- "no connection"
		return nil
	}
	resp.Body.Close()
	second <- resp.Status
	return nil
}

// redirect runs l.Redirect for a sign-in whose authorization URL is
// authURL, keeps the redirect URI it is given in *redirectURI, where l.Open
// reads it, and returns the response, failing t on an error.
func redirect(t *testing.T, l *Loopback, authURL string, redirectURI *string) url.Values {
	t.Helper()
	q, err := l.Redirect(context.Background(), testIssuer, func(ru string) (string, error) {
		*redirectURI = ru
		return authURL, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return q
}
