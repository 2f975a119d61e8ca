package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// SendRequest sends a request for which the Session has no method of its
// own, such as resources/list or completion/complete, and returns its result
// as the server sent it. params is a JSON object without _meta, or nil for
// none; the Session adds the _meta members of the protocol era. The request passes
// through the Middleware, the timeouts and the cancellation of every other
// request; a JSON-RPC error is an *RPCError.
func (s *Session) SendRequest(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == "" {
		return nil, errors.New("sending a request: the method is empty")
	}
	var members func(b []byte) []byte
	if p := jsonrpc.TrimSpace(params); len(p) > 0 && !jsonrpc.IsNull(p) {
		var obj map[string]json.RawMessage
		if p[0] != '{' || json.Unmarshal(p, &obj) != nil {
			return nil, fmt.Errorf("%s: params must be a JSON object", method)
		}
		if _, ok := obj["_meta"]; ok {
			return nil, fmt.Errorf("%s: params must not hold _meta, which the Session writes (a Middleware adds members to it)", method)
		}
		inner := bytes.TrimSpace(p[1 : len(p)-1])
		if len(inner) > 0 {
			members = func(b []byte) []byte { return append(b, inner...) }
		}
	}
	st, err := s.current(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	res, err := s.do(ctx, st, &request{method: method}, members)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return bytes.Clone(res), nil
}
