package anthropic

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
)

// A Toolset offers MCP tools to a Claude model and runs the tool_use blocks
// the model sends. It is safe for concurrent use.
type Toolset struct {
	params []anthropic.ToolParam
	tools  *provider.Tools
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
	return &Toolset{params: params, tools: provider.NewTools(caller, tools, names)}, nil
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
func (ts *Toolset) MCPName(declared string) (string, bool) { return ts.tools.MCPName(declared) }

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
	e, ok := ts.tools.Lookup(block.Name)
	if !ok {
		return withError(res, ts.tools.Unknown("tool", block.Name))
	}
	out := ts.tools.Run(ctx, e, block.Input, acceptedImage)
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
	return provider.HandleAll(ctx, blocks, func(ctx context.Context, b anthropic.ToolUseBlock) anthropic.ContentBlockParamUnion {
		r := ts.Handle(ctx, b)
		return anthropic.ContentBlockParamUnion{OfToolResult: &r}
	})
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

// acceptedImage reports whether Claude accepts an image of this MIME type.
func acceptedImage(mimeType string) bool {
	switch anthropic.Base64ImageSourceMediaType(mimeType) {
	case anthropic.Base64ImageSourceMediaTypeImageJPEG, anthropic.Base64ImageSourceMediaTypeImagePNG,
		anthropic.Base64ImageSourceMediaTypeImageGIF, anthropic.Base64ImageSourceMediaTypeImageWebP:
		return true
	}
	return false
}
