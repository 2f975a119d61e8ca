package openai

import (
	"context"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mcpgen/mcpgen/runtime"
)

type fakeSamplingCompletions struct {
	params openai.ChatCompletionNewParams
	reply  *openai.ChatCompletion
	err    error
}

func (f *fakeSamplingCompletions) New(_ context.Context, p openai.ChatCompletionNewParams, _ ...option.RequestOption) (*openai.ChatCompletion, error) {
	f.params = p
	return f.reply, f.err
}

func TestSamplerHandle(t *testing.T) {
	f := &fakeSamplingCompletions{reply: &openai.ChatCompletion{Model: "gpt-test-1", Choices: []openai.ChatCompletionChoice{
		{Message: openai.ChatCompletionMessage{Content: "Paris"}, FinishReason: "stop"}}}}
	s := &Sampler{Completions: f, Model: "gpt-test"}
	res, err := s.Handle(context.Background(), &runtime.SamplingRequest{
		SystemPrompt: "Be brief.", MaxTokens: 5, StopSequences: []string{"\n"},
		Messages: []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "Capital of France?"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content[0].Text != "Paris" || res.Model != "gpt-test-1" || res.StopReason != "endTurn" {
		t.Errorf("result %+v", res)
	}
	p := f.params
	if p.MaxCompletionTokens.Value != 5 || len(p.Messages) != 2 || p.Messages[0].OfSystem == nil || p.Messages[1].OfUser == nil || len(p.Stop.OfStringArray) != 1 {
		t.Errorf("params %+v", p)
	}
	ctx := context.Background()
	f.reply = &openai.ChatCompletion{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Refusal: "no"}}}}
	if _, err := s.Handle(ctx, &runtime.SamplingRequest{}); err == nil || err.Error() != "openai: the model refused: no" {
		t.Errorf("refusal: %v", err)
	}
	no := func(context.Context, *runtime.SamplingRequest) (bool, error) { return false, nil }
	if _, err := (&Sampler{Completions: f, Model: "m", Approve: no}).Handle(ctx, &runtime.SamplingRequest{}); !errors.Is(err, runtime.ErrDeclined) {
		t.Errorf("declined: %v", err)
	}
	f.reply = &openai.ChatCompletion{}
	if _, err := s.Handle(ctx, &runtime.SamplingRequest{}); err == nil || err.Error() != "openai: the model returned no choice" {
		t.Errorf("no choice: %v", err)
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
		{0, 2147483647, runtime.DefaultSamplingMaxTokens},
		{0, 100, 100},
	}
	for _, c := range cases {
		f := &fakeSamplingCompletions{reply: &openai.ChatCompletion{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Content: "ok"}}}}}
		s := &Sampler{Completions: f, Model: "m", MaxTokens: c.app}
		if _, err := s.Handle(context.Background(), &runtime.SamplingRequest{MaxTokens: c.server}); err != nil {
			t.Fatal(err)
		}
		if got := f.params.MaxCompletionTokens.Value; got != c.want {
			t.Errorf("application %d, server %d: max_completion_tokens %d, want %d", c.app, c.server, got, c.want)
		}
	}
}

// TestSamplerTemperatureRange checks that a server's temperature outside
// the Chat Completions range (0 to 2) is brought into it, not sent for the
// API to refuse.
func TestSamplerTemperatureRange(t *testing.T) {
	msg := []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "hi"}}}}
	for _, c := range []struct{ in, want float64 }{{-1, 0}, {0.7, 0.7}, {2, 2}, {2.5, 2}, {1e300, 2}} {
		f := &fakeSamplingCompletions{reply: &openai.ChatCompletion{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Content: "ok"}, FinishReason: "stop"}}}}
		in := c.in
		if _, err := (&Sampler{Completions: f, Model: "m"}).Handle(context.Background(), &runtime.SamplingRequest{Messages: msg, Temperature: &in}); err != nil {
			t.Fatalf("temperature %g: %v", c.in, err)
		}
		if got := f.params.Temperature.Value; got != c.want {
			t.Errorf("temperature %g sent as %g, want %g", c.in, got, c.want)
		}
	}
}
