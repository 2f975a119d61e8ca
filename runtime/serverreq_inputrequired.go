package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/internal/redact"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// InputRoundsError reports a call that the server kept answering with
// input_required: after Rounds requests (the first and its retries) the
// client gives up rather than loop forever. For a 2026-07-28 task, TaskID is
// set and Rounds counts the tasks/update that answered it. For a
// prompts/get or resources/read request, Tool is empty, and Method and Name
// say which request it was (the prompt's name or the resource's URI).
// TaskID holds what the server sent whole; Error quotes it with the
// credentials of the connection scrubbed.
type InputRoundsError struct {
	Tool   string
	TaskID string
	Rounds int
	Method string
	Name   string

	scrub func(string) string // the Session's, nil for none
}

func (e *InputRoundsError) Error() string {
	if e.Method != "" {
		return fmt.Sprintf("%s %s: the server still asked for input after %d rounds (the limit of input_required rounds per request)", e.Method, redact.Quote(e.Name), e.Rounds)
	}
	if e.TaskID != "" {
		return fmt.Sprintf("task %s of tool %s: the server still asked for input after %d rounds of tasks/update (the limit of input rounds per task)", quoteScrubbed(e.scrub, e.TaskID), e.Tool, e.Rounds)
	}
	return fmt.Sprintf("calling %s: the server still asked for input after %d rounds (the limit of input_required rounds per call)", e.Tool, e.Rounds)
}

// inputMembers collects the members of a 2026-07-28 result that say
// whether it asks for input: resultType, inputRequests and requestState.
type inputMembers struct {
	resultType    string
	inputRequests []byte
	requestState  []byte
}

// read takes the member key, with value v, if it is one of those, and
// leaves any other.
func (m *inputMembers) read(key []byte, escaped bool, v []byte) error {
	switch {
	case jsonrpc.KeyIs(key, escaped, "resultType"):
		rt, err := jsonrpc.String(v)
		if err != nil {
			return fmt.Errorf("resultType: %w", err)
		}
		m.resultType = rt
	case jsonrpc.KeyIs(key, escaped, "inputRequests"):
		if !jsonrpc.IsNull(v) {
			m.inputRequests = v
		}
	case jsonrpc.KeyIs(key, escaped, "requestState"):
		m.requestState = v
	}
	return nil
}

// result returns what the result asks for, copied out of the message, or
// nil when it is complete. A resultType other than complete and
// input_required is an error about a malformed result.
func (m *inputMembers) result() (*inputRequired, error) {
	switch m.resultType {
	case "", "complete":
		return nil, nil
	case "input_required":
		return &inputRequired{inputRequests: bytes.Clone(m.inputRequests), requestState: bytes.Clone(m.requestState)}, nil
	}
	return nil, fmt.Errorf("malformed result: unsupported resultType %s", redact.Quote(m.resultType))
}

// doInputRounds sends a prompts/get or resources/read request about name,
// whose params members writes, as CallTool sends tools/call: while the
// server answers with a 2026-07-28 result of type input_required, it runs
// the handlers of the inputRequests and sends the request again under a
// new id, with the inputResponses and the requestState exactly as the
// server sent it, at most maxInputRounds requests in all. decode decodes
// each result, and returns what one that asks for input asks for.
func (s *Session) doInputRounds(ctx context.Context, st *negotiated, method, name string, members func(b []byte) []byte, decode func(data []byte) (*inputRequired, error)) error {
	var state, responses []byte
	for round := 0; ; round++ {
		r := &request{method: method, name: name}
		data, err := s.do(ctx, st, r, func(b []byte) []byte {
			return appendInputAnswers(members(b), responses, state)
		})
		if err != nil {
			return err
		}
		more, err := decode(data)
		if err != nil || more == nil {
			return err
		}
		if round+1 >= maxInputRounds {
			return &InputRoundsError{Method: method, Name: name, Rounds: maxInputRounds}
		}
		// The responses and state go with this request's next round only.
		if responses, err = s.fulfilInputRequests(r.causeContext(ctx), more.inputRequests); err != nil {
			return err
		}
		state = more.requestState
	}
}

// appendInputAnswers appends the members of a request's retry after
// input_required: the inputResponses and the requestState, each when set.
func appendInputAnswers(b, responses, state []byte) []byte {
	if responses != nil {
		b = append(b, `,"inputResponses":`...)
		b = append(b, responses...)
	}
	if state != nil {
		b = append(b, `,"requestState":`...)
		b = append(b, state...)
	}
	return b
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
// More than maxInputRequests keys are an error, before any handler runs.
// The handlers' context ends with the Session, as a legacy server request's
// does: Close, or the connection's end, fails the call with the reason
// instead of leaving it to wait for a handler.
func (s *Session) fulfilKeys(ctx context.Context, reqs map[string]inputRequest, keys []string) ([]byte, error) {
	if len(keys) > maxInputRequests {
		return nil, fmt.Errorf("inputRequests: %d requests in one round, more than the limit of %d", len(keys), maxInputRequests)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-ctx.Done():
		case <-s.ctx.Done():
		case <-s.dead:
		}
		cancel()
	}()
	b := []byte{'{'}
	for i, key := range keys {
		r := reqs[key]
		res, err := s.fulfil(ctx, key, r)
		if serr := s.Err(); serr != nil {
			return nil, serr
		}
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
		return nil, fmt.Errorf("input request %s: unsupported method %s", s.quote(key), s.quote(r.Method))
	}
	if !s.hasHandler(r.Method) {
		return nil, fmt.Errorf("input request %s: the server asks the client for input with %s, and Options.%s is not set", s.quote(key), r.Method, option)
	}
	res, err, _ := s.answerServerRequest(ctx, nil, r.Method, r.Params)
	if err != nil {
		return nil, fmt.Errorf("input request %s: %w", s.quote(key), err)
	}
	return res, nil
}
