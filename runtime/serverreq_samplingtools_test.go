package runtime

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSamplingToolsNeedTheToolsCapability: the Session never declares
// sampling.tools, so a sampling request carrying tools or toolChoice, which
// the 2025-11-25 specification forbids a server to send to such a client,
// is refused as invalid params naming the member, and never reaches the
// handler, which did not offer to handle tools.
func TestSamplingToolsNeedTheToolsCapability(t *testing.T) {
	a := newServerAsks("2025-11-25")
	var calls atomic.Int32
	s, err := Connect(context.Background(), a.conn, &Options{
		HandlerTimeout: time.Minute,
		Sampling: func(ctx context.Context, r *SamplingRequest) (*SamplingResult, error) {
			calls.Add(1)
			return &SamplingResult{Content: []Content{{Type: ContentText, Text: "ok"}}, Model: "m1"}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if caps := initCapabilities(t, a.conn); caps != `{"sampling":{}}` {
		t.Fatalf("capabilities %s", caps)
	}
	const msgs = `"messages":[{"role":"user","content":{"type":"text","text":"weather?"}}],"maxTokens":10`
	for _, c := range []struct{ params, member string }{
		{`{` + msgs + `,"tools":[{"name":"get_weather","inputSchema":{"type":"object"}}]}`, "tools"},
		{`{` + msgs + `,"toolChoice":{"mode":"auto"}}`, "toolChoice"},
		{`{` + msgs + `,"tools":[],"toolChoice":{"mode":"none"}}`, "tools"},
	} {
		raw := string(a.ask(t, `"s"`, "sampling/createMessage", c.params))
		if !strings.Contains(raw, `"code":-32602`) || !strings.Contains(raw, c.member) || !strings.Contains(raw, "sampling.tools") {
			t.Errorf("%s: answered %s, want -32602 naming %s and sampling.tools", c.params, raw, c.member)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the handler ran %d times for requests with tools", n)
	}
	// A null member is no tools; the request is served.
	if raw := string(a.ask(t, `"s"`, "sampling/createMessage", `{`+msgs+`,"tools":null,"toolChoice":null}`)); !strings.Contains(raw, `"text":"ok"`) {
		t.Errorf("request without tools: %s", raw)
	}
}
