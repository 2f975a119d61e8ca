package server

import "github.com/mcpgen/mcpgen/runtime"

// UnknownToolError returns the error a Server answers a call of an unknown
// tool with: a JSON-RPC invalid-params error naming the tool, as the
// specification shows it. A ToolHandler returns it to answer as if the tool
// did not exist.
func UnknownToolError(name string) *runtime.RPCError {
	return &runtime.RPCError{Code: runtime.CodeInvalidParams, Message: "Unknown tool: " + name}
}

// rpcError is a JSON-RPC error with no data.
func rpcError(code int, msg string) *runtime.RPCError {
	return &runtime.RPCError{Code: code, Message: msg}
}
