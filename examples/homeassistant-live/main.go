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
// conversation, lasts until the end of standard input. With --audio FILE
// (or - for standard input), holding 16-bit mono PCM at 16 kHz, it speaks
// one request instead, prints the transcript of the spoken answer and, with
// --audio-out, writes its audio. --url takes the
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
	"bytes"
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
	audioIn := fs.String("audio", "", "speak instead of typing: `FILE` (\"-\" for standard input) holds 16-bit mono PCM at 16 kHz; the answer is spoken and its transcript printed")
	audioOut := fs.String("audio-out", "", "with --audio, write the spoken answer to `FILE` (16-bit mono PCM at 24 kHz)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: homeassistant-live --url URL [flags]")
		fmt.Fprintln(stderr, "Type a line, read the answer; the session ends with standard input. With --audio, speak one request instead.")
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
	if *audioOut != "" && *audioIn == "" {
		fmt.Fprintln(stderr, "homeassistant-live: --audio-out needs --audio")
		return 2
	}
	apiKey := getenv("GEMINI_API_KEY")
	if apiKey == "" {
		fmt.Fprintln(stderr, "homeassistant-live: GEMINI_API_KEY is not set")
		return 2
	}
	// The audio files are opened first, so that a wrong name costs no
	// connection.
	var audioR io.Reader
	var audioW io.Writer
	if *audioIn == "-" {
		audioR = stdin
	} else if *audioIn != "" {
		f, err := os.Open(*audioIn)
		if err != nil {
			fmt.Fprintf(stderr, "homeassistant-live: %v\n", err)
			return 1
		}
		defer f.Close()
		audioR = f
	}
	if *audioOut != "" {
		f, err := os.Create(*audioOut)
		if err != nil {
			fmt.Fprintf(stderr, "homeassistant-live: %v\n", err)
			return 1
		}
		defer f.Close()
		audioW = f
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
		// The runtime's error names the endpoint, without the credentials
		// a URL may hold; *url as given may show them.
		return fail(fmt.Errorf("connecting to Home Assistant: %w", err))
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
	cfg := &genai.LiveConnectConfig{
		ResponseModalities: []genai.Modality{genai.ModalityText},
		SystemInstruction:  genai.NewContentFromText("You control a Home Assistant installation through its tools. Act on the user's requests, then answer in one or two short sentences.", genai.RoleUser),
		Tools:              tools,
	}
	if *audioIn != "" {
		cfg.ResponseModalities = []genai.Modality{genai.ModalityAudio}
		cfg.OutputAudioTranscription = &genai.AudioTranscriptionConfig{}
	}
	ls, err := client.Live.Connect(ctx, *model, cfg)
	if err != nil {
		return fail(fmt.Errorf("opening the Live session: %w", err))
	}
	live, err := gemini.NewLive(ls, toolset, &gemini.LiveOptions{Model: *model})
	if err != nil {
		ls.Close()
		return fail(err)
	}
	if *audioIn == "" {
		err = converse(ctx, live, stdin, stdout, *timeout)
	} else {
		err = speak(ctx, live, audioR, stdout, audioW, *timeout)
	}
	if err != nil {
		return fail(err)
	}
	return 0
}

// assistant is a running Live session: Run answers the tool calls, and
// each model turn's text (or, with audio answers, its transcript) goes to
// answers.
type assistant struct {
	live    *gemini.Live
	answers chan string
	ended   chan error
	cancel  context.CancelFunc
}

