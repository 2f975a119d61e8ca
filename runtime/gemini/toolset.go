package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
//
// In deferred mode (DeclarationOptions.Search) a Toolset remembers the tools
// the model found, which are declared on every later request: use one
// Toolset per conversation, or call ResetFound between conversations.
type Toolset struct {
	decls  []*genai.FunctionDeclaration // every tool's, in the order of the tools
	byName map[string]*genai.FunctionDeclaration
	search *genai.FunctionDeclaration // nil unless deferred
	tools  *provider.Tools
}

// NewToolset returns a Toolset that declares tools to Gemini (see
// Declarations for how, and for the errors) and calls them through caller.
// More tools than MaxFunctionDeclarations is a *runtime.TooManyToolsError:
// pass a subset, such as runtime.ToolFilter.Select picks, or set
// opts.Search, and the limit applies to what one request declares: the
// pinned tools, the most found ones (MaxFound) and the search function.
func NewToolset(caller runtime.Caller, tools []runtime.Tool, opts *DeclarationOptions) (*Toolset, error) {
	if caller == nil {
		return nil, errors.New("gemini toolset: caller is nil")
	}
	var search *runtime.ToolSearch
	if opts != nil {
		search = opts.Search
	}
	if search == nil {
		if err := checkDeclarationCount(len(tools)); err != nil {
			return nil, err
		}
	}
	decls, names, err := Declarations(tools, opts)
	if err != nil {
		return nil, err
	}
	ts := &Toolset{decls: decls, tools: provider.NewTools(caller, tools, names)}
	if search == nil {
		return ts, nil
	}
	if err := ts.tools.Defer(search, provider.OwnSearch); err != nil {
		return nil, fmt.Errorf("gemini toolset: %w", err)
	}
	if n := ts.tools.MaxDeclared() + 1; n > MaxFunctionDeclarations {
		return nil, &runtime.TooManyToolsError{Provider: "gemini", Tools: n, Limit: MaxFunctionDeclarations, Source: limitSource, Deferred: true}
	}
	ts.byName = make(map[string]*genai.FunctionDeclaration, len(decls))
	for _, d := range decls {
		ts.byName[d.Name] = d
	}
	ts.search = searchDeclaration(opts.JSONSchema)
	return ts, nil
}

// searchDeclaration returns the declaration of the search function of a
// Toolset in deferred mode, its parameters in the form the others use.
func searchDeclaration(jsonSchema bool) *genai.FunctionDeclaration {
	d := &genai.FunctionDeclaration{Name: provider.SearchFunction, Description: provider.SearchDescription}
	if jsonSchema {
		d.ParametersJsonSchema = provider.SearchParameters
		return d
	}
	d.Parameters = &genai.Schema{
		Type:       genai.TypeObject,
		Properties: map[string]*genai.Schema{"query": {Type: genai.TypeString, Description: provider.SearchQueryDescription}},
		Required:   []string{"query"},
	}
	return d
}

// Tools returns the tools to put in genai.GenerateContentConfig.Tools: one
// genai.Tool holding the function declarations of the next request (see
// Declarations). It returns nil when there are none.
func (ts *Toolset) Tools() []*genai.Tool {
	decls := ts.Declarations()
	if len(decls) == 0 {
		return nil
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}
}

// Declarations returns the function declarations of the next request. They
// are every tool's, in the order of the tools the Toolset was built from;
// in deferred mode they are the pinned tools', in that order, then the
// found tools', least recently found first, then the search function's, and
// they change as the model finds tools: ask again for every request.
func (ts *Toolset) Declarations() []*genai.FunctionDeclaration {
	if ts.search == nil {
		return ts.decls
	}
	names := ts.tools.Declared()
	decls := make([]*genai.FunctionDeclaration, 0, len(names)+1)
	for _, n := range names {
		decls = append(decls, ts.byName[n])
	}
	return append(decls, ts.search)
}

// Found returns the MCP names of the tools found so far that are still
// declared, in the order they were found; nil unless the Toolset is in
// deferred mode.
func (ts *Toolset) Found() []string { return ts.tools.FoundTools() }

