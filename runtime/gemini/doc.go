// Package gemini connects MCP tools to Google's Gemini models through
// google.golang.org/genai.
//
// Declarations turns MCP tool lists into Gemini function declarations that
// follow the Gemini API's rules. A Toolset pairs those declarations with a
// runtime.Caller: it hands the model its tools, and turns the model's function
// calls into validated MCP tool calls and their results into function
// responses. Chat runs the whole loop of one user turn over a genai.Client;
// Live runs the tool calls of a Gemini Live session the caller opened.
//
// For a server with more tools than a request should carry, a Toolset in
// deferred mode (DeclarationOptions.Search) declares a few pinned tools and
// a search function it answers itself; the tools found are declared from the
// next request on, and sent to a Live session as they are found.
//
// Code that does not import this package does not depend on genai.
package gemini
