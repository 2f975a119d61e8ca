package gemini

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// Models is the part of the Gemini client a Sampler uses; a
// *genai.Client's Models field implements it.
type Models interface {
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
}

// Sampler answers an MCP server's sampling requests with a Gemini model:
// set its Handle method as runtime.Options.Sampling. Its zero value is not
// usable: set Models and Model.
type Sampler struct {
	// Models reaches the Gemini API, such as client.Models.
	Models Models
	// Model is the model name, such as "gemini-2.5-flash". The server's
	// model preferences are hints only; this model always answers.
	Model string
	// Config is the base of every request's configuration; the request's
	// system prompt, temperature (brought into 0 to 2) and stop sequences
	// override its fields.
	// Its MaxOutputTokens is the application's token limit
	// (runtime.DefaultSamplingMaxTokens when zero): the request's maxTokens
	// may lower it but not raise it. It may be nil.
	Config *genai.GenerateContentConfig
	// Approve, when set, is asked before each request is sent to the model
	// (the protocol wants a person to be able to refuse); false declines
	// the request with runtime.ErrDeclined.
	Approve runtime.SamplingApproval
}

// maxTemperature is the highest temperature the Gemini API takes; a server's
// temperature is brought into the range 0 to maxTemperature.
const maxTemperature = 2

// Handle is a runtime.SamplingHandler: it sends the request's messages to
// the model and returns its answer in text.
func (s *Sampler) Handle(ctx context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
	return provider.Sample(ctx, req, s.Models != nil && s.Model != "", "gemini sampler: Models and Model must be set", s.Approve, s.Model, func() ([]*genai.Content, error) {
		return samplingContents(req.Messages)
	}, func(ctx context.Context, contents []*genai.Content) (provider.Answer, error) {
		resp, err := generate(ctx, s.Models, s.Model, contents, s.config(req))
		if err != nil {
			return provider.Answer{}, fmt.Errorf("gemini: %w", err)
		}
		turn, err := modelTurn(resp)
		if err != nil {
			return provider.Answer{}, fmt.Errorf("gemini: %w", err)
		}
		stop := "endTurn"
		switch reason := resp.Candidates[0].FinishReason; reason {
		case genai.FinishReasonStop, "":
		case genai.FinishReasonMaxTokens:
			stop = "maxTokens"
		default:
			stop = string(reason)
		}
		return provider.Answer{Text: turnText(turn), Model: resp.ModelVersion, StopReason: stop}, nil
	})
}

// config returns the request's configuration.
func (s *Sampler) config(req *runtime.SamplingRequest) *genai.GenerateContentConfig {
	var cfg genai.GenerateContentConfig
	if s.Config != nil {
		cfg = *s.Config
	}
	if req.SystemPrompt != "" {
		cfg.SystemInstruction = genai.NewContentFromText(req.SystemPrompt, genai.RoleUser)
	}
	cfg.MaxOutputTokens = int32(min(req.TokenLimit(int64(cfg.MaxOutputTokens)), 1<<31-1))
	if t, ok := provider.Temperature(req, maxTemperature); ok {
		t := float32(t)
		cfg.Temperature = &t
	}
	if len(req.StopSequences) > 0 {
		cfg.StopSequences = req.StopSequences
	}
	return &cfg
}

// samplingContents converts the messages of a sampling request: text, image
// and audio blocks. An image or audio of a type Gemini does not take (see
// takesImage and takesAudio), or without data, is described in the text as
// a tool result's is. Other blocks, and a role other than user and assistant,
// are an error naming the message.
func samplingContents(msgs []runtime.SamplingMessage) ([]*genai.Content, error) {
	contents := make([]*genai.Content, 0, len(msgs))
	for i, m := range msgs {
		var role genai.Role
		switch m.Role {
		case "user":
			role = genai.RoleUser
		case "assistant":
			role = genai.RoleModel
		default:
			return nil, fmt.Errorf("gemini sampler: message %d: role %s is neither user nor assistant", i, redact.Quote(m.Role))
		}
		parts := make([]*genai.Part, 0, len(m.Content))
		for _, c := range m.Content {
			switch c.Type {
			case runtime.ContentText:
				parts = append(parts, genai.NewPartFromText(c.Text))
			case runtime.ContentImage, runtime.ContentAudio:
				takes := takesImage
				if c.Type == runtime.ContentAudio {
					takes = takesAudio
				}
				if len(c.Data) == 0 || !takes(c.MIMEType) {
					text, _ := toolcall.Describe(&runtime.Result{Content: []runtime.Content{c}}, nil)
					parts = append(parts, genai.NewPartFromText(text))
					break
				}
				parts = append(parts, genai.NewPartFromBytes(c.Data, c.MIMEType))
			default:
				return nil, fmt.Errorf("gemini sampler: message %d: content of type %s is not supported", i, redact.Quote(c.Type))
			}
		}
		contents = append(contents, genai.NewContentFromParts(parts, role))
	}
	return contents, nil
}

// takesImage reports whether a MIME type is an image type Gemini takes in
// a message: PNG, JPEG, WebP, HEIC or HEIF
// (https://ai.google.dev/gemini-api/docs/image-understanding). The API
// refuses a request that holds an image of any other type, such as
// image/gif or image/svg+xml.
func takesImage(mimeType string) bool {
	switch mimeType {
	case "image/png", "image/jpeg", "image/webp", "image/heic", "image/heif":
		return true
	}
	return false
}

// takesAudio reports whether a MIME type is an audio type Gemini takes in
// a message: those the Gemini API documents (WAV, MP3, AIFF, AAC, OGG
// Vorbis, FLAC; https://ai.google.dev/gemini-api/docs/audio) and those the
// genai SDKs and Vertex AI's MimeType also name (audio/mpeg, the registered
// type of MP3 that servers send, M4A, L16, Opus, A-law and mu-law), in any
// case and with parameters (audio/ogg; codecs=opus). The API refuses a
// request that holds audio of any other type.
func takesAudio(mimeType string) bool {
	base, _, _ := strings.Cut(mimeType, ";")
	switch strings.ToLower(strings.TrimSpace(base)) {
	case "audio/wav", "audio/mp3", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac",
		"audio/mpeg", "audio/m4a", "audio/l16", "audio/opus", "audio/alaw", "audio/mulaw":
		return true
	}
	return false
}

var _ Models = (*genai.Models)(nil)
