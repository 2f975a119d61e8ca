package gemini_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// The shortest loop: connect to an MCP server, offer its tools to Gemini,
// and let the model call them until it answers.
func ExampleChat() {
	ctx := context.Background()
	session, err := runtime.Connect(ctx, runtime.NewCommandTransport("mcp-server-everything"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	toolset, err := gemini.NewToolset(session, tools, nil)
	if err != nil {
		log.Fatal(err)
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GEMINI_API_KEY"), Backend: genai.BackendGeminiAPI})
	if err != nil {
		log.Fatal(err)
	}
	chat := &gemini.Chat{Client: client, Model: "gemini-2.5-flash", Toolset: toolset}
	answer, err := chat.Send(ctx, "Echo 'hello', then add 2 and 3.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}
