package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime/internal/agent"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// DefaultMaxSteps is the number of model requests one Chat.Run makes at most
// when Chat.MaxSteps is zero.
const DefaultMaxSteps = agent.DefaultMaxSteps

// ErrMaxSteps is returned (wrapped) when the model still asks for tools after
// the last allowed step. runtime/anthropic and runtime/openai return the
// same error.
var ErrMaxSteps = agent.ErrMaxSteps

// Chat is a conversation with a Gemini model that can call the tools of a
// Toolset. Its zero value is not usable: set Client, Model and Toolset.
//
// Chat is not safe for concurrent use; use one Chat per conversation.
type Chat struct {
	// Client reaches the Gemini API.
	Client *genai.Client
	// Model is the model name, such as "gemini-2.5-flash".
	Model string
	// Toolset is offered to the model and runs its function calls. It may
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
	// Config is sent with every request, with the toolset's tools added to
	// its Tools. It may be nil.
	Config *genai.GenerateContentConfig
	// MaxSteps bounds the model requests of one Run; zero means
	// DefaultMaxSteps.
	MaxSteps int
	// History is the conversation so far. Run appends every model turn as
	// the model sent it (thought signatures included) and every turn of
	// function responses, including responses for the calls it did not
	// run, so that the history can always be sent again; the calls of the
	// application's own functions are the application's to answer (see
	// CallsNotRunError).
	History []*genai.Content

	answer string // the text of the last model turn, set by request
	// meanings keeps the function names meaning the tools the model was
	// told they mean, when Toolset is replaced (see provider.Meanings).
	meanings *provider.Meanings
}

// Send appends a user message to the history and runs the conversation until
// the model answers in text, which it returns.
func (c *Chat) Send(ctx context.Context, text string) (string, error) {
	c.History = append(c.History, genai.NewContentFromText(text, genai.RoleUser))
	return c.Run(ctx)
}

// Run sends the history to the model. While the model asks for function
// calls, it runs them all through the Toolset, appends the model's turn and
// the responses to the history, and asks again. It returns the text of the
// first answer without function calls. An answer without text is an error
// when the model stopped for a reason other than STOP (such as MAX_TOKENS
// or SAFETY), or when the prompt was blocked.
//
// Stopping runs nothing more. When the model still calls tools in the
// answer to the MaxSteps-th request, those calls are not run: Run answers
// each with an error saying so, and returns an error wrapping ErrMaxSteps.
// When ctx is cancelled, no new call starts: the calls of a model turn that
// arrives after the cancellation are answered the same way, as are calls
// still waiting for the user's confirmation, and Run returns ctx's error.
// Either way the history ends with a response for every call, ready for a
// later Send.
//
// Calls of the functions the application declared itself in Config.Tools
// are not run: Run stops at the turn that makes them and returns a
// *CallsNotRunError, which says how to go on.
func (c *Chat) Run(ctx context.Context) (string, error) {
	if c.Client == nil || c.Client.Models == nil {
		return "", errors.New("gemini chat: Client is nil")
	}
	c.answer = ""
	if err := agent.Loop[*genai.FunctionCall](ctx, c.MaxSteps, (*chatModel)(c)); err != nil {
		return "", fmt.Errorf("gemini chat: %w", err)
	}
	return c.answer, nil
}

// chatModel is a Chat as agent.Loop sees it.
type chatModel Chat

func (m *chatModel) Request(ctx context.Context) (calls []*genai.FunctionCall, notRun []NotRunCall, err error) {
	c := (*Chat)(m)
	if c.Toolset != nil && c.meanings.Tools() != c.Toolset.tools {
		c.Toolset.tools.KeepFound(c.meanings.Tools())
		c.meanings = provider.NewMeanings(c.meanings, c.Toolset.tools)
	}
	resp, err := generate(ctx, c.Client.Models, c.Model, c.History, c.config())
	if err != nil {
		return nil, nil, err
	}
	turn, err := modelTurn(resp)
	if err != nil {
		return nil, nil, err
	}
	c.History = append(c.History, turn)
	calls = functionCalls(turn)
	if len(calls) == 0 {
		text := turnText(turn)
		if reason := resp.Candidates[0].FinishReason; text == "" && reason != "" && reason != genai.FinishReasonStop {
			return nil, nil, fmt.Errorf("the model stopped without an answer (%s)", reason)
		}
		c.answer = text
		return nil, nil, nil
	}
	calls, notRun = c.ownCalls(calls)
	if c.Toolset == nil && len(calls) > 0 {
		m.Skip(calls, "the chat has no toolset")
		return nil, notRun, fmt.Errorf("the model called %s, but the chat has no toolset", calls[0].Name)
	}
	return calls, notRun, nil
}

