package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime"
)

var callCommand = &command{
	name:    "call",
	summary: "call one tool of a live server and print its result",
	run:     runCall,
}

const callHelp = `[--json] [--no-validate] [--no-input] TOOL ['JSON-ARGS' | -] ` + serverUsage + `

Calls TOOL with JSON-ARGS, a JSON object ({} when omitted; "-" reads it
from standard input), and prints the result: text blocks as they are,
other blocks as one-line summaries, and the structured content as
indented JSON. --json prints the whole result as JSON instead. Progress
the server reports goes to standard error.

The arguments are first checked against the tool's input schema, so that
a mistake is reported with its JSON pointer before anything is sent.
--no-validate skips the check and the tools/list request it needs, except
with a server speaking 2026-07-28 over Streamable HTTP (--url): there the
tools are still listed once before the call, because the protocol requires
arguments whose schema carries x-mcp-header to be sent as Mcp-Param-*
headers too, and only the tool list says which they are.

A tool the server runs as a task (a 2025-11-25 tool whose taskSupport is
required, or any tool of a 2026-07-28 server with the tasks extension) is
waited for, its status messages going to standard error as progress; when
--timeout runs out the task is cancelled.

When the server asks for input during the call (elicitation), the
question is asked on the terminal: each field of a form in turn, with its
default in brackets (Enter takes it) and the choices of an enum numbered;
answers are checked against the form's schema and asked again when they
do not fit. For a URL, the URL is shown and the call waits until you
press Enter (or type n to decline). Without a terminal, or with
--no-input, every request for input is declined, and standard error says
so. The time spent answering counts against --timeout.

Exit status: 0 for a result, 1 for an error result (isError) or a failed
call, 2 for usage errors and arguments the schema rejects.

` + serverHelp

func runCall(e *env, args []string) error {
	fs := newFlagSet(e, "call", callHelp)
	var sf serverFlags
	sf.register(fs)
	asJSON := fs.Bool("json", false, "print the raw result as JSON")
	noValidate := fs.Bool("no-validate", false, "send the arguments without checking them against the tool's input schema")
	noInput := fs.Bool("no-input", false, "decline the server's requests for input instead of asking on the terminal")
	pos, err := sf.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("call: missing TOOL")
	}
	if len(pos) > 2 {
		return usagef("call: unexpected argument %q (a server command goes after --)", pos[2])
	}
	tool := pos[0]
	argText := "{}"
	if len(pos) == 2 {
		argText = pos[1]
	}
	if argText == "-" {
		data, err := io.ReadAll(io.LimitReader(e.stdin, runtime.DefaultMaxMessageSize+1))
		if err != nil {
			return fmt.Errorf("call: reading the arguments from standard input: %w", err)
		}
		if len(data) > runtime.DefaultMaxMessageSize {
			return usagef("call %s: the arguments on standard input are larger than %d bytes (runtime.DefaultMaxMessageSize)", tool, runtime.DefaultMaxMessageSize)
		}
		argText = string(data)
	}
	callArgs, err := parseCallArgs(argText)
	if err != nil {
		return usagef("call %s: the arguments %v", tool, err)
	}

	sf.elicit = (&elicitor{noInput: *noInput, stderr: e.stderr, secrets: e.secrets}).handle
	ctx, cancel := sf.context()
	defer cancel()
	s, err := sf.connect(ctx, e, sf.command)
	if err != nil {
		return sf.explain(ctx, err)
	}
	defer closeSession(ctx, s)

	if !*noValidate {
		if err := validateCall(ctx, e, s, tool, callArgs); err != nil {
			return sf.explain(ctx, err)
		}
	}
	progress := &progressPrinter{w: e.stderr, tool: visibleCell(tool)}
	ctx = runtime.WithProgress(ctx, progress.print)
	res, err := s.CallTool(ctx, tool, callArgs)
	var te *runtime.ToolError
	if errors.As(err, &te) && te.Result != nil {
		res, err = te.Result, nil
	}
	if err != nil {
		return sf.explain(ctx, err)
	}
	if *asJSON {
		if err := writeResultJSON(e.data, res); err != nil {
			return err
		}
	} else {
		writeResult(e.stdout, e.data, res)
	}
	if res.IsError {
		return &exitError{code: exitFail, msg: fmt.Sprintf("call %s: the tool reported an error (isError)", tool)}
	}
	return nil
}

// parseCallArgs checks that text is one JSON object and returns it compact.
func parseCallArgs(text string) (json.RawMessage, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return json.RawMessage("{}"), nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("are not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("have more after the JSON object")
	}
	if v[0] != '{' {
		return nil, fmt.Errorf("must be a JSON object, not %s", jsonKindName(v[0]))
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return nil, fmt.Errorf("are not valid JSON: %v", err)
	}
	return b.Bytes(), nil
}

