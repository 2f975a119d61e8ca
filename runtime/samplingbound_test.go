package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSamplingConcurrencyBound sends six sampling requests whose handler
// waits: only Options.MaxConcurrentSampling of them run at once, and all six
// are answered once the handlers may return.
func TestSamplingConcurrencyBound(t *testing.T) {
	checkLeaks(t)
	for _, c := range []struct{ option, want int }{{0, DefaultMaxConcurrentSampling}, {2, 2}} {
		answered := make(chan memMsg, 20)
		mc := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
			if m.Method == "" {
				answered <- m
			}
			return nil
		}))
		release := make(chan struct{})
		var running, most atomic.Int64
		handler := func(ctx context.Context, req *SamplingRequest) (*SamplingResult, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-release
			return &SamplingResult{Content: []Content{{Type: ContentText, Text: "ok"}}, Model: "m"}, nil
		}
		s, err := Connect(context.Background(), mc, &Options{ProtocolVersion: "2025-06-18", Sampling: handler, MaxConcurrentSampling: c.option})
		if err != nil {
			t.Fatal(err)
		}
		const sent = 6 + DefaultMaxConcurrentSampling
		for i := range sent {
			mc.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}`, i))
		}
		// A ping's answer shows that every request was read; the handlers
		// of an unbounded client then start at once. Give them a moment
		// (this only matters when the bound is broken).
		mc.in <- []byte(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
		if m := <-answered; string(m.ID) != `"ping"` {
			t.Fatalf("first answer %s, want the ping's", m.Raw)
		}
		for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline) && running.Load() <= int64(c.want); {
			time.Sleep(time.Millisecond)
		}
		close(release)
		for range sent {
			if m := <-answered; len(m.Raw) == 0 || !strings.Contains(m.Raw, `"text":"ok"`) {
				t.Errorf("answer %s, want the model's", m.Raw)
			}
		}
		s.Close()
		if m := most.Load(); m != int64(c.want) {
			t.Errorf("MaxConcurrentSampling %d: %d handlers ran at once, want %d", c.option, m, c.want)
		}
	}
}
