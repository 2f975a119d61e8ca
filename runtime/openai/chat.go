package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/mcpgen/mcpgen/runtime/internal/agent"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// DefaultMaxSteps is the number of model requests one Chat.Run makes at most
// when Chat.MaxSteps is zero.
const DefaultMaxSteps = agent.DefaultMaxSteps

// ErrMaxSteps is returned (wrapped) when the model still asks for tools after
// the last allowed step. It is the same error as runtime/gemini's.
var ErrMaxSteps = agent.ErrMaxSteps

// errNullResponse is the error of a response whose body is JSON null, which
// the SDK decodes as no value and no error.
var errNullResponse = errors.New("the response is null")

// Chat is a conversation with an OpenAI model, through the Chat Completions
// API, that can call the tools of a Toolset. Its zero value is not usable:
// set Client, Model and Toolset.
//
// Chat is not safe for concurrent use; use one Chat per conversation.
type Chat struct {
	// Client reaches the Chat Completions API.
	Client *openai.Client
	// Model is the model name, such as "gpt-4.1".
	Model openai.ChatModel
	// Toolset is offered to the model and runs its tool calls. It may be
	// nil for a chat without tools. A confirmation set on it
	// (Toolset.SetConfirmation) applies to the calls the chat runs.
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
	// Messages are the chat's. A system or developer message goes at the
	// start of History.
	Params *openai.ChatCompletionNewParams
	// MaxSteps bounds the model requests of one Run; zero means
	// DefaultMaxSteps.
	MaxSteps int
	// History is the conversation so far. Run appends every assistant
	// message as the model sent it and a tool message for each of its tool
	// calls, including those it did not run, so that the history can
	// always be sent again; the calls of the application's own tools are
	// the application's to answer (see CallsNotRunError).
	History []openai.ChatCompletionMessageParamUnion

	answer string // the text of the last model turn, set by Request
	// meanings keeps the function names meaning the tools the model was
	// told they mean, when Toolset is replaced (see provider.Meanings).
	meanings *provider.Meanings
}

// Send appends a user message to the history and runs the conversation until
// the model answers in text, which it returns.
func (c *Chat) Send(ctx context.Context, text string) (string, error) {
	c.History = append(c.History, openai.UserMessage(text))
	return c.Run(ctx)
}

// Run sends the history to the model. While the model asks for tools, it
// runs all the tool calls of its message concurrently through the Toolset,
// appends the message and the tool messages to the history, and asks
// again. It returns the content of the first message without tool calls; a
// message without content is an error when it carries a refusal, or when
// the model stopped for a reason other than stop (such as length or
// content_filter).
//
// Stopping runs nothing more. When the model still asks for tools in the
// answer to the MaxSteps-th request, those calls are not run: Run answers
// each with a tool message saying so, and returns an error wrapping
// ErrMaxSteps. When ctx is cancelled, no new call starts: the tool calls of
// a message that arrives after the cancellation are answered the same way,
// as are calls still waiting for the user's confirmation, and Run returns
// ctx's error. Either way the history ends with a tool message for every
// tool call, ready for a later Send.
//
// A toolset in deferred mode declares the tools found so far anew on each
// request; one that asks for the provider's own search
// (runtime.ToolSearch.Native) is refused, as Chat Completions has none.
//
// Calls of the tools the application declared itself in Params.Tools are
// not run: Run stops at the message that makes them and returns a
// *CallsNotRunError, which says how to go on.
func (c *Chat) Run(ctx context.Context) (string, error) {
	if c.Client == nil {
		return "", errors.New("openai chat: Client is nil")
	}
	if c.Toolset != nil && c.Toolset.native() {
		return "", errors.New("openai chat: the toolset asks for the provider's own tool search (runtime.ToolSearch.Native), which Chat Completions does not have; use openai.Responses, or leave Native false for mcpgen's search function")
	}
	c.answer = ""
	if err := agent.Loop[openai.ChatCompletionMessageToolCallUnion](ctx, c.MaxSteps, (*chatModel)(c)); err != nil {
		return "", fmt.Errorf("openai chat: %w", err)
	}
	return c.answer, nil
}

// chatModel is a Chat as agent.Loop sees it.
type chatModel Chat

