package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mcpgen/mcpgen/runtime/internal/agent"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// DefaultMaxSteps is the number of model requests one Chat.Run makes at most
// when Chat.MaxSteps is zero.
const DefaultMaxSteps = agent.DefaultMaxSteps

// DefaultMaxTokens is the max_tokens of each request when Chat.MaxTokens is
// zero.
const DefaultMaxTokens = 4096

// ErrMaxSteps is returned (wrapped) when the model still asks for tools after
// the last allowed step. It is the same error as runtime/gemini's.
var ErrMaxSteps = agent.ErrMaxSteps

// errNullResponse is the error of a response whose body is JSON null, which
// the SDK decodes as no value and no error.
var errNullResponse = errors.New("the response is null")

// Chat is a conversation with a Claude model, through the Messages API, that
// can call the tools of a Toolset. Its zero value is not usable: set Client,
// Model and Toolset.
//
// Chat is not safe for concurrent use; use one Chat per conversation.
type Chat struct {
	// Client reaches the Messages API.
	Client *anthropic.Client
	// Model is the model name, such as "claude-sonnet-4-5".
	Model anthropic.Model
	// MaxTokens is the max_tokens of each request; zero means
	// DefaultMaxTokens.
	MaxTokens int64
	// Toolset is offered to the model and runs its tool_use blocks. It may
	// be nil for a chat without tools. A confirmation set on it
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
	// Params, when set, is the base of every request: its System,
	// Temperature and other fields are sent as they are, with the toolset's
	// tools added to its Tools. Model, MaxTokens and Messages are the
	// chat's.
	Params *anthropic.MessageNewParams
	// MaxSteps bounds the model requests of one Run; zero means
	// DefaultMaxSteps.
	MaxSteps int
	// History is the conversation so far. Run appends every assistant
	// message as the model sent it, less the blank text and null blocks
	// the API would refuse, and a user message with a tool_result for each
	// of its tool_use blocks, including those it did not run, so that the
	// history can always be sent again; the calls of the application's own
	// tools are the application's to answer (see CallsNotRunError).
	History []anthropic.MessageParam

	answer string // the text of the last model turn, set by Request
	// meanings keeps the function names meaning the tools the model was
	// told they mean, when Toolset is replaced (see provider.Meanings).
	meanings *provider.Meanings
}

// Send appends a user message to the history and runs the conversation until
// the model answers in text, which it returns. A blank text is an error,
// and the history is left as it was: the API refuses a blank text block,
// and would refuse every later request with it.
func (c *Chat) Send(ctx context.Context, text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", errors.New("anthropic chat: the message is blank")
	}
	c.History = append(c.History, anthropic.NewUserMessage(anthropic.NewTextBlock(text)))
	return c.Run(ctx)
}

// Run sends the history to the model. While the model asks for tools, it
// runs all the tool_use blocks of its message concurrently through the
// Toolset, appends the message and the tool results to the history, and
// asks again. A message that stops with pause_turn (a server tool, such
// as Claude's tool search, paused the turn) is sent back as it is, so that
// the model goes on; that request counts as a step. It returns the text of
// the first message without tool_use blocks; a message without text is an
// error when the model stopped for a reason other than end_turn or
// stop_sequence (such as max_tokens or refusal), and so is a message that
// max_tokens or the context window cut off in the middle of a tool_use:
// none of its calls is run, since the input of the last one is incomplete.
//
// Stopping runs nothing more. When the model still asks for tools in the
// answer to the MaxSteps-th request, those calls are not run: Run answers
// each with an error tool_result saying so, and returns an error wrapping
// ErrMaxSteps. When ctx is cancelled, no new call starts: the tool_use
// blocks of a message that arrives after the cancellation are answered the
// same way, as are calls still waiting for the user's confirmation, and Run
// returns ctx's error. Either way the history ends with a tool_result for
// every tool_use, ready for a later Send.
//
// Calls of the tools the application declared itself in Params.Tools are
// not run: Run stops at the message that makes them and returns a
// *CallsNotRunError, which says how to go on.
func (c *Chat) Run(ctx context.Context) (string, error) {
	if c.Client == nil {
		return "", errors.New("anthropic chat: Client is nil")
	}
	c.answer = ""
	if err := agent.Loop[anthropic.ToolUseBlock](ctx, c.MaxSteps, (*chatModel)(c)); err != nil {
		return "", fmt.Errorf("anthropic chat: %w", err)
	}
	return c.answer, nil
}

// chatModel is a Chat as agent.Loop sees it.
type chatModel Chat

func (m *chatModel) Request(ctx context.Context) (uses []anthropic.ToolUseBlock, notRun []NotRunCall, err error) {
	c := (*Chat)(m)
	if c.Toolset != nil && c.meanings.Tools() != c.Toolset.tools {
		c.Toolset.tools.KeepFound(c.meanings.Tools())
		c.meanings = provider.NewMeanings(c.meanings, c.Toolset.tools)
	}
	msg, err := c.Client.Messages.New(ctx, c.params())
	if err != nil {
		return nil, nil, err
	}
	if msg == nil {
		return nil, nil, errNullResponse
	}
	if len(msg.Content) == 0 {
		return nil, nil, fmt.Errorf("the model returned an empty message (%s)", orNone(string(msg.StopReason)))
	}
	if p := historyMessage(msg); len(p.Content) > 0 {
		c.History = append(c.History, p)
	}
	uses = ToolUses(msg)
	if len(uses) == 0 && msg.StopReason == anthropic.StopReasonPauseTurn {
		// A server tool, such as the tool search, paused the turn: sending
		// the history as it is lets the model go on. The next request is a
		// step like any other.
		return []anthropic.ToolUseBlock{resumeTurn}, nil, nil
	}
	if len(uses) == 0 {
		var b strings.Builder
		for _, block := range msg.Content {
			if block.Type == "text" {
				b.WriteString(block.Text)
			}
		}
		text := b.String()
		switch msg.StopReason {
		case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence, "":
		default:
			if text == "" {
				return nil, nil, fmt.Errorf("the model stopped without an answer (%s)", msg.StopReason)
			}
		}
		c.answer = text
		return nil, nil, nil
	}
	if limit := cutOffAt(msg.StopReason, c.maxTokens()); limit != "" && msg.Content[len(msg.Content)-1].Type == "tool_use" {
		// A limit cut the last tool_use short: its input may lack members
		// or end mid-string, and the model did not finish the calls it
		// meant to make together. None of them is run.
		m.Skip(uses, "the model's message was cut off at "+limit)
		return nil, nil, fmt.Errorf("the model's message was cut off at %s in the call to %s", limit, uses[len(uses)-1].Name)
	}
	uses, notRun = c.ownCalls(uses)
	if c.Toolset == nil && len(uses) > 0 {
		m.Skip(uses, "the chat has no toolset")
		return nil, notRun, fmt.Errorf("the model called %s, but the chat has no toolset", uses[0].Name)
	}
	return uses, notRun, nil
}

