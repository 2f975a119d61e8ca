package anthropic

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
	"github.com/mcpgen/mcpgen/runtime/internal/toolcall"
)

// A Toolset offers MCP tools to a Claude model and runs the tool_use blocks
// the model sends. It is safe for concurrent use.
type Toolset struct {
	params []anthropic.ToolParam
	byName map[string]int // declared name → index in params
	tools  *provider.Tools
	native bool            // deferred mode with Claude's own tool search
	pinned map[string]bool // declared names of the pinned tools, in deferred mode
}

// Options are the settings of a Toolset. The zero value, like a nil
// *Options, declares every tool on every request.
type Options struct {
	// Search, when set, puts the toolset in deferred mode (see
	// runtime.ToolSearch): Tools declares the pinned tools, and the model
	// finds the others by searching. With Search.Native the search is
	// Claude's tool search tool (its BM25 variant): every tool is sent,
	// the deferred ones with defer_loading, and only those the search
	// returns enter the model's context. Without it the toolset declares
	// a search function of its own, search_tools, and adds the tools it
	// finds to the next request. Either way, calls of found tools are
	// checked, confirmed and run as calls of pinned tools are.
	//
	// A toolset in deferred mode remembers what was found: use one per
	// conversation.
	Search *runtime.ToolSearch
}

// NewToolset returns a Toolset that declares tools (see ToolParams) and
// calls them through caller; opts may be nil. In deferred mode (see
// Options.Search) it fails on a pinned pattern that matches none of the
// tools.
func NewToolset(caller runtime.Caller, tools []runtime.Tool, opts *Options) (*Toolset, error) {
	if caller == nil {
		return nil, errors.New("anthropic toolset: caller is nil")
	}
	params, names, err := ToolParams(tools)
	if err != nil {
		return nil, err
	}
	ts := &Toolset{params: params, tools: provider.NewTools(caller, tools, names), byName: make(map[string]int, len(params))}
	for i, p := range params {
		ts.byName[p.Name] = i
	}
	if opts != nil && opts.Search != nil {
		ts.native = opts.Search.Native
		search := provider.OwnSearch
		if ts.native {
			search = provider.Searcher{Name: nativeSearchName, What: "Claude's tool search tool", Native: true}
		}
		if err := ts.tools.Defer(opts.Search, search); err != nil {
			return nil, fmt.Errorf("anthropic toolset: %w", err)
		}
		// Nothing is found yet: the declared tools are the pinned ones.
		ts.pinned = map[string]bool{}
		for _, n := range ts.tools.Declared() {
			ts.pinned[n] = true
		}
	}
	return ts, nil
}

// ToolParams returns the declarations of every tool, in the order of the
// tools the Toolset was built from. In deferred mode a request declares
// only some of them: send Tools.
func (ts *Toolset) ToolParams() []anthropic.ToolParam { return ts.params }

// Tools returns the declarations of the next request in the form
// MessageNewParams.Tools takes: every tool, or in deferred mode the pinned
// tools, the search tool and the tools found so far (see Options.Search).
// Chat asks for them anew before each request.
func (ts *Toolset) Tools() []anthropic.ToolUnionParam {
	if ts.tools.Deferred() {
		return ts.deferredTools()
	}
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
// result has no text; images Claude accepts are attached. A result with
// neither text nor images gives a tool_result without content, since the
// API refuses an empty text block.
//
// A call that needs the user's consent (see SetConfirmation) and does not
// get it is not run, and its result says the user declined. Once ctx is
// cancelled, no call starts: the result says the call was not run. Nor
// does a block without an id, which the model's result could not be
// matched to.
func (ts *Toolset) Handle(ctx context.Context, block anthropic.ToolUseBlock) anthropic.ToolResultBlockParam {
	res := anthropic.ToolResultBlockParam{ToolUseID: block.ID}
	if block.ID == "" {
		// A result without an id would answer no call in particular.
		return withError(res, toolcall.NotRun(block.Name, "the tool_use block has no id"))
	}
	if ts.ownSearch() && block.Name == provider.SearchFunction {
		return ts.handleSearch(res, block)
	}
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
	// The API refuses a blank text block: a result without text has none,
	// and no content at all when it has no image either.
	if strings.TrimSpace(text) != "" {
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

// HandleAll runs the tool_use blocks of one model turn concurrently, at
// most 16 at once, and returns their tool_result blocks in the same order,
// ready for anthropic.NewUserMessage. Each block is handled as Handle does;
// confirmations are asked one at a time.
func (ts *Toolset) HandleAll(ctx context.Context, blocks []anthropic.ToolUseBlock) []anthropic.ContentBlockParamUnion {
	return provider.HandleAll(ctx, blocks, ts.handleBlock)
}

// handleBlock handles one tool_use block as Handle does, and returns its
// tool_result block.
func (ts *Toolset) handleBlock(ctx context.Context, b anthropic.ToolUseBlock) anthropic.ContentBlockParamUnion {
	r := ts.Handle(ctx, b)
	return anthropic.ContentBlockParamUnion{OfToolResult: &r}
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
