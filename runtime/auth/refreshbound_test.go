package auth

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hangingToken is a RoundTripper that, while hang is set, holds every
// token endpoint request until the request's context ends or release is
// closed, as a token endpoint that never answers does.
type hangingToken struct {
	hang    atomic.Bool
	held    atomic.Int32
	release chan struct{}
}

func (h *hangingToken) RoundTrip(req *http.Request) (*http.Response, error) {
	if h.hang.Load() && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/token") {
		h.held.Add(1)
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-h.release:
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestRefreshBoundedByRequest checks that the refresh Authorize makes of
// an expired access token ends with the request's context: a token
// endpoint that never answers must not hold a request, and with it the
// Session's call and Close, for ever. The grant survives, and the next
// request refreshes it.
func TestRefreshBoundedByRequest(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.ttl = 11 * time.Second // valid for 1 s with oauth2's expiry margin of 10 s
	rs := newFakeRS(t, as)
	ht := &hangingToken{release: make(chan struct{})}
	t.Cleanup(func() { close(ht.release) })
	store := &MemoryStore{}
	o := &OAuth{Redirector: &approve{}, Store: store, HTTPClient: &http.Client{Transport: ht}}
	mustCall(t, o, rs.url())
	first, _ := store.Grant(context.Background(), as.issuer(), rs.url(), "as-client-1")
	waitTokenInvalid(t, first.Token)

	ht.hang.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rs.url(), nil)
	done := make(chan error, 1)
	go func() { done <- o.Authorize(req) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("Authorize still waits for the token endpoint 10 s after the request's context ended (%d token requests held)", ht.held.Load())
	}

	ht.hang.Store(false)
	req2, _ := http.NewRequest(http.MethodGet, rs.url(), nil)
	if err := o.Authorize(req2); err != nil {
		t.Fatal(err)
	}
	_, sent, _ := strings.Cut(req2.Header.Get("Authorization"), " ")
	if sent == "" || sent == first.Token.AccessToken {
		t.Errorf("after the abandoned refresh, the request went with token %q, want a refreshed one", sent)
	}
}

// TestSessionOutlivesHangingRefresh checks the same through a Session: a
// call whose token needs a refresh that never comes fails at its
// deadline, and Close returns.
func TestSessionOutlivesHangingRefresh(t *testing.T) {
	as := newFakeAS(t, "as", "")
	as.ttl = 11 * time.Second // valid for 1 s with oauth2's expiry margin of 10 s
	rs := newFakeRS(t, as)
	ht := &hangingToken{release: make(chan struct{})}
	store := &MemoryStore{}
	o := &OAuth{Redirector: &approve{}, Store: store, HTTPClient: &http.Client{Transport: ht}}
	s := connect(t, rs.url(), o, nil)
	// After connect's, so that it runs before the Session is closed.
	t.Cleanup(func() { close(ht.release) })
	callEcho(t, s)
	g, _ := store.Grant(context.Background(), as.issuer(), rs.url(), "as-client-1")
	waitTokenInvalid(t, g.Token)

	ht.hang.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "echo", nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the call succeeded without a token")
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the call still waits for the token endpoint 10 s after its deadline (%d token requests held)", ht.held.Load())
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close still waits for the token endpoint after 10 s")
	}
}
