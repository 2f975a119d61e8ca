package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// ttyPath is the terminal mcpgen call asks the user on. Tests point it at a
// pseudo-terminal.
var ttyPath = "/dev/tty"

// maxFieldTries bounds how often one form field is asked for before the
// form is cancelled, so that a script writing to the terminal cannot loop.
const maxFieldTries = 5

// elicitor answers a server's elicitation requests for mcpgen call: on the
// terminal, one request at a time, or, without one or with --no-input, by
// declining them and saying so on standard error.
type elicitor struct {
	noInput bool
	stderr  io.Writer
	// secrets are redacted from what the terminal shows, as from standard
	// error.
	secrets *secrets
	mu      sync.Mutex
}

func (el *elicitor) handle(ctx context.Context, req *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	server := visibleCell(req.Server.Name)
	if server == "" {
		server = "the server"
	}
	if el.noInput {
		fmt.Fprintf(el.stderr, "mcpgen: declined %s's request for input (--no-input): %s\n", server, visibleCell(req.Message))
		return &runtime.ElicitResult{Action: runtime.ElicitDecline}, nil
	}
	tty, err := os.OpenFile(ttyPath, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintf(el.stderr, "mcpgen: declined %s's request for input (there is no terminal to ask on): %s\n", server, visibleCell(req.Message))
		return &runtime.ElicitResult{Action: runtime.ElicitDecline}, nil
	}
	p := newPrompter(ctx, tty, el.secrets)
	defer p.close()
	p.printf("\n%s asks: %s\n", server, visibleCell(req.Message))
	var res *runtime.ElicitResult
	if req.Mode == runtime.ElicitURL {
		res, err = p.url(req)
	} else {
		res, err = p.form(req)
	}
	if errors.Is(err, io.EOF) {
		p.printf("\n(cancelled)\n")
		return &runtime.ElicitResult{Action: runtime.ElicitCancel}, nil
	}
	return res, err
}

// prompter reads answers from a terminal, line by line, until its context
// ends. Everything it shows goes through out, which shows the characters
// that could drive the terminal as escapes, whoever wrote them: the server's
// text, and errors that quote it.
type prompter struct {
	ctx   context.Context
	tty   *os.File
	out   *outStream
	lines chan string
	done  chan struct{}
}

func newPrompter(ctx context.Context, tty *os.File, sec *secrets) *prompter {
	p := &prompter{ctx: ctx, tty: tty, out: &outStream{w: tty, secrets: sec}, lines: make(chan string), done: make(chan struct{})}
	go func() {
		defer close(p.lines)
		r := bufio.NewReader(tty)
		for {
			line, err := r.ReadString('\n')
			if err != nil && line == "" {
				return
			}
			select {
			case p.lines <- strings.TrimRight(line, "\r\n"):
			case <-p.done:
				return
			}
		}
	}()
	return p
}

// close ends the reader by closing the terminal.
func (p *prompter) close() {
	close(p.done)
	p.tty.Close()
}

// printf shows text on the terminal, with control characters as escapes.
func (p *prompter) printf(format string, args ...any) error {
	fmt.Fprintf(p.out.visible(), format, args...)
	if err := p.out.flush(); err != nil {
		return fmt.Errorf("writing to the terminal: %w", err)
	}
	return nil
}

// ask shows question and returns the line typed, io.EOF when the terminal
// closed, or the context's error.
func (p *prompter) ask(question string) (string, error) {
	if err := p.printf("%s", question); err != nil {
		return "", err
	}
	select {
	case line, ok := <-p.lines:
		if !ok {
			return "", io.EOF
		}
		return strings.TrimSpace(line), nil
	case <-p.ctx.Done():
		return "", p.ctx.Err()
	}
}

// url shows the URL of a URL-mode request and waits for the user's consent.
// A URL that is not http or https is declined without asking.
func (p *prompter) url(req *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
	u, err := url.Parse(req.URL)
	if err != nil || u.Hostname() == "" || u.Scheme != "http" && u.Scheme != "https" {
		// A javascript:, file: or data: URL has no domain to show, and
		// is never accepted.
		p.printf("It asks you to open %s\ndeclined: it is not an http or https URL\n", visibleCell(req.URL))
		return &runtime.ElicitResult{Action: runtime.ElicitDecline}, nil
	}
	host := u.Hostname()
	p.printf("It asks you to open this URL (domain %s):\n  %s\n", visibleCell(host), visibleCell(req.URL))
	if strings.Contains(strings.ToLower(host), "xn--") {
		p.printf("Warning: the domain is written in punycode; it may imitate another one.\n")
	}
	line, err := p.ask("Press Enter once you have finished there, or type n to decline: ")
	if err != nil {
		return nil, err
	}
	if isNo(line) {
		return &runtime.ElicitResult{Action: runtime.ElicitDecline}, nil
	}
	return &runtime.ElicitResult{Action: runtime.ElicitAccept}, nil
}

