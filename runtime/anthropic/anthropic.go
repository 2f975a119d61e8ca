// Package anthropic connects MCP tools to Anthropic's Messages API through
// the official SDK, github.com/anthropics/anthropic-sdk-go.
//
// ToolParams declares MCP tools as anthropic.ToolParam values that follow
// the API's rules. A Toolset pairs them with a runtime.Caller and turns the
// model's tool_use blocks into validated MCP tool calls, and the results into
// tool_result blocks.
//
// Code that does not import this package does not depend on the SDK.
package anthropic

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// ValidName reports whether the Anthropic API accepts name as a tool name as it
// is. Other names are rewritten: each disallowed character (such as the dot
// in light.turn_on) becomes '_', and a name that is too long, or taken, ends
// in '_' and six hex digits of a hash of the MCP name.
func ValidName(name string) bool { return toolname.Anthropic.Valid(name) }

// ToolParams returns one tool declaration per MCP tool, in the order of
// tools, and a map from each declared name to the MCP tool name.
//
// Names the API rejects are rewritten (see ValidName). The input schema is
// the server's, except at its top level, where the API takes no anyOf, oneOf
// or allOf: a top-level $ref is inlined, allOf branches are merged, and an
// anyOf or oneOf moves into the description (the handler still validates
// against the server's schema). An empty description becomes the title, or
// a sentence made from the name.
func ToolParams(tools []runtime.Tool) ([]anthropic.ToolParam, map[string]string, error) {
	decls, reverse, err := provschema.Declare("Anthropic", tools, toolname.Anthropic)
	if err != nil {
		return nil, nil, err
	}
	params := make([]anthropic.ToolParam, len(decls))
	for i, d := range decls {
		schema, err := inputSchema(d.Root)
		if err != nil {
			return nil, nil, fmt.Errorf("declaring %s for Anthropic: %w", tools[i].Name, err)
		}
		params[i] = anthropic.ToolParam{
			Name:        d.Name,
			Description: anthropic.String(d.Description),
			InputSchema: schema,
		}
	}
	return params, reverse, nil
}

// A Toolset offers MCP tools to a Claude model and runs the tool_use blocks
// the model sends. It is safe for concurrent use.
type Toolset struct {
	caller  runtime.Caller
	params  []anthropic.ToolParam
	byName  map[string]*entry   // by declared name
	confirm *toolcall.Confirmer // nil when no call needs consent
}

type entry struct {
	mcpName string
	schema  *runtime.Schema
	tool    runtime.Tool
}

// NewToolset returns a Toolset that declares tools (see ToolParams) and
// calls them through caller.
func NewToolset(caller runtime.Caller, tools []runtime.Tool) (*Toolset, error) {
	if caller == nil {
		return nil, errors.New("anthropic toolset: caller is nil")
	}
	params, names, err := ToolParams(tools)
	if err != nil {
		return nil, err
	}
	ts := &Toolset{caller: caller, params: params, byName: make(map[string]*entry, len(tools))}
	byMCP := make(map[string]runtime.Tool, len(tools))
	for _, t := range tools {
		byMCP[t.Name] = t
	}
	for declared, mcpName := range names {
		e := &entry{mcpName: mcpName, tool: byMCP[mcpName]}
		if raw := byMCP[mcpName].InputSchema; len(strings.TrimSpace(string(raw))) > 0 {
			e.schema = runtime.NewSchema(mcpName, raw)
		}
		ts.byName[declared] = e
	}
	return ts, nil
}

// ToolParams returns the tool declarations, in the order of the tools the
// Toolset was built from.
func (ts *Toolset) ToolParams() []anthropic.ToolParam { return ts.params }

// Tools returns the declarations in the form MessageNewParams.Tools takes.
func (ts *Toolset) Tools() []anthropic.ToolUnionParam {
	out := make([]anthropic.ToolUnionParam, len(ts.params))
	for i := range ts.params {
		out[i] = anthropic.ToolUnionParam{OfTool: &ts.params[i]}
	}
	return out
}

// MCPName returns the MCP tool name behind a declared tool name.
func (ts *Toolset) MCPName(declared string) (string, bool) {
	e, ok := ts.byName[declared]
	if !ok {
		return "", false
	}
	return e.mcpName, true
}

