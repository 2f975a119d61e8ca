// Package provider is the skeleton runtime/gemini, runtime/anthropic and
// runtime/openai share: the tools a toolset declares, by declared name and
// by MCP name (Tools), the user's confirmation of calls (Tools.Confirm),
// the concurrent run of one model turn's calls (HandleAll), the names a
// conversation keeps meaning when its toolset is replaced (Meanings) and
// the steps of a sampling request (Sample). Each adapter keeps only its
// SDK's types and its API's rules; the call itself is run by
// runtime/internal/toolcall and the conversation by runtime/internal/agent.
package provider
