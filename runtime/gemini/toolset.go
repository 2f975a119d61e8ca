package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
)

// A Toolset offers MCP tools to a Gemini model and runs the function calls
// the model makes.
//
// It is built from a runtime.Caller and the tools to offer: a generated
// package's MCPTools(), or a live session's tool list. It is safe for
// concurrent use.
type Toolset struct {
	decls []*genai.FunctionDeclaration
	tools *provider.Tools
}

// NewToolset returns a Toolset that declares tools to Gemini (see
// Declarations for how, and for the errors) and calls them through caller.
// More tools than MaxFunctionDeclarations is a *runtime.TooManyToolsError:
// pass a subset, such as runtime.ToolFilter.Select picks.
func NewToolset(caller runtime.Caller, tools []runtime.Tool, opts *DeclarationOptions) (*Toolset, error) {
	if caller == nil {
		return nil, errors.New("gemini toolset: caller is nil")
	}
	if err := checkDeclarationCount(len(tools)); err != nil {
		return nil, err
	}
	decls, names, err := Declarations(tools, opts)
	if err != nil {
		return nil, err
	}
	return &Toolset{decls: decls, tools: provider.NewTools(caller, tools, names)}, nil
}

// Tools returns the tools to put in genai.GenerateContentConfig.Tools: one
// genai.Tool holding every function declaration. It returns nil when the
// toolset is empty.
func (ts *Toolset) Tools() []*genai.Tool {
	if len(ts.decls) == 0 {
		return nil
	}
	return []*genai.Tool{{FunctionDeclarations: ts.decls}}
}

// Declarations returns the function declarations, in the order of the tools
// the Toolset was built from.
func (ts *Toolset) Declarations() []*genai.FunctionDeclaration { return ts.decls }

// MCPName returns the MCP tool name behind a declared function name.
func (ts *Toolset) MCPName(declared string) (string, bool) { return ts.tools.MCPName(declared) }

// DeclaredName returns the function name a tool is declared under.
func (ts *Toolset) DeclaredName(mcpName string) (string, bool) {
	return ts.tools.DeclaredName(mcpName)
}

// Handle runs one function call and returns the response to send back to
// the model. It never fails: every problem becomes a response whose
// "error" the model can read and act on.
//
//   - An unknown function name gets an error listing the known ones.
//   - Arguments that break the tool's input schema get an error naming the
//     JSON pointer and the reason, and the tool is not called.
//   - A tool result's text blocks are joined into "output"; structured
//     content, when present, is the "output" instead. Images are attached
//     as FunctionResponse parts, and described in the text with a short
//     placeholder, like every other kind of content.
//   - A result with isError set, and an error from the caller, go into
//     "error".
//   - A panic in the caller becomes an error.
//   - A call that needs the user's consent (see SetConfirmation) and does
//     not get it is not run, and gets an error saying the user declined.
//   - Once ctx is cancelled, no call starts: the response says the call
//     was not run.
//
// The response carries the call's ID and name.
func (ts *Toolset) Handle(ctx context.Context, call *genai.FunctionCall) *genai.FunctionResponse {
	if call == nil {
		return &genai.FunctionResponse{Response: map[string]any{"error": "empty function call"}}
	}
	resp := &genai.FunctionResponse{ID: call.ID, Name: call.Name}
	e, ok := ts.tools.Lookup(call.Name)
	if !ok {
		resp.Response = map[string]any{"error": ts.tools.Unknown("function", call.Name)}
		return resp
	}
	var args []byte
	if call.Args != nil {
		b, err := json.Marshal(call.Args)
		if err != nil {
			resp.Response = map[string]any{"error": fmt.Sprintf("arguments of %s do not encode as JSON: %v", call.Name, err)}
			return resp
		}
		args = b
	}
	out := ts.tools.Run(ctx, e, args, isImage)
	if out.Error != "" {
		resp.Response = map[string]any{"error": out.Error}
		return resp
	}
	var output any = out.Text
	if out.Structured != nil {
		var v any
		if err := json.Unmarshal(out.Structured, &v); err == nil {
			output = v
		}
	}
	resp.Response = map[string]any{"output": output}
	for _, img := range out.Images {
		resp.Parts = append(resp.Parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: img.MIMEType, Data: img.Data}})
	}
	return resp
}

// HandleAll runs the function calls of one model turn concurrently and
// returns their responses in the order of calls. Each call is handled as
// Handle does; confirmations are asked one at a time.
func (ts *Toolset) HandleAll(ctx context.Context, calls []*genai.FunctionCall) []*genai.FunctionResponse {
	return provider.HandleAll(ctx, calls, ts.Handle)
}

// isImage reports whether a MIME type is an image type, which Gemini takes
// as a function response part.
func isImage(mimeType string) bool { return strings.HasPrefix(mimeType, "image/") }
