package integration

import (
	"log/slog"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/generated/sdkserver"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestSDKServerRemembersEra checks the era remembered per endpoint against
// the official go-sdk server over Streamable HTTP: the first Session probes
// with server/discover before anything else; a second one to the same
// endpoint sends tools/list first, and probes before its first tools/call.
func TestSDKServerRemembersEra(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	checkLeaks(t)
	url := testenv.ServeSDK(t, false)
	ctx := testenv.Context(t)
	session := func(methods *sentMethods) *runtime.Session {
		t.Helper()
		s, err := runtime.Connect(ctx, runtime.StreamableHTTP(url, nil), &runtime.Options{Logger: slog.New(methods), LogTraffic: true})
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		tools, err := s.ListTools(ctx)
		if err != nil || len(tools) == 0 {
			t.Fatalf("ListTools = %d tools, %v", len(tools), err)
		}
		return s
	}

	var first sentMethods
	session(&first).Close()
	if got := first.list(); len(got) < 2 || got[0] != "server/discover" || got[1] != "tools/list" {
		t.Fatalf("the first Session sent %v; want server/discover, then tools/list", got)
	}

	var second sentMethods
	s := session(&second)
	defer s.Close()
	if got := second.list(); len(got) != 1 || got[0] != "tools/list" {
		t.Fatalf("the second Session sent %v before its listing came back; want tools/list alone", got)
	}
	res, err := sdkserver.NewClient(s).Echo(ctx, sdkserver.EchoArgs{Message: "hi"})
	if err != nil || res.Text() != "hi" {
		t.Fatalf("Echo = %v, %v", res, err)
	}
	got := second.list()
	probe, call := slices.Index(got, "server/discover"), slices.Index(got, "tools/call")
	if probe < 0 || call < probe {
		t.Errorf("the second Session sent %v; want server/discover before tools/call", got)
	}
	if v := s.ProtocolVersion(); v != "2026-07-28" {
		t.Errorf("ProtocolVersion = %s, want 2026-07-28", v)
	}
}

// getCounter counts the GET requests that go through it.
type getCounter struct {
	base http.RoundTripper
	gets atomic.Int32
}

func (c *getCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		c.gets.Add(1)
	}
	return c.base.RoundTrip(r)
}

// TestSDKServerNoGetStreamRemembered runs legacy Sessions against the
// official go-sdk server, stateless, which answers the GET for server
// messages with 405: the first Session sends the GET, the two after it do
// not, and all three list the tools.
func TestSDKServerNoGetStreamRemembered(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	checkLeaks(t)
	url := testenv.ServeSDK(t, false)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	counter := &getCounter{base: tr}
	opts := &runtime.HTTPOptions{Client: &http.Client{Transport: counter}}
	ctx := testenv.Context(t)
	for i := range 3 {
		s, err := runtime.Connect(ctx, runtime.StreamableHTTP(url, opts), &runtime.Options{ProtocolVersion: runtime.LatestLegacyProtocolVersion})
		if err != nil {
			t.Fatalf("Connect %d: %v", i+1, err)
		}
		tools, err := s.ListTools(ctx)
		if err != nil || len(tools) == 0 {
			t.Fatalf("ListTools in Session %d = %d tools, %v", i+1, len(tools), err)
		}
		s.Close()
		if i == 0 && counter.gets.Load() != 1 {
			t.Fatalf("the first Session sent %d GETs, want 1", counter.gets.Load())
		}
	}
	if n := counter.gets.Load(); n != 1 {
		t.Errorf("three legacy Sessions sent %d GETs; want 1, the server's 405 remembered", n)
	}
}
