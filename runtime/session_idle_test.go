package runtime

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// waitFor polls cond until it holds, failing the test with what after the
// test's wait limit.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	limit := testenv.WaitLimit(t)
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// stdioIdle reports whether the stdio connection of s waits for the
// server's output holding no read buffer.
func stdioIdle(s *Session) bool { return !s.conn.(*stdioConn).br.held.Load() }

// TestIdleStdioSessionStillHears checks, in both eras, that a stdio
// session whose read buffer went back to the pool while it waited still
// receives progress, requests of the server (a ping in a call, and one
// while it is idle) and a list_changed notification sent while it is idle.
func TestIdleStdioSessionStillHears(t *testing.T) {
	for _, mode := range []string{"legacy", "modern"} {
		t.Run(mode, func(t *testing.T) {
			changed := make(chan struct{}, 4)
			s := connectFake(t, mode, &Options{OnToolsChanged: func() { changed <- struct{}{} }})
			if _, err := s.ListTools(testenv.Context(t)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the read buffer given back after the listing", func() bool { return stdioIdle(s) })

			var got []Progress
			ctx := WithProgress(testenv.Context(t), func(p Progress) { got = append(got, p) })
			res, err := s.CallTool(ctx, "progress", nil)
			if err != nil || res.Text() != "progressed" || len(got) != 3 {
				t.Fatalf("progress after idling: %v, %d notifications", err, len(got))
			}
			waitFor(t, "the read buffer given back after the progress", func() bool { return stdioIdle(s) })

			if got := callText(t, s, "ping", nil); !strings.HasPrefix(got, "ping={}") {
				t.Errorf("a server request in a call after idling: %q", got)
			}
			waitFor(t, "the read buffer given back after the call", func() bool { return stdioIdle(s) })

			// The server answers, waits, then pings the idle client and,
			// once answered, says its tools changed.
			callText(t, s, "later", map[string]int{"ms": 200})
			waitFor(t, "the read buffer given back before the server's ping", func() bool { return stdioIdle(s) })
			select {
			case <-changed:
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatal("the idle session did not answer the ping or hear list_changed")
			}
			waitFor(t, "the read buffer given back at the end", func() bool { return stdioIdle(s) })
		})
	}
}

// getStreamIdle reports whether the GET stream of the Streamable HTTP
// session s is open and waits holding no read buffer.
func getStreamIdle(s *Session) bool {
	r := s.conn.(*streamableConn).getReader.Load()
	return r != nil && r.Waiting()
}

// TestIdleHTTPSessionStillHears checks that an idle Streamable HTTP
// session still receives progress, a server request and list_changed: in
// the 2025-11-25 era against a stateful go-sdk server, with its GET stream
// waiting without a read buffer, and in the 2026-07-28 era against a
// stateless one, which opens no GET stream.
func TestIdleHTTPSessionStillHears(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	for _, tc := range []struct {
		name     string
		stateful bool
		version  string
	}{
		{"2025-11-25", true, "2025-11-25"},
		{"2026-07-28", false, "2026-07-28"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flags := []string{"-input", "-grow"}
			if tc.stateful {
				flags = append(flags, "-stateful")
			}
			url := testenv.ServeSDKArgs(t, flags...)
			changed := make(chan struct{}, 4)
			var asked atomic.Int32
			ctx := testenv.Context(t)
			s, err := Connect(ctx, StreamableHTTP(url, nil), &Options{
				ProtocolVersion: tc.version,
				OnToolsChanged:  func() { changed <- struct{}{} },
				Elicitation: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
					asked.Add(1)
					return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"confirm": true}}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.ListTools(ctx); err != nil {
				t.Fatal(err)
			}
			idle := func(when string) {
				t.Helper()
				if tc.stateful {
					waitFor(t, "the GET stream waiting without a buffer "+when, func() bool { return getStreamIdle(s) })
				}
			}
			idle("after the listing")

			var got []Progress
			pctx := WithProgress(ctx, func(p Progress) { got = append(got, p) })
			if _, err := s.CallTool(pctx, "progress", map[string]int{"steps": 3}); err != nil || len(got) != 3 {
				t.Fatalf("progress after idling: %v, %d notifications", err, len(got))
			}
			idle("after the progress")

			res, err := s.CallTool(ctx, "deploy", map[string]any{"service": "api"})
			if err != nil || !strings.Contains(res.Text(), "deployed api") || asked.Load() != 1 {
				t.Fatalf("a server request after idling: %v, %q, asked %d times", err, res.Text(), asked.Load())
			}
			idle("after the elicitation")

			callText(t, s, "grow", nil)
			select {
			case <-changed:
			case <-time.After(testenv.WaitLimit(t)):
				t.Fatal("the idle session did not hear list_changed")
			}
			idle("at the end")
		})
	}
}
