package openai

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcpgen/mcpgen/runtime/internal/provider"
)

// ResponsesTools returns the definitions in the form
// responses.ResponseNewParams.Tools takes. Each function states whether it
// is strict, since the Responses API takes a function without the flag to
// be strict.
func (ts *Toolset) ResponsesTools() []responses.ToolUnionParam {
	out := make([]responses.ToolUnionParam, len(ts.defs))
	for i, d := range ts.defs {
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
	if call.Namespace != "" {
		text = fmt.Sprintf("Error: the toolset declares no namespace; %q in namespace %q is not a declared function", call.Name, call.Namespace)
	} else {
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

// responsesRequestTools returns the tools of the next Responses request.
func (ts *Toolset) responsesRequestTools() ([]responses.ToolUnionParam, error) {
	return ts.ResponsesTools(), nil
}