func jsonKindName(first byte) string {
	switch first {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// validateCall checks args against the input schema of tool, listing the
// server's tools to find it. Arguments the schema rejects are a usage error
// naming the JSON pointer; a schema that does not compile is only reported,
// as the server may still accept the call.
func validateCall(ctx context.Context, e *env, s *runtime.Session, tool string, args json.RawMessage) error {
	tools, err := s.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("listing tools to validate the arguments (--no-validate skips the check): %w", err)
	}
	var found *runtime.Tool
	names := make([]string, 0, len(tools))
	for i := range tools {
		names = append(names, tools[i].Name)
		if tools[i].Name == tool {
			found = &tools[i]
		}
	}
	if found == nil {
		return &exitError{code: exitFail, msg: fmt.Sprintf("call: the server has no tool %q; it has: %s", tool, strings.Join(names, ", "))}
	}
	err = runtime.NewSchema(tool, found.InputSchema).Validate(args)
	var ve *runtime.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return usagef("%v (--no-validate sends them anyway)", ve)
	default:
		fmt.Fprintf(e.stderr, "mcpgen: warning: not validating the arguments: %v\n", err)
		return nil
	}
}

// maxProgressMessage is the most characters of a progress or task status
// message printed, counted after escaping.
const maxProgressMessage = 200

// progressPrinter writes the progress of one call, one line per report: the
// amount, and the message when it differs from the last one printed, cut to
// maxProgressMessage characters with control characters and line breaks
// escaped, so that a server repeating a long message, or changing it
// often, costs one short line per report.
type progressPrinter struct {
	w    io.Writer
	tool string

	mu   sync.Mutex
	said string // the last message printed, before escaping
}

// print writes p as a line.
func (pp *progressPrinter) print(p runtime.Progress) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	msg := p.Message
	if msg == pp.said {
		msg = ""
	} else if msg != "" {
		pp.said = msg
	}
	var b strings.Builder
	fmt.Fprintf(&b, "progress %s:", pp.tool)
	if p.Progress != 0 || p.Total != 0 || msg == "" {
		// A task's status message comes without an amount.
		fmt.Fprintf(&b, " %g", p.Progress)
		if p.Total > 0 {
			fmt.Fprintf(&b, "/%g", p.Total)
		}
	}
	if msg != "" {
		b.WriteString(" ")
		b.WriteString(cutCell(visibleCell(msg), maxProgressMessage))
	}
	b.WriteString("\n")
	io.WriteString(pp.w, b.String())
}

// writeResultJSON writes res as indented JSON.
func writeResultJSON(w io.Writer, res *runtime.Result) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the result: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// writeResult writes res for people: text blocks verbatim, other blocks as
// a one-line summary, and the structured content indented: in place of the
// first text block that holds the same JSON value, or else last, after a
// label. The summaries go to people; the
// content the server sent (text, resource text, structured content) goes to
// data, which keeps it exact when standard output is not a terminal. Both
// are sides of the same stream, so the order holds.
func writeResult(people, data io.Writer, res *runtime.Result) {
	var indented bytes.Buffer
	var structuredValue any
	structured := len(bytes.TrimSpace(res.StructuredContent)) > 0 &&
		json.Unmarshal(res.StructuredContent, &structuredValue) == nil &&
		json.Indent(&indented, res.StructuredContent, "", "  ") == nil
	indented.WriteString("\n")
	text := func(s string) {
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		io.WriteString(data, s)
	}
	for _, c := range res.Content {
		switch c.Type {
		case runtime.ContentText:
			if structured && sameJSON(c.Text, structuredValue) {
				data.Write(indented.Bytes())
				structured = false
				continue
			}
			text(c.Text)
		case runtime.ContentImage, runtime.ContentAudio:
			fmt.Fprintf(people, "[%s %s, %d bytes]\n", c.Type, orDash(c.MIMEType), len(c.Data))
		case runtime.ContentResourceLink:
			var b strings.Builder
			fmt.Fprintf(&b, "[resource_link %s", c.URI)
			if c.Name != "" {
				fmt.Fprintf(&b, " %q", c.Name)
			}
			if c.MIMEType != "" {
				fmt.Fprintf(&b, " %s", c.MIMEType)
			}
			b.WriteString("]\n")
			io.WriteString(people, b.String())
		case runtime.ContentResource:
			switch {
			case c.Resource == nil:
				io.WriteString(people, "[resource]\n")
			case c.Resource.Blob != nil:
				fmt.Fprintf(people, "[resource %s %s, %d bytes]\n", c.Resource.URI, orDash(c.Resource.MIMEType), len(c.Resource.Blob))
			default:
				fmt.Fprintf(people, "[resource %s %s]\n", c.Resource.URI, orDash(c.Resource.MIMEType))
				text(c.Resource.Text)
			}
		default:
			fmt.Fprintf(people, "[%s block]\n", c.Type)
		}
	}
	if structured {
		io.WriteString(people, "structured content:\n")
		data.Write(indented.Bytes())
	}
}

// sameJSON reports whether text is the JSON encoding of v.
func sameJSON(text string, v any) bool {
	var t any
	if json.Unmarshal([]byte(text), &t) != nil {
		return false
	}
	return reflect.DeepEqual(t, v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
