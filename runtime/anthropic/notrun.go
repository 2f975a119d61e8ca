package anthropic

import "github.com/mcpgen/mcpgen/runtime/internal/agent"

// CallsNotRunError is the error that Chat.Run returns (wrapped) when the
// model called tools that the application declared itself in
// Params.Tools, beside the toolset's: its own tools, and the client tools
// Anthropic defines (bash, the text editor, computer use, memory). A chat
// runs only its Toolset's calls. Run stops at such a message, once the
// toolset's calls of that message ran, without asking the model again.
// History then ends with the user message that answers the message's
// tool_use blocks, holding the toolset's tool_result blocks: add a
// tool_result for each of the application's calls to that message's
// Content, with its CallID as the tool_use_id, and call Run again to go
// on. Sent as it is, the history would be refused by the API.
//
// Its Calls are the calls left to the application, in the model's order.
type CallsNotRunError = agent.CallsNotRunError

// NotRunCall is a call of one of the application's tools that a chat did
// not run:
//   - Type is "tool_use".
//   - Name is the tool's name.
//   - CallID is the tool_use block's id, which its tool_result carries.
//   - Input is the block's input, as JSON.
//   - Item is the tool_use block as the API returned it.
type NotRunCall = agent.NotRunCall
