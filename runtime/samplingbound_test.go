package runtime

import (
	"context"
	"fmt"
	"math"
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

// TestSamplingMaxTokensAnyInteger sends sampling requests whose maxTokens
// is an integer written with a fraction or an exponent, or beyond an int:
// JSON Schema's integer, which the specification asks for, is each of
// them. They were refused ("cannot unmarshal number 100.0 into Go struct
// field SamplingRequest.maxTokens of type int"); 100.0 is 100 now, and a
// count beyond an int asks for no less than the application's limit. A
// fraction is refused, naming the member.
func TestSamplingMaxTokensAnyInteger(t *testing.T) {
	answered := make(chan memMsg, 20)
	mc := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "" {
			answered <- m
		}
		return nil
	}))
	handler := func(ctx context.Context, req *SamplingRequest) (*SamplingResult, error) {
		return &SamplingResult{Content: []Content{{Type: ContentText, Text: fmt.Sprintf("%d %d", req.MaxTokens, req.TokenLimit(1000))}}, Model: "m"}, nil
	}
	s, err := Connect(context.Background(), mc, &Options{ProtocolVersion: "2025-06-18", Sampling: handler})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct{ lit, want string }{
		{"100.0", `"text":"100 100"`},
		{"1e2", `"text":"100 100"`},
		{"-0", `"text":"0 1000"`},
		{"1e30", fmt.Sprintf(`"text":"%d 1000"`, math.MaxInt)},
		{"9223372036854775808", fmt.Sprintf(`"text":"%d 1000"`, math.MaxInt)},
		{"1e400", fmt.Sprintf(`"text":"%d 1000"`, math.MaxInt)},
		{"-1e400", fmt.Sprintf(`"text":"%d 1000"`, math.MinInt)},
		{"1.5", `sampling/createMessage: malformed params: maxTokens: 1.5 is not an integer`},
	} {
		mc.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":` + tc.lit + `}}`)
		if m := <-answered; !strings.Contains(m.Raw, tc.want) {
			t.Errorf("maxTokens %s: answer %s, want %s", tc.lit, m.Raw, tc.want)
		}
	}
}