// start runs live until stop; the audio of the answers goes to audioOut
// when it is not nil.
func start(ctx context.Context, live *gemini.Live, audioOut io.Writer) *assistant {
	ctx, cancel := context.WithCancel(ctx)
	a := &assistant{live: live, answers: make(chan string), ended: make(chan error, 1), cancel: cancel}
	go func() {
		var answer strings.Builder
		// interrupted is set when the server cut the model's answer
		// short (the user spoke over it): what it said is dropped, and
		// the turnComplete that ends the cut answer, with nothing said
		// since, answers nothing.
		interrupted := false
		a.ended <- live.Run(ctx, func(m *genai.LiveServerMessage) error {
			sc := m.ServerContent
			if sc == nil {
				return nil
			}
			if sc.ModelTurn != nil {
				for _, p := range sc.ModelTurn.Parts {
					switch {
					case p == nil || p.Thought:
					case p.InlineData != nil && audioOut != nil:
						if _, err := audioOut.Write(p.InlineData.Data); err != nil {
							return fmt.Errorf("writing the answer's audio: %w", err)
						}
					default:
						answer.WriteString(p.Text)
					}
				}
			}
			if sc.OutputTranscription != nil {
				answer.WriteString(sc.OutputTranscription.Text)
			}
			if sc.Interrupted {
				answer.Reset()
				interrupted = true
			}
			if sc.TurnComplete && interrupted && answer.Len() == 0 {
				interrupted = false
				return nil
			}
			if sc.TurnComplete {
				interrupted = false
				select {
				case a.answers <- answer.String():
				case <-ctx.Done():
				}
				answer.Reset()
			}
			return nil
		})
	}()
	return a
}

// answer waits for the answer to what was sent.
func (a *assistant) answer(what string, timeout time.Duration) (string, error) {
	select {
	case text := <-a.answers:
		return text, nil
	case err := <-a.ended:
		a.ended <- err
		return "", err
	case <-time.After(timeout):
		return "", fmt.Errorf("no answer to %s within %v", what, timeout)
	}
}

// stop ends the session and returns why Run ended, unless it ended as
// asked.
func (a *assistant) stop() error {
	a.cancel()
	if err := <-a.ended; !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// converse sends each non-empty line of stdin to the model as one turn and
// prints the model's answer, while live runs the tool calls. An interrupt
// (ctx done) ends the wait for the next line.
func converse(ctx context.Context, live *gemini.Live, stdin io.Reader, stdout io.Writer, timeout time.Duration) error {
	a := start(ctx, live, nil)
	err := terminal.EachLine(ctx, stdin, func(prompt string) error {
		err := live.SendClientContent(genai.LiveClientContentInput{
			Turns:        []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)},
			TurnComplete: genai.Ptr(true),
		})
		if err != nil {
			return fmt.Errorf("sending %q: %w", prompt, err)
		}
		text, err := a.answer(fmt.Sprintf("%q", prompt), timeout)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, text)
		return err
	})
	if err != nil {
		a.stop()
		return err
	}
	return a.stop()
}

// audioChunk is 100 ms of 16-bit mono PCM at 16 kHz, the input format of
// the Live API.
const audioChunk = 3200

// speak sends the audio of in (16-bit little-endian mono PCM at 16 kHz) to
// the model as it reads it, then prints the transcript of the spoken answer
// and writes its audio (the same PCM at 24 kHz) to audioOut, when not nil.
func speak(ctx context.Context, live *gemini.Live, in io.Reader, stdout, audioOut io.Writer, timeout time.Duration) error {
	a := start(ctx, live, audioOut)
	buf := make([]byte, audioChunk)
	for {
		n, err := io.ReadFull(in, buf)
		if n > 0 {
			serr := live.SendRealtimeInput(genai.LiveRealtimeInput{Audio: &genai.Blob{MIMEType: "audio/pcm;rate=16000", Data: bytes.Clone(buf[:n])}})
			if serr != nil {
				a.stop()
				return fmt.Errorf("sending the audio: %w", serr)
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			a.stop()
			return fmt.Errorf("reading the audio: %w", err)
		}
	}
	if err := live.SendRealtimeInput(genai.LiveRealtimeInput{AudioStreamEnd: true}); err != nil {
		a.stop()
		return fmt.Errorf("ending the audio: %w", err)
	}
	text, err := a.answer("the audio", timeout)
	if err == nil {
		_, err = fmt.Fprintln(stdout, text)
	}
	if err != nil {
		a.stop()
		return err
	}
	return a.stop()
}
