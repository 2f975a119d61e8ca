package gemini

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
)

// fakeModels answers GenerateContent with reply and records the request.
type fakeModels struct {
	model    string
	contents []*genai.Content
	config   *genai.GenerateContentConfig
	reply    *genai.GenerateContentResponse
	err      error
}

func (f *fakeModels) GenerateContent(_ context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	f.model, f.contents, f.config = model, contents, config
	return f.reply, f.err
}

func answer(text string, reason genai.FinishReason) *genai.GenerateContentResponse {
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{
		Content:      genai.NewContentFromText(text, genai.RoleModel),
		FinishReason: reason,
	}}}
}

func TestSamplerHandle(t *testing.T) {
	f := &fakeModels{reply: answer("Paris", genai.FinishReasonStop)}
	s := &Sampler{Models: f, Model: "gemini-test"}
	temp := 0.5
	res, err := s.Handle(context.Background(), &runtime.SamplingRequest{
		SystemPrompt: "Be brief.",
		MaxTokens:    20,
		Temperature:  &temp,
		Messages: []runtime.SamplingMessage{
			{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "Capital of France?"}}},
			{Role: "assistant", Content: []runtime.Content{{Type: runtime.ContentText, Text: "Which France?"}}},
			{Role: "user", Content: []runtime.Content{{Type: runtime.ContentImage, Data: []byte{1}, MIMEType: "image/png"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content[0].Text != "Paris" || res.Model != "gemini-test" || res.StopReason != "endTurn" {
		t.Errorf("result %+v", res)
	}
	if f.model != "gemini-test" || len(f.contents) != 3 || f.contents[1].Role != genai.RoleModel || f.contents[2].Parts[0].InlineData == nil {
		t.Errorf("contents %+v", f.contents)
	}
	if f.config.MaxOutputTokens != 20 || *f.config.Temperature != 0.5 || f.config.SystemInstruction.Parts[0].Text != "Be brief." {
		t.Errorf("config %+v", f.config)
	}
}

func TestSamplerFaults(t *testing.T) {
	ctx := context.Background()
	msg := []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "hi"}}}}
	f := &fakeModels{reply: answer("cut", genai.FinishReasonMaxTokens)}
	if res, err := (&Sampler{Models: f, Model: "m"}).Handle(ctx, &runtime.SamplingRequest{Messages: msg}); err != nil || res.StopReason != "maxTokens" {
		t.Errorf("max tokens: %+v, %v", res, err)
	}
	no := func(context.Context, *runtime.SamplingRequest) (bool, error) { return false, nil }
	if _, err := (&Sampler{Models: f, Model: "m", Approve: no}).Handle(ctx, &runtime.SamplingRequest{Messages: msg}); !errors.Is(err, runtime.ErrDeclined) {
		t.Errorf("refused: %v", err)
	}
	f.err = errors.New("quota")
	if _, err := (&Sampler{Models: f, Model: "m"}).Handle(ctx, &runtime.SamplingRequest{Messages: msg}); err == nil || err.Error() != "gemini: quota" {
		t.Errorf("api error: %v", err)
	}
	f.err, f.reply = nil, &genai.GenerateContentResponse{}
	if _, err := (&Sampler{Models: f, Model: "m"}).Handle(ctx, &runtime.SamplingRequest{Messages: msg}); err == nil || err.Error() != "gemini: the model returned no candidate" {
		t.Errorf("no candidate: %v", err)
	}
	bad := []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: "tool_result"}}}}
	if _, err := (&Sampler{Models: f, Model: "m"}).Handle(ctx, &runtime.SamplingRequest{Messages: bad}); err == nil || err.Error() != `gemini sampler: message 0: content of type "tool_result" is not supported` {
		t.Errorf("unsupported content: %v", err)
	}
	if _, err := (&Sampler{}).Handle(ctx, &runtime.SamplingRequest{Messages: msg}); err == nil {
		t.Error("a zero Sampler answered")
	}
}

// TestSamplerTokenLimit checks that the server's maxTokens lowers the
// application's limit but never raises it.
func TestSamplerTokenLimit(t *testing.T) {
	cases := []struct {
		app, server int
		want        int32
	}{
		{256, 2147483647, 256},
		{256, 100, 100},
		{256, 0, 256},
		{0, 2147483647, runtime.DefaultSamplingMaxTokens},
		{0, 100, 100},
	}
	for _, c := range cases {
		f := &fakeModels{reply: answer("ok", genai.FinishReasonStop)}
		s := &Sampler{Models: f, Model: "m"}
		if c.app > 0 {
			s.Config = &genai.GenerateContentConfig{MaxOutputTokens: int32(c.app)}
		}
		if _, err := s.Handle(context.Background(), &runtime.SamplingRequest{MaxTokens: c.server}); err != nil {
			t.Fatal(err)
		}
		if got := f.config.MaxOutputTokens; got != c.want {
			t.Errorf("application %d, server %d: MaxOutputTokens %d, want %d", c.app, c.server, got, c.want)
		}
	}
}

// TestSamplerTemperatureRange checks that a server's temperature outside
// Gemini's range (0 to 2) is brought into it, not sent for the API to
// refuse: 1e300 would not even fit the SDK's float32.
func TestSamplerTemperatureRange(t *testing.T) {
	msg := []runtime.SamplingMessage{{Role: "user", Content: []runtime.Content{{Type: runtime.ContentText, Text: "hi"}}}}
	for _, c := range []struct{ in, want float64 }{{-1, 0}, {0.7, 0.7}, {2, 2}, {2.5, 2}, {1e300, 2}} {
		f := &fakeModels{reply: answer("ok", genai.FinishReasonStop)}
		in := c.in
		if _, err := (&Sampler{Models: f, Model: "m"}).Handle(context.Background(), &runtime.SamplingRequest{Messages: msg, Temperature: &in}); err != nil {
			t.Fatalf("temperature %g: %v", c.in, err)
		}
		if got := f.config.Temperature; got == nil || *got != float32(c.want) {
			t.Errorf("temperature %g sent as %v, want %g", c.in, deref(got), c.want)
		}
	}
}

func deref(p *float32) any {
	if p == nil {
		return nil
	}
	return *p
}
