package openai

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcpgen/mcpgen/runtime/internal/provider"
)

// ResponsesTools returns the tools to send with the next request, in the
// form responses.ResponseNewParams.Tools takes: the functions Tools
// declares, each stating whether it is strict, since the Responses API
// takes a function without the flag to be strict. With ToolSearch.Native
// set, it returns instead the pinned functions, every other function with
// defer_loading set, and the API's tool_search tool, which loads the
// deferred functions the model looks for into the conversation.
func (ts *Toolset) ResponsesTools() []responses.ToolUnionParam {
	if ts.native() {
		return ts.nativeTools()
	}
	defs := ts.requestDefinitions()
	out := make([]responses.ToolUnionParam, len(defs))
	for i, d := range defs {
		out[i] = responsesFunction(d)
	}
	return out
}

// responsesFunction declares d as a Responses API function tool.
func responsesFunction(d shared.FunctionDefinitionParam) responses.ToolUnionParam {
	return responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
		Name:        d.Name,
		Description: d.Description,
		Parameters:  d.Parameters,
		Strict:      openai.Bool(d.Strict.Valid() && d.Strict.Value),
	}}
}

// HandleFunctionCall runs one function call of a Responses API model turn
// and returns the function_call_output item that answers it, as Handle
// does for a Chat Completions tool call.
func (ts *Toolset) HandleFunctionCall(ctx context.Context, call responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam {
	var text string
	switch {
	case call.Namespace != "":
		text = fmt.Sprintf("Error: the toolset declares no namespace; %q in namespace %q is not a declared function", call.Name, call.Namespace)
	case ts.native():
		// With the API's own search no search_tools is declared: the
		// name may be a server tool's.
		text = ts.call(ctx, call.Name, call.Arguments)
	default:
		text = ts.run(ctx, call.Name, call.Arguments)
	}
	return functionCallOutput(call.CallID, text)
}

// HandleFunctionCalls runs the function calls of one model turn
// concurrently and returns their function_call_output items in the same
// order. Each call is handled as HandleFunctionCall does; confirmations
// are asked one at a time.
func (ts *Toolset) HandleFunctionCalls(ctx context.Context, calls []responses.ResponseFunctionToolCall) []responses.ResponseInputItemUnionParam {
	return provider.HandleAll(ctx, calls, ts.HandleFunctionCall)
}

// functionCallOutput is the function_call_output item that answers the
// call callID with text.
func functionCallOutput(callID, text string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(text)
	item.OfFunctionCallOutput.CallID = openai.String(callID)
	return item
}
