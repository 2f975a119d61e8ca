package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// InputRoundsError reports a call that the server kept answering with
// input_required: after Rounds requests (the first and its retries) the
// client gives up rather than loop forever. For a 2026-07-28 task, TaskID is
// set and Rounds counts the tasks/update that answered it.
type InputRoundsError struct {
	Tool   string
	TaskID string
	Rounds int
}

func (e *InputRoundsError) Error() string {
	if e.TaskID != "" {
		return fmt.Sprintf("task %q of tool %s: the server still asked for input after %d rounds of tasks/update (the limit of input rounds per task)", e.TaskID, e.Tool, e.Rounds)
	}
	return fmt.Sprintf("calling %s: the server still asked for input after %d rounds (the limit of input_required rounds per call)", e.Tool, e.Rounds)
}

// inputRequest is one member of an inputRequests object.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// fulfilInputRequests runs the handler for each request of an
// inputRequests object, one after the other in the order of their keys, and
// returns the inputResponses object of the retry; nil when raw is nil.
func (s *Session) fulfilInputRequests(ctx context.Context, raw []byte) ([]byte, error) {
	if raw == nil {
		return nil, nil
	}
	var reqs map[string]inputRequest
	if err := json.Unmarshal(raw, &reqs); err != nil {
		return nil, fmt.Errorf("malformed inputRequests: %w", err)
	}
	return s.fulfilKeys(ctx, reqs, sortedKeys(reqs))
}

// fulfilKeys runs the handler for the requests of reqs named by keys, one
// after the other, and returns the inputResponses object answering them.
func (s *Session) fulfilKeys(ctx context.Context, reqs map[string]inputRequest, keys []string) ([]byte, error) {
	b := []byte{'{'}
	for i, key := range keys {
		r := reqs[key]
		res, err := s.fulfil(ctx, key, r)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, key)
		b = append(b, ':')
		b = append(b, res...)
	}
	return append(b, '}'), nil
}

// fulfil answers one input request.
func (s *Session) fulfil(ctx context.Context, key string, r inputRequest) ([]byte, error) {
	var option string
	switch r.Method {
	case "elicitation/create":
		option = "Elicitation"
	case "sampling/createMessage":
		option = "Sampling"
	case "roots/list":
		option = "Roots"
	default:
		return nil, fmt.Errorf("input request %q: unsupported method %q", key, r.Method)
	}
	if !s.hasHandler(r.Method) {
		return nil, fmt.Errorf("input request %q: the server asks the client for input with %s, and Options.%s is not set", key, r.Method, option)
	}
	res, err, _ := s.answerServerRequest(ctx, nil, r.Method, r.Params)
	if err != nil {
		return nil, fmt.Errorf("input request %q: %w", key, err)
	}
	return res, nil
}
