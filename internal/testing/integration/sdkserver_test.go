package integration

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/generated/sdkserver"
	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestSDKServer reaches the official go-sdk server over stdio and over
// stateless Streamable HTTP through the generated typed client: unpinned,
// the client must settle on 2026-07-28 with server/discover and no
// handshake; pinned to 2025-11-25, it must fall back to the initialize
// handshake and work the same.
func TestSDKServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	checkLeaks(t)
	bin := testenv.SDKServer(t)
	url := testenv.ServeSDK(t, false)
	transports := []struct {
		name      string
		transport func() runtime.Transport
		argv      []string
	}{
		{"stdio", func() runtime.Transport { return runtime.NewCommandTransport(bin) }, []string{bin}},
		{"streamable-http", func() runtime.Transport { return runtime.StreamableHTTP(url, nil) }, nil},
		{"http-auto", func() runtime.Transport { return runtime.HTTP(url, nil) }, nil},
	}
	eras := []struct {
		pin, want      string
		sent, mustSkip string // the negotiation request sent, and the one never sent
	}{
		{"", "2026-07-28", "server/discover", "initialize"},
		{"2025-11-25", "2025-11-25", "initialize", "server/discover"},
	}
	for _, tr := range transports {
		for _, era := range eras {
			name := tr.name + "/" + era.want
			if era.pin != "" {
				name += "-pinned"
			}
			t.Run(name, func(t *testing.T) {
				ctx := testenv.Context(t)
				var methods sentMethods
				s, err := runtime.Connect(ctx, tr.transport(), &runtime.Options{
					ProtocolVersion: era.pin,
					SnapshotHash:    sdkserver.SnapshotHash,
					FailOnDrift:     true,
					Logger:          slog.New(&methods),
					LogTraffic:      true,
				})
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				defer s.Close()
				if got := s.ProtocolVersion(); got != era.want {
					t.Errorf("ProtocolVersion = %s, want %s", got, era.want)
				}
				if got := s.ServerInfo(); got.Name != "sdkserver" || got.Version != "1.0.0" {
					t.Errorf("ServerInfo = %+v", got)
				}
				if !methods.has(era.sent) || methods.has(era.mustSkip) {
					t.Errorf("negotiation sent %v; want %s and no %s", methods.list(), era.sent, era.mustSkip)
				}
				if tr.argv != nil && len(children(t, argvIs(tr.argv))) != 1 {
					t.Fatalf("the stdio server is not among the child processes")
				}

				c := sdkserver.NewClient(s)
				res, err := c.Echo(ctx, sdkserver.EchoArgs{Message: "hi"})
				if err != nil {
					t.Fatalf("Echo: %v", err)
				}
				if res.Text() != "hi" {
					t.Errorf("Echo = %q", res.Text())
				}

				sum, err := c.Add(ctx, sdkserver.AddArgs{A: 1.5, B: 2})
				if err != nil {
					t.Fatalf("Add: %v", err)
				}
				if sum.Sum != 3.5 {
					t.Errorf("Add = %+v, want 3.5", *sum)
				}

				var progress progressLog
				res, err = c.Progress(runtime.WithProgress(ctx, progress.add), sdkserver.ProgressArgs{Steps: 3})
				if err != nil {
					t.Fatalf("Progress: %v", err)
				}
				if res.Text() != "done after 3 steps" {
					t.Errorf("Progress = %q", res.Text())
				}
				want := []runtime.Progress{{Progress: 1, Total: 3, Message: "step 1 of 3"}, {Progress: 2, Total: 3, Message: "step 2 of 3"}, {Progress: 3, Total: 3, Message: "step 3 of 3"}}
				if got := progress.all(); len(got) == 0 || !prefixOf(got, want) {
					t.Errorf("progress = %+v, want a prefix of %+v with at least one entry", got, want)
				}

				_, err = c.Fail(ctx, sdkserver.FailArgs{Message: "boom"})
				var te *runtime.ToolError
				if !errors.As(err, &te) || te.Tool != "fail" || te.Result.Text() != "boom" {
					t.Errorf("Fail = %v, want a *runtime.ToolError with text boom", err)
				}

				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				if tr.argv != nil {
					if left := children(t, argvIs(tr.argv)); len(left) > 0 {
						t.Errorf("child processes %v left after Close", left)
					}
				}
			})
		}
	}
}

// prefixOf reports whether got is a prefix of want.
func prefixOf(got, want []runtime.Progress) bool {
	if len(got) > len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// sentMethods is a slog.Handler that records the methods of the requests a
// Session logs as sent (with Options.LogTraffic).
type sentMethods struct {
	mu      sync.Mutex
	methods []string
}

func (h *sentMethods) Enabled(context.Context, slog.Level) bool { return true }
func (h *sentMethods) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *sentMethods) WithGroup(string) slog.Handler            { return h }

func (h *sentMethods) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "mcp send" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "message" {
			return true
		}
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(a.Value.String()), &m) == nil && m.Method != "" {
			h.mu.Lock()
			h.methods = append(h.methods, m.Method)
			h.mu.Unlock()
		}
		return false
	})
	return nil
}

func (h *sentMethods) has(method string) bool {
	for _, m := range h.list() {
		if m == method {
			return true
		}
	}
	return false
}

func (h *sentMethods) list() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.methods...)
}
