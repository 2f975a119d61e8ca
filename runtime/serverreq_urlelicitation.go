package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// urlElicitationRetry handles a 2025-11-25 URLElicitationRequired error
// (-32042) to a call: it shows each URL elicitation of its data through the
// elicitation handler and reports whether the call is to be sent again,
// which it is when the user accepted them all. round counts the call's
// requests so far, which the retries share with input_required rounds.
// The code means that in the 2025-11-25 era alone: another era's server
// gets no URL shown, and its error stands.
func (s *Session) urlElicitationRetry(ctx context.Context, name string, err error, round int) (bool, error) {
	var rpc *RPCError
	if s.opts.Elicitation == nil || !errors.As(err, &rpc) || rpc.Code != CodeURLElicitationRequired {
		return false, nil
	}
	if st := s.state.Load(); st == nil || !st.legacy || st.version != "2025-11-25" {
		return false, nil
	}
	var d struct {
		Elicitations []json.RawMessage `json:"elicitations"`
	}
	if json.Unmarshal(rpc.Data, &d) != nil || len(d.Elicitations) == 0 {
		return false, nil
	}
	if round+1 >= maxInputRounds {
		return false, &InputRoundsError{Tool: name, Rounds: maxInputRounds}
	}
	for i, params := range d.Elicitations {
		res, herr := s.elicit(ctx, params)
		if herr != nil {
			return false, fmt.Errorf("calling %s: URL elicitation %d: %w", name, i, herr)
		}
		var r ElicitResult
		if json.Unmarshal(res, &r) != nil || r.Action != ElicitAccept {
			return false, nil // the user did not go; the server's error stands
		}
	}
	return true, nil
}
