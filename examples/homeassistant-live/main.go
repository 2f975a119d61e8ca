// Command homeassistant-live is a Home Assistant assistant over a Gemini
// Live session: the model controls the house through the tools of Home
// Assistant's MCP server, declared and validated by the generated package
// generated/homeassistant, while the conversation goes on.
//
// Usage:
//
//	export HA_TOKEN=...          # a long-lived access token
//	export GEMINI_API_KEY=...
//	homeassistant-live --url http://homeassistant.local:8123/api/mcp
//
// It works in text: type a line, read the answer. Every line is one turn of
// the user; the session, and with it the model's memory of the
// conversation, lasts until the end of standard input. --url takes the
// Streamable HTTP endpoint (/api/mcp) or the legacy HTTP+SSE one
// (/mcp_server/sse). The token is read from the environment variable
// --token-env names, and is never printed.
//
// Before a tool call that may change the house, it shows the call on the
// terminal and runs it only when the answer is y, as homeassistant-gemini
// does: every tool but GetLiveContext, which only reads. The question does
// not stop the session: other calls and the model's words go on meanwhile.
// A declined call never reaches Home Assistant; the model is told it was
// declined. --yes runs every call without asking.
package main

import (
	"bufio"
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
// the exit status: 0 when every line was answered, 1 when something
// failed, 2 for usage mistakes.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("homeassistant-live", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", getenv("HA_URL"), "the Home Assistant MCP endpoint: .../api/mcp (Streamable HTTP) or .../mcp_server/sse (legacy HTTP+SSE); default $HA_URL")
	tokenEnv := fs.String("token-env", "HA_TOKEN", "the environment variable holding the Home Assistant access token")
	model := fs.String("model", "gemini-live-2.5-flash-preview", "the Gemini Live model; it must answer in text")
	baseURL := fs.String("base-url", "", "another Gemini API endpoint, such as a proxy (default: Google's)")
	timeout := fs.Duration("timeout", 2*time.Minute, "the time limit of each answer, tool calls included")
	yes := fs.Bool("yes", false, "run every tool call without asking on the terminal first")
	verbose := fs.Bool("v", false, "log every MCP message to standard error (secrets redacted)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: homeassistant-live --url URL [flags]")
		fmt.Fprintln(stderr, "Type a line, read the answer; the session ends with standard input.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *url == "" {
		fmt.Fprintln(stderr, "homeassistant-live: --url (or $HA_URL) is required")
		return 2
	}
	apiKey := getenv("GEMINI_API_KEY")
	if apiKey == "" {
		fmt.Fprintln(stderr, "homeassistant-live: GEMINI_API_KEY is not set")
		return 2
	}
	logLevel := slog.LevelWarn
	if *verbose {
		logLevel = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel}))
	fail := func(err error) int {
		fmt.Fprintf(stderr, "homeassistant-live: %v\n", err)
		return 1
	}

	connectCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	session, err := runtime.Connect(connectCtx, runtime.HTTP(*url, &runtime.HTTPOptions{BearerEnv: *tokenEnv, Logger: logger}), &runtime.Options{
		ClientName:   "homeassistant-live",
		Logger:       logger,
		LogTraffic:   *verbose,
		SnapshotHash: homeassistant.SnapshotHash,
	})
	cancel()
	if err != nil {
		return fail(fmt.Errorf("connecting to %s: %w", *url, err))
	}
	defer session.Close()

	toolset, err := gemini.NewToolset(session, homeassistant.MCPTools(), nil)
	if err != nil {
		return fail(err)
	}
	if !*yes {
		conf := &runtime.Confirmation{Ask: (&terminal.Confirm{Path: terminalPath}).Ask, ReadOnly: readOnlyTools}
		if err := toolset.SetConfirmation(conf); err != nil {
			return fail(err)
		}
	}
	tools, err := toolset.LiveTools(nil)
	if err != nil {
		return fail(err)
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:  apiKey,
		Backend: genai.BackendGeminiAPI,
		// The Live API needs the API version spelled out.
		HTTPOptions: genai.HTTPOptions{BaseURL: *baseURL, APIVersion: "v1beta"},
	})
	if err != nil {
		return fail(err)
	}
	ls, err := client.Live.Connect(ctx, *model, &genai.LiveConnectConfig{
		ResponseModalities: []genai.Modality{genai.ModalityText},
		SystemInstruction:  genai.NewContentFromText("You control a Home Assistant installation through its tools. Act on the user's requests, then answer in one or two short sentences.", genai.RoleUser),
		Tools:              tools,
	})
	if err != nil {
		return fail(fmt.Errorf("opening the Live session: %w", err))
	}
	live, err := gemini.NewLive(ls, toolset, nil)
	if err != nil {
		ls.Close()
		return fail(err)
	}
	if err := converse(ctx, live, stdin, stdout, *timeout); err != nil {
		return fail(err)
	}
	return 0
}

// converse sends each non-empty line of stdin to the model as one turn and
// prints the model's answer, while live runs the tool calls.
func converse(ctx context.Context, live *gemini.Live, stdin io.Reader, stdout io.Writer, timeout time.Duration) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan string)
	ended := make(chan error, 1)
	go func() {
		var answer strings.Builder
		ended <- live.Run(ctx, func(m *genai.LiveServerMessage) error {
			sc := m.ServerContent
			if sc == nil {
				return nil
			}
			if sc.ModelTurn != nil {
				for _, p := range sc.ModelTurn.Parts {
					if p != nil && !p.Thought {
						answer.WriteString(p.Text)
					}
				}
			}
			if sc.TurnComplete {
				select {
				case answers <- answer.String():
				case <-ctx.Done():
				}
				answer.Reset()
			}
			return nil
		})
	}()
	// stop ends the session and says why Run ended, unless it ended as
	// asked.
	stop := func() error {
		cancel()
		if err := <-ended; !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
	lines := bufio.NewScanner(stdin)
	for lines.Scan() {
		prompt := strings.TrimSpace(lines.Text())
		if prompt == "" {
			continue
		}
		err := live.SendClientContent(genai.LiveClientContentInput{
			Turns:        []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)},
			TurnComplete: genai.Ptr(true),
		})
		if err != nil {
			stop()
			return fmt.Errorf("sending %q: %w", prompt, err)
		}
		select {
		case a := <-answers:
			if _, err := fmt.Fprintln(stdout, a); err != nil {
				stop()
				return err
			}
		case err := <-ended:
			ended <- err
			return stop()
		case <-time.After(timeout):
			stop()
			return fmt.Errorf("no answer to %q within %v", prompt, timeout)
		}
	}
	if err := lines.Err(); err != nil {
		stop()
		return fmt.Errorf("reading the input: %w", err)
	}
	return stop()
}
