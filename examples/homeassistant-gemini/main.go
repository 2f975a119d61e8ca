// Command homeassistant-gemini is a command-line assistant for a Home
// Assistant installation: a Gemini model reads each prompt and controls the
// house through the tools of Home Assistant's MCP server, declared and
// validated by the generated package generated/homeassistant.
//
// Usage:
//
//	export HA_TOKEN=...          # a long-lived access token
//	export GEMINI_API_KEY=...
//	homeassistant-gemini --url http://homeassistant.local:8123/api/mcp "turn on the kitchen light"
//
// Without a prompt argument it reads one prompt per line from standard input
// and keeps the conversation going between them. --url takes the Streamable
// HTTP endpoint (/api/mcp) or the legacy HTTP+SSE one (/mcp_server/sse); the
// transport is found out from the server's answers. The token is read from
// the environment variable --token-env names, and is never printed.
//
// Before a tool call that may change the house, it shows the call on the
// terminal and runs it only when the answer is y: Home Assistant does not
// annotate its tools, so this is every tool but GetLiveContext, which only
// reads (HassTurnOn may switch on a heater or unlock a door). A declined
// call never reaches Home Assistant; the model is told it was declined.
// --yes runs every call without asking.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/examples/internal/terminal"
	"github.com/mcpgen/mcpgen/generated/homeassistant"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// readOnlyTools are the tools of Home Assistant's server that only read the
// state of the house: the user is not asked before they run.
var readOnlyTools = []string{"GetLiveContext"}

// terminalPath is the terminal the user is asked on.
var terminalPath = terminal.DefaultPath

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run runs the assistant with the command-line arguments args and returns
// the exit status: 0 when every prompt was answered, 1 when something
// failed, 2 for usage mistakes.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("homeassistant-gemini", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", getenv("HA_URL"), "the Home Assistant MCP endpoint: .../api/mcp (Streamable HTTP) or .../mcp_server/sse (legacy HTTP+SSE); default $HA_URL")
	tokenEnv := fs.String("token-env", "HA_TOKEN", "the environment variable holding the Home Assistant access token")
	model := fs.String("model", "gemini-2.5-flash", "the Gemini model")
	baseURL := fs.String("base-url", "", "another Gemini API endpoint, such as a proxy (default: Google's)")
	timeout := fs.Duration("timeout", 2*time.Minute, "the time limit of each prompt, tool calls included")
	yes := fs.Bool("yes", false, "run every tool call without asking on the terminal first")
	verbose := fs.Bool("v", false, "log every MCP message to standard error (secrets redacted)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: homeassistant-gemini --url URL [flags] [PROMPT...]")
		fmt.Fprintln(stderr, "Without PROMPT, prompts are read from standard input, one per line.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *url == "" {
		fmt.Fprintln(stderr, "homeassistant-gemini: --url (or $HA_URL) is required")
		return 2
	}
	apiKey := getenv("GEMINI_API_KEY")
	if apiKey == "" {
		fmt.Fprintln(stderr, "homeassistant-gemini: GEMINI_API_KEY is not set")
		return 2
	}

	logLevel := slog.LevelWarn
	if *verbose {
		logLevel = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel}))

	connectCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	session, err := runtime.Connect(connectCtx, runtime.HTTP(*url, &runtime.HTTPOptions{BearerEnv: *tokenEnv, Logger: logger}), &runtime.Options{
		ClientName: "homeassistant-gemini",
		Logger:     logger,
		LogTraffic: *verbose,
		// The generated package knows the hash of the tool list it was
		// made from: the session logs a warning when the server's differs.
		SnapshotHash: homeassistant.SnapshotHash,
	})
	cancel()
	if err != nil {
		// The runtime's error names the endpoint, without the credentials
		// a URL may hold; *url as given may show them.
		fmt.Fprintf(stderr, "homeassistant-gemini: connecting to Home Assistant: %v\n", err)
		return 1
	}
	defer session.Close()

	// The tools are the generated package's: their schemas are checked in,
	// so the declarations the model sees are the reviewed ones.
	toolset, err := gemini.NewToolset(session, homeassistant.MCPTools(), nil)
	if err != nil {
		fmt.Fprintf(stderr, "homeassistant-gemini: %v\n", err)
		return 1
	}
	if !*yes {
		// Home Assistant sends no annotations, so every tool counts as
		// destructive (HassTurnOn may unlock a door) except those marked
		// read-only here.
		conf := &runtime.Confirmation{Ask: (&terminal.Confirm{Path: terminalPath}).Ask, ReadOnly: readOnlyTools}
		if err := toolset.SetConfirmation(conf); err != nil {
			fmt.Fprintf(stderr, "homeassistant-gemini: %v\n", err)
			return 1
		}
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      apiKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: *baseURL},
	})
	if err != nil {
		fmt.Fprintf(stderr, "homeassistant-gemini: %v\n", err)
		return 1
	}
	chat := &gemini.Chat{
		Client:  client,
		Model:   *model,
		Toolset: toolset,
		Config: &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText("You control a Home Assistant installation through its tools. Act on the user's requests, then answer in one or two short sentences.", genai.RoleUser),
		},
	}
	if err := converse(ctx, chat, fs.Args(), stdin, stdout, *timeout); err != nil {
		fmt.Fprintf(stderr, "homeassistant-gemini: %v\n", err)
		return 1
	}
	return 0
}

// converse sends the prompt made of args, or else each non-empty line of
// stdin, to chat and prints each answer to stdout. An interrupt (ctx done)
// ends the wait for the next line.
func converse(ctx context.Context, chat *gemini.Chat, args []string, stdin io.Reader, stdout io.Writer, timeout time.Duration) error {
	ask := func(prompt string) error {
		pctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		answer, err := chat.Send(pctx, prompt)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, answer)
		return err
	}
	if len(args) > 0 {
		return ask(strings.Join(args, " "))
	}
	return terminal.EachLine(ctx, stdin, ask)
}
