package integration

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/sdkserver"
	"github.com/mcpgen/mcpgen/internal/testenv"
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
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
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