// ownCalls splits the function calls of a turn into those the chat runs
// and those of the functions the application declared itself in
// Config.Tools.
func (c *Chat) ownCalls(calls []*genai.FunctionCall) (own []*genai.FunctionCall, notRun []NotRunCall) {
	if c.Config == nil || len(c.Config.Tools) == 0 {
		return calls, nil
	}
	apps := map[string]bool{}
	for _, t := range c.Config.Tools {
		if t == nil {
			continue
		}
		for _, d := range t.FunctionDeclarations {
			if d != nil {
				apps[d.Name] = true
			}
		}
	}
	for _, call := range calls {
		if !apps[call.Name] {
			own = append(own, call)
			continue
		}
		args, _ := json.Marshal(call.Args)
		item, _ := json.Marshal(call)
		notRun = append(notRun, NotRunCall{Type: "functionCall", Name: call.Name, CallID: call.ID, Input: string(args), Item: item})
	}
	return own, notRun
}

func (m *chatModel) Run(ctx context.Context, calls []*genai.FunctionCall) {
	if len(calls) == 0 {
		m.appendResponses(nil)
		return
	}
	handle := provider.Guard(m.meanings, callName, notRunResponse, m.Toolset.Handle)
	m.appendResponses(provider.HandleAll(withImagesFor(ctx, m.Model), calls, handle))
}

func callName(c *genai.FunctionCall) string { return c.Name }

// notRunResponse is the response to a call that was not run, and why.
func notRunResponse(c *genai.FunctionCall, why string) *genai.FunctionResponse {
	return errorResponse(c, toolcall.NotRun(c.Name, why))
}

func (m *chatModel) Skip(calls []*genai.FunctionCall, why string) {
	responses := make([]*genai.FunctionResponse, len(calls))
	for i, call := range calls {
		responses[i] = notRunResponse(call, why)
	}
	m.appendResponses(responses)
}

func (m *chatModel) appendResponses(responses []*genai.FunctionResponse) {
	parts := make([]*genai.Part, len(responses))
	for i, r := range responses {
		parts[i] = &genai.Part{FunctionResponse: r}
	}
	m.History = append(m.History, genai.NewContentFromParts(parts, genai.RoleUser))
}

// config returns the request configuration: c.Config with the toolset's
// tools added.
func (c *Chat) config() *genai.GenerateContentConfig {
	var cfg genai.GenerateContentConfig
	if c.Config != nil {
		cfg = *c.Config
	}
	if c.Toolset != nil {
		cfg.Tools = append(append([]*genai.Tool(nil), cfg.Tools...), c.Toolset.Tools()...)
	}
	return &cfg
}

// modelTurn returns the content of the first candidate, or an error saying
// why the model gave none.
func modelTurn(resp *genai.GenerateContentResponse) (*genai.Content, error) {
	if resp == nil || len(resp.Candidates) == 0 {
		if resp != nil && resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
			return nil, fmt.Errorf("the prompt was blocked (%s)", resp.PromptFeedback.BlockReason)
		}
		return nil, errors.New("the model returned no candidate")
	}
	cand := resp.Candidates[0]
	if cand == nil {
		return nil, errors.New("the model returned a null candidate")
	}
	if cand.Content != nil && slices.Contains(cand.Content.Parts, nil) {
		// A null part carries nothing, and kept in the history it would
		// make the SDK fail every later request.
		cand.Content.Parts = slices.DeleteFunc(cand.Content.Parts, func(p *genai.Part) bool { return p == nil })
	}
	if cand.Content == nil || len(cand.Content.Parts) == 0 {
		reason := string(cand.FinishReason)
		if cand.FinishMessage != "" {
			reason += ": " + cand.FinishMessage
		}
		if reason == "" {
			reason = "no reason given"
		}
		return nil, fmt.Errorf("the model returned an empty turn (%s)", reason)
	}
	turn := cand.Content
	if turn.Role == "" {
		turn.Role = genai.RoleModel
	}
	return turn, nil
}

func functionCalls(turn *genai.Content) []*genai.FunctionCall {
	var calls []*genai.FunctionCall
	for _, p := range turn.Parts {
		if p != nil && p.FunctionCall != nil {
			calls = append(calls, p.FunctionCall)
		}
	}
	return calls
}

// turnText joins the text parts of a turn that are not thoughts.
func turnText(turn *genai.Content) string {
	var b strings.Builder
	for _, p := range turn.Parts {
		if p != nil && p.Text != "" && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
