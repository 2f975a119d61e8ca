package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcpgen/mcpgen/runtime/internal/agent"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// Responses is a conversation with an OpenAI model, through the Responses
// API, that can call the tools of a Toolset. Its zero value is not usable:
// set Client, Model and Toolset.
//
// Every request sends the whole history as its input, so the conversation
// needs nothing stored by the API and works with Store set to false. With
// a reasoning model, Store false also needs "reasoning.encrypted_content"
// in Params.Include: the reasoning items go back in the next request, and
// the API finds one that carries neither its encrypted content nor a
// stored copy nowhere (404). Models without reasoning refuse that include,
// so it is left to the application. A PreviousResponseID set in Params is
// sent with every request: History then holds what follows that response.
//
// Responses is not safe for concurrent use; use one Responses per
// conversation.
type Responses struct {
	// Client reaches the Responses API.
	Client *openai.Client
	// Model is the model name, such as "gpt-5".
	Model shared.ResponsesModel
	// Toolset is offered to the model and runs its function calls. It may
	// be nil for a conversation without tools. A confirmation set on it
	// (Toolset.SetConfirmation) applies to the calls the conversation runs.
	//
	// The application may replace Toolset between runs, with one built
	// after the server's tool list changed. A name the model was given for
	// one MCP tool does not then silently run another: when the new
	// toolset declares a name of the one before for another tool (a
	// rewritten name such as a_b, once the server lists a tool of that name
	// too), the first call of that name is refused, saying that the name
	// now means another tool and which name the tool it named has now. A
	// later call of the name runs the tool the new toolset declares under
	// it. In deferred mode the new toolset takes over the tools the
	// conversation found (those the server still lists), which the history
	// told the model it could call.
	Toolset *Toolset
	// Params, when set, is the base of every request: its fields are sent
	// as they are, with the toolset's tools added to its Tools. Model and
	// Input are the conversation's. Instructions go in Params.Instructions
	// or as a developer message at the start of History.
	Params *responses.ResponseNewParams
	// MaxSteps bounds the model requests of one Run; zero means
	// DefaultMaxSteps.
	MaxSteps int
	// History is the conversation so far, as input items. Run appends
	// every output item of the model as the API returned it (messages,
	// reasoning, function calls, tool search calls and their output), null
	// ones aside, and a function_call_output item for each function call,
	// including those it did not run, so that the history can always be
	// sent again; the calls of the application's own tools are the
	// application's to answer (see CallsNotRunError).
	History []responses.ResponseInputItemUnionParam

	answer string // the text of the last model turn, set by Request
	// meanings keeps the function names meaning the tools the model was
	// told they mean, when Toolset is replaced (see provider.Meanings).
	meanings *provider.Meanings
}

// Send appends a user message to the history and runs the conversation until
// the model answers in text, which it returns.
func (r *Responses) Send(ctx context.Context, text string) (string, error) {
	r.History = append(r.History, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser))
	return r.Run(ctx)
}

// Run sends the history to the model. While the model calls functions, it
// runs all the function calls of its response concurrently through the
// Toolset, appends the response's items and the function_call_output items
// to the history, and asks again. It returns the text of the first response
// without function calls; a response without text is an error when it
// carries a refusal, failed, or stopped incomplete (such as at
// max_output_tokens), and so is a response that is not finished (queued,
// as Params.Background asks) or was cancelled.
//
// Stopping runs nothing more, as in Chat.Run: the calls of the response to
// the MaxSteps-th request, of a response that arrives after ctx is
// cancelled and those still waiting for the user's confirmation are
// answered with an output saying they were not run. Run then returns an
// error wrapping ErrMaxSteps, or ctx's error, and the history answers every
// function call, ready for a later Send.
//
// Calls of the tools the application declared itself in Params.Tools are
// not run: Run stops at the turn that makes them and returns a
// *CallsNotRunError, which says how to go on.
func (r *Responses) Run(ctx context.Context) (string, error) {
	if r.Client == nil {
		return "", errors.New("openai responses: Client is nil")
	}
	r.answer = ""
	if err := agent.Loop[responses.ResponseFunctionToolCall](ctx, r.MaxSteps, (*responsesModel)(r)); err != nil {
		return "", fmt.Errorf("openai responses: %w", err)
	}
	return r.answer, nil
}

// responsesModel is a Responses as agent.Loop sees it.
type responsesModel Responses

