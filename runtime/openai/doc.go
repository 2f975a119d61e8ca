// Package openai connects MCP tools to OpenAI's Chat Completions API through
// the official SDK, github.com/openai/openai-go/v3.
//
// FunctionDefinitions declares MCP tools as function definitions that follow
// the API's rules, optionally in strict mode. A Toolset pairs them with a
// runtime.Caller and turns the model's tool calls into validated MCP tool
// calls, and the results into tool messages.
//
// Code that does not import this package does not depend on the SDK.
package openai
