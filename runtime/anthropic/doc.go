// Package anthropic connects MCP tools to Anthropic's Messages API through
// the official SDK, github.com/anthropics/anthropic-sdk-go.
//
// ToolParams declares MCP tools as anthropic.ToolParam values that follow
// the API's rules. A Toolset pairs them with a runtime.Caller and turns the
// model's tool_use blocks into validated MCP tool calls, and the results into
// tool_result blocks. For servers with many tools, Options.Search puts a
// Toolset in deferred mode: a few pinned tools are declared, and the model
// finds the others with Claude's tool search tool or with mcpgen's own
// search function.
//
// Code that does not import this package does not depend on the SDK.
package anthropic