func (m *responsesModel) Request(ctx context.Context) (calls []responses.ResponseFunctionToolCall, notRun []NotRunCall, err error) {
	r := (*Responses)(m)
	if r.Toolset != nil && r.meanings.Tools() != r.Toolset.tools {
		r.Toolset.tools.KeepFound(r.meanings.Tools())
		r.meanings = provider.NewMeanings(r.meanings, r.Toolset.tools)
	}
	resp, err := r.Client.Responses.New(ctx, r.params())
	if err != nil {
		return nil, nil, err
	}
	if resp == nil {
		return nil, nil, errNullResponse
	}
	items, err := inputItems(resp.Output)
	if err != nil {
		return nil, nil, err
	}
	r.History = append(r.History, items...)
	var refusal string
	apps := r.appFunctions()
	answered := answeredCalls(resp.Output)
	for _, item := range resp.Output {
		switch item.Type {
		case "function_call":
			if c := item.AsFunctionCall(); apps[c.Name] {
				notRun = append(notRun, NotRunCall{Type: item.Type, Name: c.Name, CallID: c.CallID, Input: c.Arguments, Item: json.RawMessage(item.RawJSON())})
			} else {
				calls = append(calls, c)
			}
		case "custom_tool_call", "computer_call", "local_shell_call", "shell_call", "apply_patch_call":
			// A hosted variant of these brings its own output item.
			if !answered[item.CallID] {
				notRun = append(notRun, NotRunCall{Type: item.Type, Name: item.Name, CallID: item.CallID, Input: item.Input, Item: json.RawMessage(item.RawJSON())})
			}
		case "mcp_approval_request":
			notRun = append(notRun, NotRunCall{Type: item.Type, Name: item.Name, CallID: item.ID, Item: json.RawMessage(item.RawJSON())})
		case "message":
			for _, c := range item.AsMessage().Content {
				if c.Type == "refusal" {
					refusal += c.Refusal
				}
			}
		}
	}
	if len(calls) == 0 && len(notRun) > 0 {
		return nil, notRun, nil
	}
	if len(calls) == 0 {
		text := resp.OutputText()
		switch {
		case resp.Status == responses.ResponseStatusFailed:
			return nil, nil, fmt.Errorf("the response failed: %s", responseError(resp))
		case resp.Status == responses.ResponseStatusQueued || resp.Status == responses.ResponseStatusInProgress:
			// Params.Background asks for an answer to fetch later.
			return nil, nil, fmt.Errorf("the response is %s, not finished; a conversation cannot run in the background (Params.Background)", resp.Status)
		case resp.Status == responses.ResponseStatusCancelled:
			return nil, nil, errors.New("the response was cancelled")
		case text != "":
		case refusal != "":
			return nil, nil, fmt.Errorf("the model refused: %s", refusal)
		case resp.Status == responses.ResponseStatusIncomplete:
			return nil, nil, fmt.Errorf("the model stopped without an answer (%s)", cmp.Or(string(resp.IncompleteDetails.Reason), "incomplete"))
		}
		r.answer = text
		return nil, nil, nil
	}
	if r.Toolset == nil {
		m.Skip(calls, "the conversation has no toolset")
		return nil, notRun, fmt.Errorf("the model called %s, but the conversation has no toolset", calls[0].Name)
	}
	return calls, notRun, nil
}

func (m *responsesModel) Run(ctx context.Context, calls []responses.ResponseFunctionToolCall) {
	if len(calls) == 0 {
		return
	}
	handle := provider.Guard(m.meanings, functionCallName, functionNotRun, m.Toolset.HandleFunctionCall)
	m.History = append(m.History, provider.HandleAll(ctx, calls, handle)...)
}

func functionCallName(c responses.ResponseFunctionToolCall) string { return c.Name }

// functionNotRun is the function_call_output item answering a call that
// was not run, and why.
func functionNotRun(c responses.ResponseFunctionToolCall, why string) responses.ResponseInputItemUnionParam {
	return functionCallOutput(c.CallID, "Error: "+toolcall.NotRun(c.Name, why))
}

func (m *responsesModel) Skip(calls []responses.ResponseFunctionToolCall, why string) {
	for _, call := range calls {
		m.History = append(m.History, functionNotRun(call, why))
	}
}

// appFunctions returns the names of the functions the application
// declared itself in Params.Tools.
func (r *Responses) appFunctions() map[string]bool {
	if r.Params == nil {
		return nil
	}
	var names map[string]bool
	for _, t := range r.Params.Tools {
		if f := t.OfFunction; f != nil {
			if names == nil {
				names = map[string]bool{}
			}
			names[f.Name] = true
		}
	}
	return names
}

// answeredCalls returns the call IDs that output items of a response
// already answer, as a hosted tool's call comes with its output.
func answeredCalls(output []responses.ResponseOutputItemUnion) map[string]bool {
	var ids map[string]bool
	for _, item := range output {
		if strings.HasSuffix(item.Type, "_output") && item.CallID != "" {
			if ids == nil {
				ids = map[string]bool{}
			}
			ids[item.CallID] = true
		}
	}
	return ids
}

// params returns the request: r.Params with the conversation's model,
// history and tools.
func (r *Responses) params() responses.ResponseNewParams {
	var p responses.ResponseNewParams
	if r.Params != nil {
		p = *r.Params
	}
	p.Model = r.Model
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: r.History}
	if r.Toolset != nil {
		p.Tools = append(append([]responses.ToolUnionParam(nil), p.Tools...), r.Toolset.ResponsesTools()...)
	}
	return p
}

// inputItems turns the output items of a response into input items that
// send them back unchanged, as the API returned them. A null item carries
// nothing and is dropped: sent back, it would make the API refuse every
// later request.
func inputItems(output []responses.ResponseOutputItemUnion) ([]responses.ResponseInputItemUnionParam, error) {
	items := make([]responses.ResponseInputItemUnionParam, 0, len(output))
	for i, item := range output {
		raw := item.RawJSON()
		if raw == "null" {
			continue
		}
		if !json.Valid([]byte(raw)) {
			return nil, fmt.Errorf("output item %d (%s) of the response is not valid JSON", i, cmp.Or(item.Type, "untyped"))
		}
		items = append(items, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(raw)))
	}
	return items, nil
}

// responseError describes the error of a failed response.
func responseError(resp *responses.Response) string {
	msg := strings.TrimSpace(resp.Error.Message)
	switch {
	case msg != "" && resp.Error.Code != "":
		return fmt.Sprintf("%s (%s)", msg, resp.Error.Code)
	case msg != "":
		return msg
	case resp.Error.Code != "":
		return string(resp.Error.Code)
	}
	return "no error given"
}
