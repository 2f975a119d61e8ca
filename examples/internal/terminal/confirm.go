// Package terminal asks the user of an example program, on the terminal it
// runs in, whether a tool call the model wants may run.
package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/runtime"
)

// DefaultPath is the controlling terminal of the process.
const DefaultPath = "/dev/tty"

// Confirm asks on a terminal. Its Ask method is a runtime.Confirmation's
// Ask. The terminal is opened for each question and not shared with
// standard input and output, so prompts can come from a pipe.
type Confirm struct {
	// Path is the terminal device; empty means DefaultPath.
	Path string
}

// Ask shows the call and waits for a line: "y" or "yes" runs the call,
// anything else declines it. Without a terminal it declines the call with
// an error saying so. A cancelled ctx stops the wait.
func (c *Confirm) Ask(ctx context.Context, call runtime.ProposedCall) (bool, error) {
	path := c.Path
	if path == "" {
		path = DefaultPath
	}
	tty, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false, errors.New("there is no terminal to ask the user on (--yes runs tool calls without asking)")
	}
	defer tty.Close()
	question := fmt.Sprintf("Run %s %s? [y/N] ", printable(call.Tool.Name), printable(string(call.Arguments)))
	if _, err := tty.WriteString(question); err != nil {
		return false, fmt.Errorf("writing to the terminal: %w", err)
	}
	type answer struct {
		line string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		line, err := bufio.NewReader(tty).ReadString('\n')
		got <- answer{line, err}
	}()
	select {
	case a := <-got:
		if a.err != nil && a.line == "" {
			return false, fmt.Errorf("reading the answer from the terminal: %w", a.err)
		}
		switch strings.ToLower(strings.TrimSpace(a.line)) {
		case "y", "yes":
			return true, nil
		}
		return false, nil
	case <-ctx.Done():
		tty.WriteString("\n")
		tty.Close() // ends the read
		<-got
		return false, ctx.Err()
	}
}

// printable escapes the characters of s that a terminal would interpret,
// so that a server's or a model's text cannot move the cursor or rewrite
// the question.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
