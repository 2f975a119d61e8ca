package openai

import (
	"context"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mcpgen/mcpgen/runtime"
)

// Completions is the part of the OpenAI client a Sampler uses; a
// *openai.ChatCompletionService (&client.Chat.Completions) implements it.
type Completions interface {
	New(ctx context.Context, body openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, error)
}

var _ Completions = (*openai.ChatCompletionService)(nil)

// Sampler answers an MCP server's sampling requests with an OpenAI chat
// model: set its Handle method as runtime.Options.Sampling. Set Completions
// and Model. It passes on text messages only.
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

// Handle is a runtime.SamplingHandler.
func (s *Sampler) Handle(ctx context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
	if s.Completions == nil || s.Model == "" {
		return nil, errors.New("openai sampler: Completions and Model must be set")
	}
	if err := s.Approve.Check(ctx, req); err != nil {
		return nil, err
	}
	p := openai.ChatCompletionNewParams{Model: s.Model}
	p.MaxCompletionTokens = openai.Int(req.TokenLimit(s.MaxTokens))
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
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
				return nil, fmt.Errorf("openai sampler: message %d: content of type %q is not supported", i, c.Type)
			}
		}
		if m.Role == "assistant" {
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Text()))
		} else {
			p.Messages = append(p.Messages, openai.UserMessage(m.Text()))
		}
	}
	resp, err := s.Completions.New(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	if len(resp.Choices) == 0 {
		return nil, errors.New("openai: the model returned no choice")
	}
	choice := resp.Choices[0]
	if choice.Message.Refusal != "" {
		return nil, fmt.Errorf("openai: the model refused: %s", choice.Message.Refusal)
	}
	stop := choice.FinishReason
	switch stop {
	case "stop", "":
		stop = "endTurn"
	case "length":
		stop = "maxTokens"
	}
	model := resp.Model
	if model == "" {
		model = string(s.Model)
	}
	return &runtime.SamplingResult{Content: []runtime.Content{{Type: runtime.ContentText, Text: choice.Message.Content}}, Model: model, StopReason: stop}, nil
}
