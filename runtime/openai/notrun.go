package openai

import "github.com/mcpgen/mcpgen/runtime/internal/agent"

// CallsNotRunError is the error that Chat.Run and Responses.Run return
// (wrapped) when the model called tools that the application declared
// itself in Params.Tools, beside the toolset's: its own functions and
// custom tools and, in the Responses API, the tools whose calls the
// client carries out (computer use, local shell, shell, apply_patch) and
// the approvals a remote MCP tool asks for. A conversation runs only its
// Toolset's calls. Run stops at such a turn, once the toolset's calls of
// that turn ran, without asking the model again, and History then ends
// with the application's calls unanswered: append an answer to each,
// carrying its CallID (a tool message for Chat; the call's output item,
// or an mcp_approval_response, for Responses), and call Run again to go
// on. Sent as it is, the history would be refused by the API.
//
// Its Calls are the calls left to the application, in the model's order.
type CallsNotRunError = agent.CallsNotRunError

// NotRunCall is a call of one of the application's tools that a
// conversation did not run:
//   - Type is the call's type as the API gives it: "function" or "custom"
//     in Chat Completions; "function_call", "custom_tool_call",
//     "computer_call", "local_shell_call", "shell_call",
//     "apply_patch_call" or "mcp_approval_request" in the Responses API.
//   - Name is the tool's name, empty for calls of tools without one.
//   - CallID is the ID its answer carries: the call_id, or for an
//     mcp_approval_request the approval_request_id.
//   - Input is a function's arguments (JSON) or a custom tool's input;
//     empty for the other types, whose Item holds their action.
//   - Item is the call as the API returned it: the tool call of a Chat
//     Completions message, or the Responses API's output item.
type NotRunCall = agent.NotRunCall
