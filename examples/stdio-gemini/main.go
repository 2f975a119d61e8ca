// Command stdio-gemini lets a Gemini model use the tools of any MCP server
// that speaks stdio. Nothing is generated: the tools are the ones the server
// lists when the program starts, and each call the model makes is checked
// against the tool's own input schema before it reaches the server.
//
// Usage:
//
//	export GEMINI_API_KEY=...
//	stdio-gemini --prompt "Echo 'hello', then add 2 and 3." -- npx -y @modelcontextprotocol/server-everything stdio
//
// Without --prompt it reads one prompt per line from standard input and keeps
// the conversation going between them.
//
// Before a call of a tool that the server does not annotate as read-only or
// as not destructive, it shows the call on the terminal and runs it only
// when the answer is y; a declined call never reaches the server. --yes
// runs every call without asking.
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
	"time"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/examples/internal/terminal"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/gemini"
)

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
	fs := flag.NewFlagSet("stdio-gemini", flag.ContinueOnError)
	fs.SetOutput(stderr)
	prompt := fs.String("prompt", "", "the prompt; without it, prompts are read from standard input, one per line")
	model := fs.String("model", "gemini-2.5-flash", "the Gemini model")
	baseURL := fs.String("base-url", "", "another Gemini API endpoint, such as a proxy (default: Google's)")
	timeout := fs.Duration("timeout", 2*time.Minute, "the time limit of each prompt, tool calls included")
	yes := fs.Bool("yes", false, "run every tool call without asking on the terminal first")
	verbose := fs.Bool("v", false, "log every MCP message and the server's standard error to standard error")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: stdio-gemini [flags] -- COMMAND ARGS...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	command := fs.Args()
	if len(command) == 0 {
		fmt.Fprintln(stderr, "stdio-gemini: no server command (give it after --)")
		return 2
	}
	apiKey := getenv("GEMINI_API_KEY")
	if apiKey == "" {
		fmt.Fprintln(stderr, "stdio-gemini: GEMINI_API_KEY is not set")
		return 2
	}

	logLevel := slog.LevelWarn
	if *verbose {
		logLevel = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel}))
	transport := runtime.NewCommandTransport(command[0], command[1:]...)
	transport.Logger = logger

	connectCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	session, err := runtime.Connect(connectCtx, transport, &runtime.Options{ClientName: "stdio-gemini", Logger: logger, LogTraffic: *verbose})
	if err != nil {
		fmt.Fprintf(stderr, "stdio-gemini: starting %s: %v\n", command[0], err)
		return 1
	}
	defer session.Close()
	tools, err := session.ListTools(connectCtx)
	if err != nil {
		fmt.Fprintf(stderr, "stdio-gemini: listing the tools: %v\n", err)
		return 1
	}
	toolset, err := gemini.NewToolset(session, tools, nil)
	if err != nil {
		fmt.Fprintf(stderr, "stdio-gemini: %v\n", err)
		return 1
	}
	if !*yes {
		// Tools the server does not annotate as read-only, or as not
		// destructive, are asked about.
		if err := toolset.SetConfirmation(&runtime.Confirmation{Ask: (&terminal.Confirm{Path: terminalPath}).Ask}); err != nil {
			fmt.Fprintf(stderr, "stdio-gemini: %v\n", err)
			return 1
		}
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      apiKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: *baseURL},
	})
	if err != nil {
		fmt.Fprintf(stderr, "stdio-gemini: %v\n", err)
		return 1
	}
	chat := &gemini.Chat{Client: client, Model: *model, Toolset: toolset}
	if err := converse(ctx, chat, *prompt, stdin, stdout, *timeout); err != nil {
		fmt.Fprintf(stderr, "stdio-gemini: %v\n", err)
		return 1
	}
	return 0
}

// converse sends prompt, or else each non-empty line of stdin, to chat and
// prints each answer to stdout. An interrupt (ctx done) ends the wait for
// the next line.
func converse(ctx context.Context, chat *gemini.Chat, prompt string, stdin io.Reader, stdout io.Writer, timeout time.Duration) error {
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
	if prompt != "" {
		return ask(prompt)
	}
	return terminal.EachLine(ctx, stdin, ask)
}