// Handle runs one tool_use block and returns its tool_result block. It never
// fails: an unknown tool, arguments that break the tool's schema (the tool
// is then not called), a failed call and a result with isError set all give
// a result with is_error set and a message the model can act on. Text
// blocks are joined; structured content is sent as JSON text when the
// result has no text; images Claude accepts are attached.
//
// A call that needs the user's consent (see SetConfirmation) and does not
// get it is not run, and its result says the user declined. Once ctx is
// cancelled, no call starts: the result says the call was not run.
func (ts *Toolset) Handle(ctx context.Context, block anthropic.ToolUseBlock) anthropic.ToolResultBlockParam {
	res := anthropic.ToolResultBlockParam{ToolUseID: block.ID}
	e, ok := ts.byName[block.Name]
	if !ok {
		return withError(res, toolcall.UnknownTool("tool", block.Name, ts.names()))
	}
	out := toolcall.Run(ctx, ts.caller, e.mcpName, e.schema, block.Input, acceptedImage, ts.confirm.Gate(e.tool))
	if out.Error != "" {
		return withError(res, out.Error)
	}
	text := out.Text
	if strings.TrimSpace(text) == "" && out.Structured != nil {
		text = string(out.Structured)
	}
	if text != "" || len(out.Images) == 0 {
		res.Content = append(res.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: text}})
	}
	for _, img := range out.Images {
		res.Content = append(res.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
			Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
				Data:      base64.StdEncoding.EncodeToString(img.Data),
				MediaType: anthropic.Base64ImageSourceMediaType(img.MIMEType),
			}},
		}})
	}
	return res
}

// HandleAll runs the tool_use blocks of one model turn concurrently and
// returns their tool_result blocks in the same order, ready for
// anthropic.NewUserMessage. Each block is handled as Handle does;
// confirmations are asked one at a time.
func (ts *Toolset) HandleAll(ctx context.Context, blocks []anthropic.ToolUseBlock) []anthropic.ContentBlockParamUnion {
	out := make([]anthropic.ContentBlockParamUnion, len(blocks))
	var wg sync.WaitGroup
	for i, b := range blocks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := ts.Handle(ctx, b)
			out[i] = anthropic.ContentBlockParamUnion{OfToolResult: &r}
		}()
	}
	wg.Wait()
	return out
}

// ToolUses returns the tool_use blocks of a model message, in order.
func ToolUses(msg *anthropic.Message) []anthropic.ToolUseBlock {
	if msg == nil {
		return nil
	}
	var out []anthropic.ToolUseBlock
	for _, c := range msg.Content {
		if c.Type == "tool_use" {
			out = append(out, c.AsToolUse())
		}
	}
	return out
}

func withError(res anthropic.ToolResultBlockParam, msg string) anthropic.ToolResultBlockParam {
	res.IsError = anthropic.Bool(true)
	res.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: msg}}}
	return res
}

func (ts *Toolset) names() []string {
	names := make([]string, 0, len(ts.byName))
	for n := range ts.byName {
		names = append(names, n)
	}
	return names
}

// acceptedImage reports whether Claude accepts an image of this MIME type.
func acceptedImage(mimeType string) bool {
	switch anthropic.Base64ImageSourceMediaType(mimeType) {
	case anthropic.Base64ImageSourceMediaTypeImageJPEG, anthropic.Base64ImageSourceMediaTypeImagePNG,
		anthropic.Base64ImageSourceMediaTypeImageGIF, anthropic.Base64ImageSourceMediaTypeImageWebP:
		return true
	}
	return false
}

// inputSchema returns root as the tool's input_schema with its exact bytes:
// "type", "properties" and "required" first, then the other keywords in the
// server's order. The SDK would marshal other keywords from a map, in a
// different order on every run, which breaks prompt caching (it needs
// byte-identical tool definitions) and golden tests.
func inputSchema(root *jsontree.Node) (anthropic.ToolInputSchemaParam, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object"`)
	if p := root.Get("properties"); p != nil {
		b.WriteString(`,"properties":`)
		b.WriteString(p.String())
	}
	if req := provschema.Required(root); len(req) > 0 {
		enc, err := json.Marshal(req)
		if err != nil {
			return anthropic.ToolInputSchemaParam{}, err
		}
		b.WriteString(`,"required":`)
		b.Write(enc)
	}
	for _, m := range root.Members {
		switch m.Key {
		case "type", "properties", "required":
			continue
		}
		key, err := json.Marshal(m.Key)
		if err != nil {
			return anthropic.ToolInputSchemaParam{}, err
		}
		b.WriteByte(',')
		b.Write(key)
		b.WriteByte(':')
		b.WriteString(m.Value.String())
	}
	b.WriteByte('}')
	return param.Override[anthropic.ToolInputSchemaParam](json.RawMessage(b.Bytes())), nil
}