// ResetFound forgets the tools found so far, so that the next request
// declares only the pinned tools and the search function again.
func (ts *Toolset) ResetFound() { ts.tools.ResetFound() }

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
//   - In deferred mode, a call of the search function is answered by the
//     Toolset: the response's "output" lists the tools found, which are
//     declared from the next request on. Nothing reaches the server. A
//     call of a deferred tool not found yet is run like any other, and
//     the tool is found from then on.
//   - Arguments that break the tool's input schema get an error naming the
//     JSON pointer and the reason, and the tool is not called.
//   - A tool result's text blocks are joined into "output"; structured
//     content, when present, is the "output" instead. Images of the types
//     Gemini takes in a function response (PNG, JPEG, WebP) are attached
//     as FunctionResponse parts, and described in the text with a short
//     placeholder, like every other kind of content. Gemini documents such
//     parts for Gemini 3 models, and earlier ones refuse the request that
//     holds one: Chat and Live have Handle attach images only for a model
//     of Gemini 3 or later (see TakesImages), and describe them as not
//     shown otherwise.
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
	if ts.search != nil && call.Name == provider.SearchFunction {
		resp.Response = ts.handleSearch(call)
		return resp
	}
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
	attach := isImage
	if take, ok := ctx.Value(imagesKey{}).(bool); ok && !take {
		attach = nil
	}
	out := ts.tools.Run(ctx, e, args, attach)
	if out.Error != "" {
		resp.Response = map[string]any{"error": out.Error}
		return resp
	}
	var output any = out.Text
	if out.Structured != nil {
		var v any
		if err := json.Unmarshal(out.Structured, &v); err == nil {
			output = v
		} else if strings.TrimSpace(out.Text) == "" {
			// A number beyond a float64 (1e400) does not decode: the
			// model reads the JSON text, as Claude and OpenAI do.
			output = string(out.Structured)
		}
	}
	resp.Response = map[string]any{"output": output}
	for _, img := range out.Images {
		resp.Parts = append(resp.Parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: img.MIMEType, Data: img.Data}})
	}
	return resp
}

// handleSearch answers a call of the search function.
func (ts *Toolset) handleSearch(call *genai.FunctionCall) map[string]any {
	args, err := json.Marshal(call.Args)
	if err != nil {
		return map[string]any{"error": fmt.Sprintf("arguments of %s do not encode as JSON: %v", call.Name, err)}
	}
	text, err := ts.tools.HandleSearch(args)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return map[string]any{"output": text}
	}
	return map[string]any{"output": v}
}

// HandleAll runs the function calls of one model turn concurrently, at
// most 16 at once, and returns their responses in the order of calls. Each
// call is handled as Handle does; confirmations are asked one at a time.
func (ts *Toolset) HandleAll(ctx context.Context, calls []*genai.FunctionCall) []*genai.FunctionResponse {
	return provider.HandleAll(ctx, calls, ts.Handle)
}

// isImage reports whether a MIME type is an image type Gemini takes as a
// function response part: PNG, JPEG or WebP
// (https://ai.google.dev/gemini-api/docs/function-calling#multimodal). The
// API refuses a request that holds an image of any other type, such as
// image/gif or image/svg+xml, and a chat whose history held one could not
// send it again; such images are described in the text instead.
func isImage(mimeType string) bool {
	switch mimeType {
	case "image/png", "image/jpeg", "image/webp":
		return true
	}
	return false
}

// imagesKey marks a context whose value says whether Handle attaches
// images, for the model Chat or Live runs the calls for.
type imagesKey struct{}

// withImagesFor returns ctx telling Handle whether to attach images: only
// when model takes them.
func withImagesFor(ctx context.Context, model string) context.Context {
	return context.WithValue(ctx, imagesKey{}, TakesImages(model))
}

// TakesImages reports whether the model named model takes images in a
// function response: a Gemini model of version 3 or later
// (https://ai.google.dev/gemini-api/docs/function-calling#multimodal),
// such as "gemini-3-flash-preview" or "models/gemini-3.1-pro". Gemini 2.x
// and 1.x models refuse a request that holds one ("function_response.parts
// is not supported for this model"). A name it cannot read, such as an
// alias like "gemini-flash-latest" or a tuned model, counts as not taking
// them.
func TakesImages(model string) bool {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	rest, ok := strings.CutPrefix(model, "gemini-")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "live-")
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || n > 2 || n < len(rest) && rest[n] != '.' && rest[n] != '-' {
		return false
	}
	major, _ := strconv.Atoi(rest[:n])
	return major >= 3
}
