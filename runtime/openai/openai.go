// Package openai connects MCP tools to OpenAI's Chat Completions API through
// the official SDK, github.com/openai/openai-go/v3.
//
// FunctionDefinitions declares MCP tools as function definitions that follow
// the API's rules, optionally in strict mode. A Toolset pairs them with a
// runtime.Caller and turns the model's tool calls into validated MCP tool
// calls, and the results into tool messages.
//
// Code that does not import this package does not depend on the SDK.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// ValidName reports whether the OpenAI API accepts name as a function name as it
// is. Other names are rewritten: each disallowed character (such as the dot
// in light.turn_on) becomes '_', and a name that is too long, or taken, ends
// in '_' and six hex digits of a hash of the MCP name.
func ValidName(name string) bool { return toolname.OpenAI.Valid(name) }

// Options tune FunctionDefinitions. A nil *Options means the zero value.
type Options struct {
	// Strict declares each tool in strict mode when its schema allows it:
	// every object closed (additionalProperties false) with all its
	// properties required, optional properties made nullable, oneOf turned
	// into anyOf, and keywords strict mode rejects moved into descriptions.
	// A tool whose schema strict mode cannot express (a free-form object, a
	// value of any type, allOf below the top level, a tuple) is declared
	// with Strict set to false instead. The handler removes the nulls a
	// strict model sends for properties it leaves out.
	Strict bool
}

// FunctionDefinitions returns one function definition per MCP tool, in the
// order of tools, and a map from each declared name to the MCP tool name.
//
// Names the API rejects are rewritten (see ValidName). The parameters are
// the server's schema, except at the top level, which must be a plain
// object: a top-level $ref is inlined, allOf branches are merged, and an
// anyOf or oneOf moves into the description (the handler still validates
// against the server's schema). An empty description becomes the title, or
// a sentence made from the name.
func FunctionDefinitions(tools []runtime.Tool, opts *Options) ([]shared.FunctionDefinitionParam, map[string]string, error) {
	defs, names, _, err := definitions(tools, opts)
	return defs, names, err
}

func definitions(tools []runtime.Tool, opts *Options) ([]shared.FunctionDefinitionParam, map[string]string, []bool, error) {
	if opts == nil {
		opts = &Options{}
	}
	decls, reverse, err := provschema.Declare("OpenAI", tools, toolname.OpenAI)
	if err != nil {
		return nil, nil, nil, err
	}
	defs := make([]shared.FunctionDefinitionParam, len(decls))
	strict := make([]bool, len(decls))
	for i, decl := range decls {
		d := shared.FunctionDefinitionParam{Name: decl.Name, Description: openai.String(decl.Description)}
		params := decl.Root
		if opts.Strict {
			if s, reason := provschema.Strict(decl.Root); reason == "" {
				params, strict[i] = s, true
				d.Strict = openai.Bool(true)
			} else {
				d.Strict = openai.Bool(false)
			}
		}
		d.Parameters = parameters(params)
		defs[i] = d
	}
	return defs, reverse, strict, nil
}

// parameters turns a schema object into FunctionParameters whose values
// are raw JSON, so that nested key order survives encoding.
func parameters(n *jsontree.Node) shared.FunctionParameters {
	p := make(shared.FunctionParameters, len(n.Members))
	for _, m := range n.Members {
		p[m.Key] = json.RawMessage(m.Value.String())
	}
	return p
}

// A Toolset offers MCP tools to an OpenAI model and runs the tool calls the
// model makes. It is safe for concurrent use.
type Toolset struct {
	caller  runtime.Caller
	defs    []shared.FunctionDefinitionParam
	byName  map[string]*entry   // by declared name
	confirm *toolcall.Confirmer // nil when no call needs consent
}

type entry struct {
	mcpName string
	tool    runtime.Tool
	schema  *runtime.Schema
	// doc is the server's schema, kept to undo strict mode's nulls.
	doc    *jsontree.Node
	strict bool
}

// NewToolset returns a Toolset that declares tools (see
// FunctionDefinitions) and calls them through caller. More tools than
// MaxTools is a *runtime.TooManyToolsError: pass a subset, such as
// runtime.ToolFilter.Select picks.
func NewToolset(caller runtime.Caller, tools []runtime.Tool, opts *Options) (*Toolset, error) {
	if caller == nil {
		return nil, errors.New("openai toolset: caller is nil")
	}
	if err := checkToolCount(len(tools)); err != nil {
		return nil, err
	}
	defs, _, strict, err := definitions(tools, opts)
	if err != nil {
		return nil, err
	}
	ts := &Toolset{caller: caller, defs: defs, byName: make(map[string]*entry, len(tools))}
	for i, t := range tools {
		e := &entry{mcpName: t.Name, tool: t, strict: strict[i]}
		if raw := strings.TrimSpace(string(t.InputSchema)); raw != "" {
			e.schema = runtime.NewSchema(t.Name, t.InputSchema)
			if e.strict {
				if doc, err := jsontree.ParseUnique(t.InputSchema); err == nil {
					e.doc = doc
				}
			}
		}
		ts.byName[defs[i].Name] = e
	}
	return ts, nil
}

// Definitions returns the function definitions, in the order of the tools
// the Toolset was built from.
func (ts *Toolset) Definitions() []shared.FunctionDefinitionParam { return ts.defs }

// Tools returns the definitions in the form ChatCompletionNewParams.Tools
// takes.
func (ts *Toolset) Tools() []openai.ChatCompletionToolUnionParam {
	out := make([]openai.ChatCompletionToolUnionParam, len(ts.defs))
	for i, d := range ts.defs {
		out[i] = openai.ChatCompletionFunctionTool(d)
	}
	return out
}

// MCPName returns the MCP tool name behind a declared function name.
func (ts *Toolset) MCPName(declared string) (string, bool) {
	e, ok := ts.byName[declared]
	if !ok {
		return "", false
	}
	return e.mcpName, true
}

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
func (ts *Toolset) Handle(ctx context.Context, call openai.ChatCompletionMessageToolCallUnion) openai.ChatCompletionMessageParamUnion {
	return openai.ToolMessage(ts.result(ctx, call), call.ID)
}

func (ts *Toolset) result(ctx context.Context, call openai.ChatCompletionMessageToolCallUnion) string {
	if call.Type != "" && call.Type != "function" {
		return fmt.Sprintf("Error: tool calls of type %q are not supported", call.Type)
	}
	name := call.Function.Name
	e, ok := ts.byName[name]
	if !ok {
		return "Error: " + toolcall.UnknownTool("function", name, ts.names())
	}
	args := []byte(call.Function.Arguments)
	if e.strict && e.doc != nil {
		args = provschema.StripAddedNulls(e.doc, args)
	}
	out := toolcall.Run(ctx, ts.caller, e.mcpName, e.schema, args, nil, ts.confirm.Gate(e.tool))
	if out.Error != "" {
		return "Error: " + out.Error
	}
	if strings.TrimSpace(out.Text) == "" && out.Structured != nil {
		return string(out.Structured)
	}
	return out.Text
}

// HandleAll runs the tool calls of one model turn concurrently and returns
// their tool messages in the same order. Each call is handled as Handle
// does; confirmations are asked one at a time.
func (ts *Toolset) HandleAll(ctx context.Context, calls []openai.ChatCompletionMessageToolCallUnion) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = ts.Handle(ctx, c)
		}()
	}
	wg.Wait()
	return out
}

func (ts *Toolset) names() []string {
	names := make([]string, 0, len(ts.byName))
	for n := range ts.byName {
		names = append(names, n)
	}
	return names
}
