package anthropic

import (
	"context"
	"errors"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mcpgen/mcpgen/runtime"
)

type fakeSamplingMessages struct {
	params anthropic.MessageNewParams
	reply  *anthropic.Message
	err    error
}

func (f *fakeSamplingMessages) New(_ context.Context, p anthropic.MessageNewParams, _ ...option.RequestOption) (*anthropic.Message, error) {
	f.params = p
	return f.reply, f.err
}

func TestSamplerHandle(t *testing.T) {
	f := &fakeSamplingMessages{reply: &anthropic.Message{Model: "claude-test-1", StopReason: anthropic.StopReasonMaxTokens,
		Content: []anthropic.ContentBlockUnion{{Type: "text", Text: "Par"}, {Type: "text", Text: "is"}}}}
	s := &Sampler{Messages: f, Model: "claude-test"}
	temp := 0.2
	res, err := s.Handle(context.Background(), &runtime.SamplingRequest{
		SystemPrompt: "Be brief.", MaxTokens: 5, Temperature: &temp,
		Messages: []runtime.SamplingMessage{
			{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "Capital of France?"}}},
			{Role: "assistant", Content: []runtime.Content{{Type: runtime.ContentText, Text: "Which?"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content[0].Text != "Paris" || res.Model != "claude-test-1" || res.StopReason != "maxTokens" {
		t.Errorf("result %+v", res)
	}
	p := f.params
	if p.MaxTokens != 5 || p.System[0].Text != "Be brief." || p.Temperature.Value != 0.2 || len(p.Messages) != 2 || p.Messages[1].Role != anthropic.MessageParamRoleAssistant {
		t.Errorf("params %+v", p)
	}
	ctx := context.Background()
	no := func(context.Context, *runtime.SamplingRequest) (bool, error) { return false, nil }
	if _, err := (&Sampler{Messages: f, Model: "m", Approve: no}).Handle(ctx, &runtime.SamplingRequest{}); !errors.Is(err, runtime.ErrDeclined) {
		t.Errorf("refused: %v", err)
	}
	img := []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentImage}}}}
	if _, err := s.Handle(ctx, &runtime.SamplingRequest{Messages: img}); err == nil || err.Error() != `anthropic sampler: message 0: content of type "image" is not supported` {
		t.Errorf("image: %v", err)
	}
	f.err = errors.New("overloaded")
	if _, err := s.Handle(ctx, &runtime.SamplingRequest{}); err == nil || err.Error() != "anthropic: overloaded" {
		t.Errorf("api error: %v", err)
	}
}

// TestSamplerTokenLimit checks that the server's maxTokens lowers the
// application's limit but never raises it.
func TestSamplerTokenLimit(t *testing.T) {
	cases := []struct {
		app    int64
		server int
		want   int64
	}{
		{256, 2147483647, 256},
		{256, 100, 100},
		{256, 0, 256},
		{0, 2147483647, DefaultMaxTokens},
		{0, 100, 100},
	}
	for _, c := range cases {
		f := &fakeSamplingMessages{reply: &anthropic.Message{Content: []anthropic.ContentBlockUnion{{Type: "text", Text: "ok"}}}}
		s := &Sampler{Messages: f, Model: "m", MaxTokens: c.app}
		if _, err := s.Handle(context.Background(), &runtime.SamplingRequest{MaxTokens: c.server}); err != nil {
			t.Fatal(err)
		}
		if got := f.params.MaxTokens; got != c.want {
			t.Errorf("application %d, server %d: max_tokens %d, want %d", c.app, c.server, got, c.want)
		}
	}
}

// TestSamplerTemperatureRange checks that a server's temperature outside
// the Messages API's range (0 to 1) is brought into it, not sent for the
// API to refuse.
func TestSamplerTemperatureRange(t *testing.T) {
	msg := []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "hi"}}}}
	for _, c := range []struct{ in, want float64 }{{-1, 0}, {0.7, 0.7}, {1, 1}, {1.5, 1}, {1e300, 1}} {
		f := &fakeSamplingMessages{reply: &anthropic.Message{Content: []anthropic.ContentBlockUnion{{Type: "text", Text: "ok"}}}}
		in := c.in
		if _, err := (&Sampler{Messages: f, Model: "m"}).Handle(context.Background(), &runtime.SamplingRequest{Messages: msg, Temperature: &in}); err != nil {
			t.Fatalf("temperature %g: %v", c.in, err)
		}
		if got := f.params.Temperature.Value; got != c.want {
			t.Errorf("temperature %g sent as %g, want %g", c.in, got, c.want)
		}
	}
}
