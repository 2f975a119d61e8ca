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

// A toolset in deferred mode declares the pinned tools and search_tools;
// what a search finds is declared from the next request on.
func ExampleDeclarationOptions_search() {
	tools := []runtime.Tool{
		{Name: "send_mail", Description: "Send an email.", InputSchema: []byte(`{"type":"object","properties":{"to":{"type":"string"}}}`)},
		{Name: "list_events", Description: "List the events of a calendar.", InputSchema: []byte(`{"type":"object"}`)},
		{Name: "turn_off", Description: "Turn a light off.", InputSchema: []byte(`{"type":"object"}`)},
	}
	// A program passes its *runtime.Session; searching calls no tool.
	var session runtime.Caller = notConnected{}
	toolset, err := gemini.NewToolset(session, tools, &gemini.DeclarationOptions{
		Search: &runtime.ToolSearch{Pinned: []string{"send_mail"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	names := func() (out []string) {
		for _, d := range toolset.Declarations() {
			out = append(out, d.Name)
		}
		return out
	}
	fmt.Println(names())
	// The model calls the search function; the Toolset answers it.
	toolset.Handle(context.Background(), &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": "my calendar events"}})
	fmt.Println(names())
	// Output:
	// [send_mail search_tools]
	// [send_mail list_events search_tools]
}

// notConnected is a Caller that calls nothing.
type notConnected struct{}

func (notConnected) CallTool(context.Context, string, any) (*runtime.Result, error) {
	return nil, errors.New("not connected")
}
