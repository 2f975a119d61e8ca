package terminal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
)

// EachLine calls f with each non-empty line of r, without its surrounding
// spaces, until r ends, f fails or ctx is done, and returns the error that
// ended it, if any. A done ctx ends the wait for the next line at once: a
// program that takes its prompts from standard input ends when interrupted,
// though a read of a terminal cannot be cut short. The read then left
// waiting ends with r.
func EachLine(ctx context.Context, r io.Reader, f func(line string) error) error {
	type line struct {
		text string
		err  error // the end of r: nil at EOF
		end  bool
	}
	lines := make(chan line)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		send := func(l line) bool {
			select {
			case lines <- l:
				return true
			case <-stop:
				return false
			}
		}
		s := bufio.NewScanner(r)
		for s.Scan() {
			if !send(line{text: s.Text()}) {
				return
			}
		}
		send(line{err: s.Err(), end: true})
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l := <-lines:
			if l.end {
				if l.err != nil {
					return fmt.Errorf("reading the input: %w", l.err)
				}
				return nil
			}
			if text := strings.TrimSpace(l.text); text != "" {
				if err := f(text); err != nil {
					return err
				}
			}
		}
	}
}
