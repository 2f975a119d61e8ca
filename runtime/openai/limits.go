package openai

import (
	"github.com/mcpgen/mcpgen/internal/provschema"
	"github.com/mcpgen/mcpgen/runtime"
)

// MaxTools is the most function tools one Chat Completions request may
// carry: 128, as the API reference states for the tools parameter
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools).
// NewToolset refuses more than this.
const MaxTools = provschema.OpenAIMaxTools

// limitSource is the documentation MaxTools comes from.
const limitSource = provschema.OpenAIMaxToolsSource

// checkToolCount fails with a *runtime.TooManyToolsError when n tools are
// more than one request may carry.
func checkToolCount(n int) error {
	if n > MaxTools {
		return &runtime.TooManyToolsError{Provider: "openai", Tools: n, Limit: MaxTools, Source: limitSource}
	}
	return nil
}
