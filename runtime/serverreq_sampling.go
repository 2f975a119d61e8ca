package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/jsontree"
)

// ErrDeclined is what a sampling or roots handler returns when the user
// refuses the server's request. A legacy server is told with error code -1;
// in the 2026-07-28 era the call fails instead of being retried.
var ErrDeclined = errors.New("the user declined the request")

// SamplingApproval asks whether a sampling request may go to the model; the
// protocol wants a person to be able to refuse. The samplers of
// runtime/gemini, runtime/anthropic and runtime/openai take one.
type SamplingApproval func(ctx context.Context, req *SamplingRequest) (bool, error)

// Check asks a, and returns ErrDeclined when the answer is no. A nil a
// approves every request.
func (a SamplingApproval) Check(ctx context.Context, req *SamplingRequest) error {
	if a == nil {
		return nil
	}
	ok, err := a(ctx, req)
	if err != nil {
		return err
	}
	if !ok {
		return ErrDeclined
	}
	return nil
}

// SamplingRequest is a server's request for a completion from the client's
// language model (sampling/createMessage).
type SamplingRequest struct {
	// Server is the server that asks.
	Server        Implementation    `json:"-"`
	Messages      []SamplingMessage `json:"messages"`
	SystemPrompt  string            `json:"systemPrompt,omitempty"`
	MaxTokens     int               `json:"maxTokens"`
	Temperature   *float64          `json:"temperature,omitempty"`
	StopSequences []string          `json:"stopSequences,omitempty"`
	// IncludeContext, ModelPreferences, Metadata, Tools and ToolChoice are
	// kept as the server sent them. The Session does not declare the
	// sampling.tools capability, so it refuses a request with Tools or
	// ToolChoice (which the specification forbids the server to send
	// since 2025-11-25) and a handler never sees them set.
	IncludeContext   string          `json:"includeContext,omitempty"`
	ModelPreferences json.RawMessage `json:"modelPreferences,omitempty"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	Tools            json.RawMessage `json:"tools,omitempty"`
	ToolChoice       json.RawMessage `json:"toolChoice,omitempty"`
}

// UnmarshalJSON reads maxTokens as JSON Schema's integer, which the
// specification asks for, however it is written (100, 100.0, 1e2): one
// beyond an int, 1e30 or 1e400, is the largest int (the smallest when
// negative), which asks for no less than the application's limit. A
// fraction is refused.
func (r *SamplingRequest) UnmarshalJSON(data []byte) error {
	type plain SamplingRequest
	w := struct {
		*plain
		MaxTokens json.RawMessage `json:"maxTokens"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(data, &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Name the field as it would be named without w.
			te.Struct, te.Field = "SamplingRequest", strings.TrimPrefix(te.Field, "plain.")
		}
		return err
	}
	lit := string(bytes.TrimSpace(w.MaxTokens))
	if lit == "" || lit == "null" {
		return nil
	}
	n, err := tokenCount(lit)
	if err != nil {
		return fmt.Errorf("maxTokens: %w", err)
	}
	r.MaxTokens = n
	return nil
}

// tokenCount reads the JSON value lit as an integer, clamped to an int.
func tokenCount(lit string) (int, error) {
	if c, ok := jsontree.CompareNumbers(lit, strconv.Itoa(math.MaxInt)); ok && c > 0 {
		return math.MaxInt, nil
	}
	if c, ok := jsontree.CompareNumbers(lit, strconv.Itoa(math.MinInt)); ok && c < 0 {
		return math.MinInt, nil
	}
	if n, ok := jsontree.Int64(lit); ok {
		return int(n), nil
	}
	if _, ok := jsontree.CompareNumbers(lit, "0"); !ok {
		return 0, errors.New("not a number")
	}
	if len(lit) > 64 {
		lit = lit[:64] + "…"
	}
	return 0, fmt.Errorf("%s is not an integer", lit)
}

// DefaultSamplingMaxTokens is the token limit of a sampling request when the
// application sets none (see SamplingRequest.TokenLimit).
const DefaultSamplingMaxTokens = 4096

// DefaultMaxConcurrentSampling is the default of
// Options.MaxConcurrentSampling.
const DefaultMaxConcurrentSampling = 4

// TokenLimit returns the token limit to give the model for the request:
// the smaller of the server's MaxTokens and limit, the application's own,
// which DefaultSamplingMaxTokens stands for when limit is zero or less. A
// server may thus lower the application's limit but never raise it; its
// MaxTokens of zero or less asks for nothing.
func (r *SamplingRequest) TokenLimit(limit int64) int64 {
	if limit <= 0 {
		limit = DefaultSamplingMaxTokens
	}
	if r.MaxTokens > 0 {
		limit = min(limit, int64(r.MaxTokens))
	}
	return limit
}

