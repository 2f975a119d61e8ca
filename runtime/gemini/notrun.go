package gemini

import "github.com/mcpgen/mcpgen/runtime/internal/agent"

// CallsNotRunError is the error that Chat.Run returns (wrapped) when the
// model called functions that the application declared itself in
// Config.Tools, beside the toolset's. A chat runs only its Toolset's
// calls. Run stops at such a turn, once the toolset's calls of that turn
// ran, without asking the model again. History then ends with the user
// turn that answers the model's calls, holding the toolset's function
// responses: Gemini wants every response to a turn's calls in that one
// turn, so add a FunctionResponse part for each of the application's
// calls to its Parts (with the call's ID, when it has one, and name), and
// call Run again to go on. Sent as it is, the history would be refused by
// the API.
//
// Its Calls are the calls left to the application, in the model's order.
type CallsNotRunError = agent.CallsNotRunError

// NotRunCall is a call of one of the application's functions that a chat
// did not run:
//   - Type is "functionCall".
//   - Name is the function's name.
//   - CallID is the call's ID, which its FunctionResponse carries; empty
//     when the model gave none.
//   - Input is the call's arguments, as JSON.
//   - Item is the genai.FunctionCall, as JSON.
type NotRunCall = agent.NotRunCall
