package runtime

import "context"

// A Caller sends one tools/call request and returns its result.
//
// It is the only thing a generated Client needs from a connection, so that
// generated code runs over a Session, over an adapter for another SDK, or over
// a fake in tests. Implementations report a result whose isError flag is set
// as a *ToolError (see ResultError) and a JSON-RPC error as an *RPCError.
//
// args is marshaled with encoding/json, except that a json.RawMessage or
// []byte value is sent as it is. A nil args sends no arguments.
type Caller interface {
	CallTool(ctx context.Context, name string, args any) (*Result, error)
}
