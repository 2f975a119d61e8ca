package runtime

import (
	"net/http"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"go.uber.org/goleak"
)

// TestThousandSessionsLeaveNoGoroutine opens and closes 1,000 sessions,
// each listed once (stdio, and Streamable HTTP to a stateful server, with
// its GET stream, and to a stateless one, in both eras), and checks that
// no goroutine outlives them.
func TestThousandSessionsLeaveNoGoroutine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers and 1,000 sessions")
	}
	stateful := testenv.ServeSDKArgs(t, "-stateful")
	stateless := testenv.ServeSDK(t, false)
	sdk := testenv.SDKServer(t)
	opt := goleak.IgnoreCurrent()
	ctx := testenv.Context(t)
	type kind struct {
		name string
		n    int
		tr   func() Transport
		opts *Options
	}
	kinds := []kind{
		{"stdio", 100, func() Transport { return NewCommandTransport(sdk) }, nil},
		{"stateful HTTP", 450, func() Transport { return StreamableHTTP(stateful, nil) }, nil},
		{"stateless HTTP, 2026-07-28", 300, func() Transport { return StreamableHTTP(stateless, nil) }, &Options{ProtocolVersion: "2026-07-28"}},
		{"stateless HTTP, 2025-11-25", 150, func() Transport { return StreamableHTTP(stateless, nil) }, &Options{ProtocolVersion: "2025-11-25"}},
	}
	total := 0
	for _, k := range kinds {
		// Hold a batch of sessions open at once, as a busy process does.
		const batch = 50
		for done := 0; done < k.n; done += batch {
			var open []*Session
			for range min(batch, k.n-done) {
				s, err := Connect(ctx, k.tr(), k.opts)
				if err != nil {
					t.Fatalf("%s, session %d: %v", k.name, total+len(open)+1, err)
				}
				open = append(open, s)
				if _, err := s.ListTools(ctx); err != nil {
					t.Fatalf("%s, session %d: listing tools: %v", k.name, total+len(open), err)
				}
			}
			for _, s := range open {
				if err := s.Close(); err != nil {
					t.Fatalf("%s: Close: %v", k.name, err)
				}
			}
			total += len(open)
		}
	}
	if total != 1000 {
		t.Fatalf("opened %d sessions; want 1000", total)
	}
	// Idle keep-alive connections of the shared clients are theirs, not a
	// session's.
	for _, c := range []*http.Client{sharedHTTPClient(), sharedStreamClient()} {
		c.Transport.(*http.Transport).CloseIdleConnections()
	}
	goleak.VerifyNone(t, opt)
}