// SamplingMessage is one message of a sampling conversation. The wire form's
// content is one block or, since 2025-11-25, an array of blocks.
type SamplingMessage struct {
	Role    string
	Content []Content
}

// UnmarshalJSON accepts content as one block or an array of blocks.
func (m *SamplingMessage) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	m.Role, m.Content = w.Role, nil
	c := bytes.TrimSpace(w.Content)
	switch {
	case len(c) == 0 || bytes.Equal(c, []byte("null")):
	case c[0] == '[':
		return json.Unmarshal(c, &m.Content)
	default:
		var one Content
		if err := json.Unmarshal(c, &one); err != nil {
			return err
		}
		m.Content = []Content{one}
	}
	return nil
}

// MarshalJSON writes one block as an object and several as an array.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	return marshalRoleContent(m.Role, m.Content, nil)
}

// Text returns the text of the message's text blocks, joined by newlines.
func (m *SamplingMessage) Text() string {
	return (&Result{Content: m.Content}).Text()
}

// SamplingResult is the model's answer to a SamplingRequest. Role defaults to
// "assistant".
type SamplingResult struct {
	Role    string
	Content []Content
	// Model names the model that answered.
	Model string
	// StopReason is "endTurn", "stopSequence", "maxTokens", "toolUse" or
	// another reason.
	StopReason string
}

// MarshalJSON writes the result in its wire form.
func (r *SamplingResult) MarshalJSON() ([]byte, error) {
	role := r.Role
	if role == "" {
		role = "assistant"
	}
	return marshalRoleContent(role, r.Content, map[string]string{"model": r.Model, "stopReason": r.StopReason})
}

func marshalRoleContent(role string, content []Content, extra map[string]string) ([]byte, error) {
	w := map[string]any{"role": role}
	switch len(content) {
	case 0:
		w["content"] = Content{Type: ContentText}
	case 1:
		w["content"] = content[0]
	default:
		w["content"] = content
	}
	for k, v := range extra {
		if v != "" {
			w[k] = v
		}
	}
	return json.Marshal(w)
}

// SamplingHandler answers a server's sampling request, usually with a model
// of the client's choice after the user approved it. Returning ErrDeclined
// reports the user's refusal.
type SamplingHandler func(ctx context.Context, req *SamplingRequest) (*SamplingResult, error)

// sample runs the sampling handler for the raw params of a request.
func (s *Session) sample(ctx context.Context, params []byte) ([]byte, error) {
	req := &SamplingRequest{}
	if err := json.Unmarshal(params, req); err != nil {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "sampling/createMessage: malformed params: " + err.Error()}
	}
	for _, m := range []struct {
		name string
		raw  json.RawMessage
	}{{"tools", req.Tools}, {"toolChoice", req.ToolChoice}} {
		if len(m.raw) > 0 && !bytes.Equal(bytes.TrimSpace(m.raw), []byte("null")) {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "sampling/createMessage: /" + m.name + " is set, but the client did not declare the sampling.tools capability"}
		}
	}
	if st := s.state.Load(); st != nil {
		req.Server = st.serverInfo
	}
	res, err := runHandler(ctx, s.opts.HandlerTimeout, "sampling/createMessage", func(ctx context.Context) (*SamplingResult, error) {
		if err := s.samplingTurn(ctx); err != nil {
			return nil, err
		}
		defer func() { <-s.sampling }()
		return s.opts.Sampling(ctx, req)
	})
	if err == nil && res == nil {
		err = errors.New("sampling handler returned no result")
	}
	if err != nil {
		return nil, fmt.Errorf("sampling handler: %w", err)
	}
	return json.Marshal(res)
}

// samplingTurn waits for one of the Options.MaxConcurrentSampling turns to
// run the sampling handler, until ctx ends.
func (s *Session) samplingTurn(ctx context.Context) error {
	select {
	case s.sampling <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// handlerRPCError turns a handler's error into the JSON-RPC error a legacy
// server gets: -1 for a refusal, an internal error otherwise.
func handlerRPCError(err error) *RPCError {
	var rpc *RPCError
	if errors.As(err, &rpc) {
		return rpc
	}
	if errors.Is(err, ErrDeclined) {
		return &RPCError{Code: -1, Message: err.Error()}
	}
	return &RPCError{Code: CodeInternalError, Message: err.Error()}
}
