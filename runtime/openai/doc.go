// Package openai connects MCP tools to OpenAI's Chat Completions and
// Responses APIs through the official SDK, github.com/openai/openai-go/v3.
//
// FunctionDefinitions declares MCP tools as function definitions that follow
// the API's rules, optionally in strict mode. A Toolset pairs them with a
// runtime.Caller and turns the model's tool calls into validated MCP tool
// calls, and the results into tool messages or function call outputs. Chat
// and Responses are conversations that run the model's calls through a
// Toolset. In deferred mode (Options.Search) a Toolset declares a few tools
// and lets the model search for the others, with mcpgen's search function
// or the Responses API's tool_search.
//
// Code that does not import this package does not depend on the SDK.
package openai
