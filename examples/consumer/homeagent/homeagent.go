// Package homeagent is a small agent on top of a generated package: it
// hands a request about the home to a Gemini model with the tools of the
// Home Assistant MCP server, runs the calls the model makes, and returns
// the model's answer. Its test runs it against a fake Gemini endpoint and
// the fake server the generated package declares.
package homeagent

import (
	"context"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/generated/homeassistant"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// Ask sends request to the model with the Home Assistant tools, which run
// through c (a session with the server), and returns the model's answer once
// it has made its calls.
func Ask(ctx context.Context, client *genai.Client, model string, c runtime.Caller, request string) (string, error) {
	tools, err := gemini.NewToolset(c, homeassistant.MCPTools(), nil)
	if err != nil {
		return "", err
	}
	chat := &gemini.Chat{
		Client:  client,
		Model:   model,
		Toolset: tools,
		Config: &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText("You control a home through its tools. Act, then say in one sentence what you did.", genai.RoleUser),
		},
	}
	return chat.Send(ctx, request)
}
