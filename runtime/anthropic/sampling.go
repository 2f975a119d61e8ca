package anthropic

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
)

// Messages is the part of the Anthropic client a Sampler uses; a
// *anthropic.MessageService (&client.Messages) implements it.
type Messages interface {
	New(ctx context.Context, params anthropic.MessageNewParams, opts ...option.RequestOption) (*anthropic.Message, error)
}

var _ Messages = (*anthropic.MessageService)(nil)

// Sampler answers an MCP server's sampling requests with a Claude model:
// set its Handle method as runtime.Options.Sampling. Set Messages and Model.
// It passes on text messages only, and a temperature brought into 0 to 1.
type Sampler struct {
	Messages Messages
	Model    anthropic.Model
	// MaxTokens is the application's limit of max_tokens for a sampling
	// request; zero means DefaultMaxTokens. The request's maxTokens may
	// lower it but not raise it.
	MaxTokens int64
	// Approve, when set, is asked before each request; false declines it
	// with runtime.ErrDeclined.
	Approve runtime.SamplingApproval
}

// maxTemperature is the highest temperature the Messages API takes; a server's
// temperature is brought into the range 0 to maxTemperature.
const maxTemperature = 1

// Handle is a runtime.SamplingHandler.
func (s *Sampler) Handle(ctx context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
	return provider.Sample(ctx, req, s.Messages != nil && s.Model != "", "anthropic sampler: Messages and Model must be set", s.Approve, string(s.Model), func() (anthropic.MessageNewParams, error) {
		return s.params(req)
	}, func(ctx context.Context, p anthropic.MessageNewParams) (provider.Answer, error) {
		msg, err := s.Messages.New(ctx, p)
		if err != nil {
			return provider.Answer{}, fmt.Errorf("anthropic: %w", err)
		}
		if msg == nil {
			return provider.Answer{}, fmt.Errorf("anthropic: %w", errNullResponse)
		}
		var b strings.Builder
		for _, block := range msg.Content {
			if block.Type == "text" {
				b.WriteString(block.Text)
			}
		}
		stop := string(msg.StopReason)
		switch msg.StopReason {
		case anthropic.StopReasonEndTurn, "":
			stop = "endTurn"
		case anthropic.StopReasonMaxTokens:
			stop = "maxTokens"
		case anthropic.StopReasonStopSequence:
			stop = "stopSequence"
		}
		return provider.Answer{Text: b.String(), Model: string(msg.Model), StopReason: stop}, nil
	})
}

// params returns the Messages API request of a sampling request: its text
// messages, system prompt, token limit, temperature and stop sequences.
func (s *Sampler) params(req *runtime.SamplingRequest) (anthropic.MessageNewParams, error) {
	limit := s.MaxTokens
	if limit <= 0 {
		limit = DefaultMaxTokens
	}
	p := anthropic.MessageNewParams{Model: s.Model, MaxTokens: req.TokenLimit(limit), StopSequences: req.StopSequences}
	if req.SystemPrompt != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.SystemPrompt}}
	}
	if t, ok := provider.Temperature(req, maxTemperature); ok {
		p.Temperature = anthropic.Float(t)
	}
	for i, m := range req.Messages {
		for _, c := range m.Content {
			if c.Type != runtime.ContentText {
				return p, fmt.Errorf("anthropic sampler: message %d: content of type %s is not supported", i, redact.Quote(c.Type))
			}
		}
		switch m.Role {
		case "user":
			p.Messages = append(p.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Text())))
		case "assistant":
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(m.Text())))
		default:
			return p, fmt.Errorf("anthropic sampler: message %d: role %s is neither user nor assistant", i, redact.Quote(m.Role))
		}
	}
	return p, nil
}