func (m *chatModel) Request(ctx context.Context) (calls []openai.ChatCompletionMessageToolCallUnion, notRun []NotRunCall, err error) {
	c := (*Chat)(m)
	if c.Toolset != nil && c.meanings.Tools() != c.Toolset.tools {
		c.Toolset.tools.KeepFound(c.meanings.Tools())
		c.meanings = provider.NewMeanings(c.meanings, c.Toolset.tools)
	}
	resp, err := c.Client.Chat.Completions.New(ctx, c.params())
	if err != nil {
		return nil, nil, err
	}
	if resp == nil {
		return nil, nil, errNullResponse
	}
	if len(resp.Choices) == 0 {
		return nil, nil, errors.New("the model returned no choice")
	}
	choice := resp.Choices[0]
	msg := choice.Message
	// A null tool call carries nothing: kept, it would go back as a null
	// and be answered for the call id "", which the API refuses.
	msg.ToolCalls = slices.DeleteFunc(msg.ToolCalls, func(call openai.ChatCompletionMessageToolCallUnion) bool { return call.RawJSON() == "null" })
	c.History = append(c.History, assistantMessage(msg))
	if len(msg.ToolCalls) == 0 {
		switch {
		case msg.Content != "":
		case msg.Refusal != "":
			return nil, nil, fmt.Errorf("the model refused: %s", msg.Refusal)
		case choice.FinishReason != "" && choice.FinishReason != "stop":
			return nil, nil, fmt.Errorf("the model stopped without an answer (%s)", choice.FinishReason)
		}
		c.answer = msg.Content
		return nil, nil, nil
	}
	calls, notRun = c.ownCalls(msg.ToolCalls)
	if c.Toolset == nil && len(calls) > 0 {
		m.Skip(calls, "the chat has no toolset")
		return nil, notRun, fmt.Errorf("the model called %s, but the chat has no toolset", calls[0].Function.Name)
	}
	return calls, notRun, nil
}

// ownCalls splits the calls of a message into those the chat runs and
// those of the tools the application declared itself in Params.Tools: its
// custom tools and functions.
func (c *Chat) ownCalls(calls []openai.ChatCompletionMessageToolCallUnion) (own []openai.ChatCompletionMessageToolCallUnion, notRun []NotRunCall) {
	if c.Params == nil || len(c.Params.Tools) == 0 {
		return calls, nil
	}
	apps := map[string]bool{}
	for _, t := range c.Params.Tools {
		if f := t.OfFunction; f != nil {
			apps[f.Function.Name] = true
		}
	}
	for _, call := range calls {
		switch {
		case call.Type == "custom":
			notRun = append(notRun, NotRunCall{Type: call.Type, Name: call.Custom.Name, CallID: call.ID, Input: call.Custom.Input, Item: json.RawMessage(call.RawJSON())})
		case (call.Type == "" || call.Type == "function") && apps[call.Function.Name]:
			notRun = append(notRun, NotRunCall{Type: "function", Name: call.Function.Name, CallID: call.ID, Input: call.Function.Arguments, Item: json.RawMessage(call.RawJSON())})
		default:
			own = append(own, call)
		}
	}
	return own, notRun
}

// assistantMessage returns msg as the history keeps it: as ToParam gives
// it, but with a tool call of a type the SDK does not know kept as the
// model sent it, where ToParam leaves a null that the API would refuse,
// and with empty content when it has neither content nor tool calls (a
// model that stopped at the token limit), since the API refuses an
// assistant message without both.
func assistantMessage(msg openai.ChatCompletionMessage) openai.ChatCompletionMessageParamUnion {
	p := msg.ToParam()
	if len(p.OfAssistant.ToolCalls) == 0 && !p.OfAssistant.Content.OfString.Valid() && len(p.OfAssistant.Content.OfArrayOfContentParts) == 0 {
		p.OfAssistant.Content.OfString = openai.String("")
	}
	for i, call := range p.OfAssistant.ToolCalls {
		if call.OfFunction == nil && call.OfCustom == nil {
			p.OfAssistant.ToolCalls[i] = param.Override[openai.ChatCompletionMessageToolCallUnionParam](json.RawMessage(msg.ToolCalls[i].RawJSON()))
		}
	}
	return p
}

func (m *chatModel) Run(ctx context.Context, calls []openai.ChatCompletionMessageToolCallUnion) {
	if len(calls) == 0 {
		return
	}
	handle := provider.Guard(m.meanings, chatCallName, chatNotRun, m.Toolset.Handle)
	m.History = append(m.History, provider.HandleAll(ctx, calls, handle)...)
}

func chatCallName(c openai.ChatCompletionMessageToolCallUnion) string { return c.Function.Name }

// chatNotRun is the tool message answering a call that was not run, and
// why.
func chatNotRun(c openai.ChatCompletionMessageToolCallUnion, why string) openai.ChatCompletionMessageParamUnion {
	return openai.ToolMessage("Error: "+toolcall.NotRun(c.Function.Name, why), c.ID)
}

func (m *chatModel) Skip(calls []openai.ChatCompletionMessageToolCallUnion, why string) {
	for _, call := range calls {
		m.History = append(m.History, chatNotRun(call, why))
	}
}

// params returns the request: c.Params with the chat's model, history and
// tools.
func (c *Chat) params() openai.ChatCompletionNewParams {
	var p openai.ChatCompletionNewParams
	if c.Params != nil {
		p = *c.Params
	}
	p.Model = c.Model
	p.Messages = c.History
	if c.Toolset != nil {
		p.Tools = append(append([]openai.ChatCompletionToolUnionParam(nil), p.Tools...), c.Toolset.Tools()...)
	}
	return p
}
