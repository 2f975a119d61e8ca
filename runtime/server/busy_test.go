package server

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// More calls than the server runs at once, each waiting for its
// cancellation: the server must still read the cancellations behind the
// calls it cannot start yet, so that the calls end and a later call is
// answered.
func TestCancellationsReachAFullServer(t *testing.T) {
	started := make(chan struct{}, 100)
	s, err := New([]Tool{
		{Tool: runtime.Tool{Name: "block", InputSchema: json.RawMessage(`{"type":"object"}`)},
			Handle: func(ctx context.Context, _ json.RawMessage) (*runtime.Result, error) {
				started <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			}},
		{Tool: runtime.Tool{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`)},
			Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
				return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "ok"}}}, nil
			}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sess, err := s.Connect(ctx, &runtime.Options{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range maxInFlight + 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sess.CallTool(wctx, "block", nil)
		}()
	}
	for range maxInFlight {
		<-started
	}
	cancel()
	wg.Wait()
	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	defer ccancel()
	res, err := sess.CallTool(cctx, "ok", nil)
	if err != nil || res.Text() != "ok" {
		t.Fatalf("the call after the cancellations: %+v, %v", res, err)
	}
}
