package auth

import (
	"testing"
	"time"
)

// TestRegistrationKeptAcrossLoopbackPorts signs in to two MCP servers that
// share an authorization server, each sign-in through a Loopback of its
// own, as two runs of mcpgen login are. The second listens on the port the
// first registered its client with, so that the registration serves again:
// a new one, on a random port, superseded the first's and, with it, the
// grant for the first server, and a later command for it found no sign-in.
func TestRegistrationKeptAcrossLoopbackPorts(t *testing.T) {
	as := newFakeAS(t, "as", "")
	a, b := newFakeRS(t, as), newFakeRS(t, as)
	store := &FileStore{Dir: t.TempDir()}
	loopback := func() Redirector { return &Loopback{Open: FollowRedirects(nil), Timeout: time.Minute} }
	mustCall(t, &OAuth{Redirector: loopback(), Store: store}, a.url())
	mustCall(t, &OAuth{Redirector: loopback(), Store: store}, b.url())
	// Later commands, with no sign-in of their own.
	mustCall(t, &OAuth{Store: store}, a.url())
	mustCall(t, &OAuth{Store: store}, b.url())
	regs := as.registrations()
	if len(regs) != 1 {
		t.Fatalf("%d client registrations, want 1", len(regs))
	}
	registered := toStrings(regs[0]["redirect_uris"])
	for _, q := range as.authRequests() {
		if ru := q.Get("redirect_uri"); len(registered) != 1 || ru != registered[0] {
			t.Errorf("authorization request to %s, but the client is registered with %q", ru, registered)
		}
	}
}
