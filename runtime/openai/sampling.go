package openai

import (
	"context"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
)

// Completions is the part of the OpenAI client a Sampler uses; a
// *openai.ChatCompletionService (&client.Chat.Completions) implements it.
type Completions interface {
	New(ctx context.Context, body openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, error)
}

var _ Completions = (*openai.ChatCompletionService)(nil)

// Sampler answers an MCP server's sampling requests with an OpenAI chat
// model: set its Handle method as runtime.Options.Sampling. Set Completions
// and Model. It passes on text messages only, and a temperature brought
// into 0 to 2.
type Sampler struct {
	Completions Completions
	Model       openai.ChatModel
	// MaxTokens is the application's limit of max_completion_tokens for a
	// sampling request; zero means runtime.DefaultSamplingMaxTokens. The
	// request's maxTokens may lower it but not raise it.
	MaxTokens int64
	// Approve, when set, is asked before each request; false declines it
	// with runtime.ErrDeclined.
	Approve runtime.SamplingApproval
}

// maxTemperature is the highest temperature Chat Completions takes; a server's
// temperature is brought into the range 0 to maxTemperature.
const maxTemperature = 2

// Handle is a runtime.SamplingHandler.
func (s *Sampler) Handle(ctx context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
	return provider.Sample(ctx, req, s.Completions != nil && s.Model != "", "openai sampler: Completions and Model must be set", s.Approve, string(s.Model), func() (openai.ChatCompletionNewParams, error) {
		return s.params(req)
	}, func(ctx context.Context, p openai.ChatCompletionNewParams) (provider.Answer, error) {
		resp, err := s.Completions.New(ctx, p)
		if err != nil {
			return provider.Answer{}, fmt.Errorf("openai: %w", err)
		}
		if resp == nil {
			return provider.Answer{}, fmt.Errorf("openai: %w", errNullResponse)
		}
		if len(resp.Choices) == 0 {
			return provider.Answer{}, errors.New("openai: the model returned no choice")
		}
		choice := resp.Choices[0]
		if choice.Message.Refusal != "" {
			return provider.Answer{}, fmt.Errorf("openai: the model refused: %s", choice.Message.Refusal)
		}
		stop := choice.FinishReason
		switch stop {
		case "stop", "":
			stop = "endTurn"
		case "length":
			stop = "maxTokens"
		}
		return provider.Answer{Text: choice.Message.Content, Model: resp.Model, StopReason: stop}, nil
	})
}

// params returns the Chat Completions request of a sampling request: its
// text messages, system prompt, token limit, temperature and stop
// sequences.
func (s *Sampler) params(req *runtime.SamplingRequest) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: s.Model}
	p.MaxCompletionTokens = openai.Int(req.TokenLimit(s.MaxTokens))
	if t, ok := provider.Temperature(req, maxTemperature); ok {
		p.Temperature = openai.Float(t)
	}
	if len(req.StopSequences) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: req.StopSequences}
	}
	if req.SystemPrompt != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.SystemPrompt))
	}
	for i, m := range req.Messages {
		for _, c := range m.Content {
			if c.Type != runtime.ContentText {
				return p, fmt.Errorf("openai sampler: message %d: content of type %s is not supported", i, redact.Quote(c.Type))
			}
		}
		switch m.Role {
		case "user":
			p.Messages = append(p.Messages, openai.UserMessage(m.Text()))
		case "assistant":
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Text()))
		default:
			return p, fmt.Errorf("openai sampler: message %d: role %s is neither user nor assistant", i, redact.Quote(m.Role))
		}
	}
	return p, nil
}