// ownCalls splits the tool_use blocks of a message into those the chat
// runs and those of the tools the application declared itself in
// Params.Tools.
func (c *Chat) ownCalls(uses []anthropic.ToolUseBlock) (own []anthropic.ToolUseBlock, notRun []NotRunCall) {
	if c.Params == nil || len(c.Params.Tools) == 0 {
		return uses, nil
	}
	apps := map[string]bool{}
	for _, t := range c.Params.Tools {
		if name := t.GetName(); name != nil {
			apps[*name] = true
		}
	}
	for _, u := range uses {
		if !apps[u.Name] {
			own = append(own, u)
			continue
		}
		notRun = append(notRun, NotRunCall{Type: "tool_use", Name: u.Name, CallID: u.ID, Input: string(u.Input), Item: json.RawMessage(u.RawJSON())})
	}
	return own, notRun
}

// historyMessage returns msg as the history keeps it: as the model sent it,
// less its blank text blocks, which Claude may send (beside tool_use
// blocks, or alone) but the API refuses in a request, and less null
// blocks, which carry nothing and which the API refuses too.
func historyMessage(msg *anthropic.Message) anthropic.MessageParam {
	p := msg.ToParam()
	blocks := p.Content[:0]
	for i, b := range p.Content {
		if msg.Content[i].RawJSON() == "null" || b.OfText != nil && strings.TrimSpace(b.OfText.Text) == "" {
			continue
		}
		blocks = append(blocks, b)
	}
	p.Content = blocks
	return p
}

// resumeTurn is the call Request returns for a paused turn: it runs
// nothing, and the next request resumes the turn. It is told apart by its
// empty type, which a block of the model's (type tool_use) never has; a
// tool_use block with an empty id is a malformed call, answered as such.
var resumeTurn = anthropic.ToolUseBlock{}

func isResume(uses []anthropic.ToolUseBlock) bool { return len(uses) == 1 && uses[0].Type == "" }

func (m *chatModel) Run(ctx context.Context, uses []anthropic.ToolUseBlock) {
	if isResume(uses) {
		return
	}
	var results []anthropic.ContentBlockParamUnion
	if len(uses) > 0 {
		handle := provider.Guard(m.meanings, useName, notRunResult, m.Toolset.handleBlock)
		results = provider.HandleAll(ctx, uses, handle)
	}
	m.History = append(m.History, anthropic.NewUserMessage(results...))
}

func (m *chatModel) Skip(uses []anthropic.ToolUseBlock, why string) {
	if isResume(uses) {
		// The paused message has no tool_use to answer.
		return
	}
	blocks := make([]anthropic.ContentBlockParamUnion, len(uses))
	for i, u := range uses {
		blocks[i] = notRunResult(u, why)
	}
	m.History = append(m.History, anthropic.NewUserMessage(blocks...))
}

func useName(u anthropic.ToolUseBlock) string { return u.Name }

// notRunResult is the tool_result block answering a tool_use that was not
// run, and why.
func notRunResult(u anthropic.ToolUseBlock, why string) anthropic.ContentBlockParamUnion {
	r := withError(anthropic.ToolResultBlockParam{ToolUseID: u.ID}, toolcall.NotRun(u.Name, why))
	return anthropic.ContentBlockParamUnion{OfToolResult: &r}
}

// params returns the request: c.Params with the chat's model, limit,
// history and tools.
func (c *Chat) params() anthropic.MessageNewParams {
	var p anthropic.MessageNewParams
	if c.Params != nil {
		p = *c.Params
	}
	p.Model = c.Model
	p.MaxTokens = c.maxTokens()
	p.Messages = c.History
	if c.Toolset != nil {
		p.Tools = append(append([]anthropic.ToolUnionParam(nil), p.Tools...), c.Toolset.Tools()...)
	}
	return p
}

// cutOffAt returns the limit that ended a message cut off before the model
// finished it, given the request's max_tokens, or "" for any other stop.
func cutOffAt(reason anthropic.StopReason, maxTokens int64) string {
	switch reason {
	case anthropic.StopReasonMaxTokens:
		return fmt.Sprintf("max_tokens (%d)", maxTokens)
	case anthropic.StopReasonModelContextWindowExceeded:
		return "the model's context window"
	}
	return ""
}

// maxTokens returns the max_tokens of each request.
func (c *Chat) maxTokens() int64 {
	if c.MaxTokens <= 0 {
		return DefaultMaxTokens
	}
	return c.MaxTokens
}

func orNone(reason string) string {
	if reason == "" {
		return "no reason given"
	}
	return reason
}