// form asks for each field of a form-mode request, showing defaults and
// offering enums as numbered choices, and checks the answers against the
// requested schema before they are sent.
func (p *prompter) form(req *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
	fields, err := runtime.ElicitationFields(req.RequestedSchema)
	if err != nil {
		return nil, err
	}
	line, err := p.ask("Answer? [Y/n] ")
	if err != nil {
		return nil, err
	}
	if isNo(line) {
		return &runtime.ElicitResult{Action: runtime.ElicitDecline}, nil
	}
	content := map[string]any{}
	for _, f := range fields {
		if err := p.field(req.RequestedSchema, f, content); err != nil {
			return nil, err
		}
	}
	return &runtime.ElicitResult{Action: runtime.ElicitAccept, Content: content}, nil
}

// field asks for one field until the answer fits the schema, and stores it
// in content.
func (p *prompter) field(schema json.RawMessage, f runtime.ElicitationField, content map[string]any) error {
	label := f.Title
	if label == "" {
		label = f.Name
	}
	label = visibleCell(label)
	if f.Description != "" {
		label += " (" + visibleCell(f.Description) + ")"
	}
	if f.Required {
		label += " *"
	}
	for i, v := range f.Enum {
		name := ""
		if i < len(f.EnumNames) && f.EnumNames[i] != "" && f.EnumNames[i] != v {
			name = " - " + visibleCell(f.EnumNames[i])
		}
		if i == 0 {
			p.printf("%s, choose:\n", label)
		}
		p.printf("  %d) %s%s\n", i+1, visibleCell(v), name)
	}
	question := label
	switch {
	case len(f.Enum) > 0 && f.Type == "array":
		question = "  numbers, separated by commas"
	case len(f.Enum) > 0:
		question = "  number"
	case f.Type == "boolean":
		question += " [y/n]"
	}
	if f.Default != nil {
		question += " [default " + visibleCell(fmt.Sprint(f.Default)) + "]"
	}
	question += ": "
	for try := 0; try < maxFieldTries; try++ {
		line, err := p.ask(question)
		if err != nil {
			return err
		}
		delete(content, f.Name)
		if line != "" {
			v, err := parseAnswer(f, line)
			if err != nil {
				p.printf("  %v\n", err)
				continue
			}
			content[f.Name] = v
		} else if f.Default != nil {
			content[f.Name] = f.Default
		} else if f.Required {
			p.printf("  a value is required\n")
			continue
		}
		if err := fieldProblem(schema, f.Name, content); err != nil {
			p.printf("  %v\n", err)
			continue
		}
		return nil
	}
	return fmt.Errorf("no valid answer for %s after %d tries", f.Name, maxFieldTries)
}

// fieldProblem validates content and returns the problem the schema finds
// with field, ignoring fields not asked for yet.
func fieldProblem(schema json.RawMessage, field string, content map[string]any) error {
	err := runtime.ValidateElicitation(schema, content)
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	if ve.Pointer == "/"+jsontree.EscapeToken(field) {
		return errors.New(ve.Reason)
	}
	return nil
}

// parseAnswer converts a typed answer to the field's type.
func parseAnswer(f runtime.ElicitationField, line string) (any, error) {
	if len(f.Enum) > 0 {
		if f.Type == "array" {
			var out []any
			for _, part := range strings.Split(line, ",") {
				v, err := choice(f.Enum, strings.TrimSpace(part))
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			return out, nil
		}
		return choice(f.Enum, line)
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, errors.New("answer y or n")
	case "integer":
		n, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			return nil, errors.New("a whole number is needed")
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(line, 64)
		if err != nil {
			return nil, errors.New("a number is needed")
		}
		return n, nil
	}
	return line, nil
}

// choice returns the enum value a typed number or value names.
func choice(enum []string, s string) (string, error) {
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(enum) {
		return enum[n-1], nil
	}
	for _, v := range enum {
		if v == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("choose a number from 1 to %d", len(enum))
}

func isNo(line string) bool {
	switch strings.ToLower(line) {
	case "n", "no":
		return true
	}
	return false
}
