package gemini

import (
	"github.com/mcpgen/mcpgen/internal/geminidecl"
	"github.com/mcpgen/mcpgen/runtime"
)

// MaxFunctionDeclarations is the most function declarations one Gemini
// request may carry. The Google Gen AI Go SDK this package builds on
// documents it on genai.Tool.FunctionDeclarations as 512
// (https://pkg.go.dev/google.golang.org/genai@v1.77.0#Tool); the Gemini API
// reference (https://ai.google.dev/api/caching#Tool) names no number, and
// older Vertex AI references gave 64 and then 128. A Toolset puts all its
// declarations in one genai.Tool, so NewToolset refuses more than this.
const MaxFunctionDeclarations = geminidecl.MaxFunctionDeclarations

// limitSource is the documentation MaxFunctionDeclarations comes from.
const limitSource = "https://pkg.go.dev/google.golang.org/genai@v1.77.0#Tool"

// checkDeclarationCount fails with a *runtime.TooManyToolsError when n
// declarations are more than one request may carry.
func checkDeclarationCount(n int) error {
	if n > MaxFunctionDeclarations {
		return &runtime.TooManyToolsError{Provider: "gemini", Tools: n, Limit: MaxFunctionDeclarations, Source: limitSource}
	}
	return nil
}

// maxProgressMessage bounds, in bytes, the message of a progress
// notification or of a task's status that a Live sends the model (see
// LiveOptions.Progress); the rest is cut, as a result's text is cut to
// toolcall.MaxOutput.
const maxProgressMessage = 1 << 10
