package gemini_test

import (
	"context"
	"errors"
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

// A Live session in text: the program sends a line and prints the answer,
// the Live runs the model's tool calls meanwhile.
func ExampleLive() {
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
	liveTools, err := toolset.LiveTools(nil)
	if err != nil {
		log.Fatal(err)
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GEMINI_API_KEY"),
		Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{APIVersion: "v1beta"}})
	if err != nil {
		log.Fatal(err)
	}
	ls, err := client.Live.Connect(ctx, "gemini-live-2.5-flash-preview", &genai.LiveConnectConfig{
		ResponseModalities: []genai.Modality{genai.ModalityText}, Tools: liveTools})
	if err != nil {
		log.Fatal(err)
	}
	live, err := gemini.NewLive(ls, toolset, nil)
	if err != nil {
		log.Fatal(err)
	}
	err = live.SendClientContent(genai.LiveClientContentInput{Turns: genai.Text("Echo 'hello', then add 2 and 3.")})
	if err != nil {
		log.Fatal(err)
	}
	answered := errors.New("answered")
	err = live.Run(ctx, func(m *genai.LiveServerMessage) error {
		if sc := m.ServerContent; sc != nil {
			if sc.ModelTurn != nil {
				for _, p := range sc.ModelTurn.Parts {
					fmt.Print(p.Text)
				}
			}
			if sc.TurnComplete {
				return answered // ends Run, which closes the session
			}
		}
		return nil
	})
	if !errors.Is(err, answered) {
		log.Fatal(err)
	}
}
