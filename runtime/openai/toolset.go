package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
)

// A Toolset offers MCP tools to an OpenAI model and runs the tool calls the
// model makes. It is safe for concurrent use.
type Toolset struct {
	defs  []shared.FunctionDefinitionParam
	index map[string]int // declared name → index in defs
	tools *provider.Tools
	// search is the deferred mode's option; nil when every tool is
	// declared.
	search *runtime.ToolSearch
	// strict holds, by declared name, the server's schema of each tool
	// declared in strict mode, kept to undo strict mode's nulls.
	strict map[string]*jsontree.Node
}

// NewToolset returns a Toolset that declares tools (see
// FunctionDefinitions) and calls them through caller. More tools than
// MaxTools is a *runtime.TooManyToolsError: pass a subset, such as
// runtime.ToolFilter.Select picks, or set opts.Search to declare only a
// few and let the model search for the others.
//
// In deferred mode (opts.Search set) the limit applies to what one request
// declares at most: the pinned tools, MaxFound found ones and the search
// function. A pin pattern that matches no tool is an error. The toolset
// then remembers what the model found: use one toolset per conversation,
// or call ResetFound between conversations.
func NewToolset(caller runtime.Caller, tools []runtime.Tool, opts *Options) (*Toolset, error) {
	if caller == nil {
		return nil, errors.New("openai toolset: caller is nil")
	}
	var search *runtime.ToolSearch
	if opts != nil && opts.Search != nil {
		s := *opts.Search
		search = &s
	}
	if search == nil {
		if err := checkToolCount(len(tools)); err != nil {
			return nil, err
		}
	}
	defs, names, strict, err := definitions(tools, opts)
	if err != nil {
		return nil, err
	}
	ts := &Toolset{defs: defs, index: make(map[string]int, len(defs)), tools: provider.NewTools(caller, tools, names), strict: map[string]*jsontree.Node{}}
	for i, d := range defs {
		ts.index[d.Name] = i
	}
	if search != nil {
		if err := ts.deferTools(search); err != nil {
			return nil, err
		}
	}
	for i, t := range tools {
		if !strict[i] || strings.TrimSpace(string(t.InputSchema)) == "" {
			continue
		}
		if doc, err := jsontree.ParseUnique(t.InputSchema); err == nil {
			ts.strict[defs[i].Name] = doc
		}
	}
	return ts, nil
}

// Definitions returns the function definitions of every tool, in the order
// of the tools the Toolset was built from, deferred ones included.
func (ts *Toolset) Definitions() []shared.FunctionDefinitionParam { return ts.defs }

// Tools returns the definitions to send with the next request, in the form
// ChatCompletionNewParams.Tools takes: every tool, or in deferred mode the
// pinned tools, the tools found so far and the search function, computed
// anew on each call. Chat Completions has no search of its own: with
// ToolSearch.Native set, Tools declares mcpgen's search function all the
// same, and Chat refuses the toolset.
func (ts *Toolset) Tools() []openai.ChatCompletionToolUnionParam {
	defs := ts.requestDefinitions()
	out := make([]openai.ChatCompletionToolUnionParam, len(defs))
	for i, d := range defs {
		out[i] = openai.ChatCompletionFunctionTool(d)
	}
	return out
}

// MCPName returns the MCP tool name behind a declared function name.
func (ts *Toolset) MCPName(declared string) (string, bool) { return ts.tools.MCPName(declared) }

// Handle runs one tool call and returns the tool message that answers it.
// It never fails: an unknown function, arguments that break the tool's
// schema (the tool is then not called), a failed call and a result with
// isError set all give a message starting with "Error: " that the model can
// act on. Text blocks are joined; structured content is sent as JSON text
// when the result has no text; other content gets a short placeholder.
//
// A call that needs the user's consent (see SetConfirmation) and does not
// get it is not run, and its message says the user declined. Once ctx is
// cancelled, no call starts: the message says the call was not run.
//
// In deferred mode, a call of the search function is answered by the
// toolset itself, without reaching the server: it lists the tools found,
// which are declared from the next request on.
func (ts *Toolset) Handle(ctx context.Context, call openai.ChatCompletionMessageToolCallUnion) openai.ChatCompletionMessageParamUnion {
	return openai.ToolMessage(ts.result(ctx, call), call.ID)
}

func (ts *Toolset) result(ctx context.Context, call openai.ChatCompletionMessageToolCallUnion) string {
	if call.Type != "" && call.Type != "function" {
		return fmt.Sprintf("Error: tool calls of type %q are not supported", call.Type)
	}
	return ts.run(ctx, call.Function.Name, call.Function.Arguments)
}

// run runs a call of the function declared as name with the arguments the
// model sent, and returns the text that answers it.
func (ts *Toolset) run(ctx context.Context, name, arguments string) string {
	if ts.search != nil && name == provider.SearchFunction {
		text, err := ts.tools.HandleSearch([]byte(arguments))
		if err != nil {
			return "Error: " + err.Error()
		}
		return text
	}
	return ts.call(ctx, name, arguments)
}

// call runs a call of the server tool declared as name, as run does.
func (ts *Toolset) call(ctx context.Context, name, arguments string) string {
	e, ok := ts.tools.Lookup(name)
	if !ok {
		return "Error: " + ts.tools.Unknown("function", name)
	}
	args := []byte(arguments)
	if doc := ts.strict[name]; doc != nil {
		args = provschema.StripAddedNulls(doc, args)
	}
	out := ts.tools.Run(ctx, e, args, nil)
	if out.Error != "" {
		return "Error: " + out.Error
	}
	if strings.TrimSpace(out.Text) == "" && out.Structured != nil {
		return string(out.Structured)
	}
	return out.Text
}

// HandleAll runs the tool calls of one model turn concurrently, at most 16
// at once, and returns their tool messages in the same order. Each call is
// handled as Handle does; confirmations are asked one at a time.
func (ts *Toolset) HandleAll(ctx context.Context, calls []openai.ChatCompletionMessageToolCallUnion) []openai.ChatCompletionMessageParamUnion {
	return provider.HandleAll(ctx, calls, ts.Handle)
}
