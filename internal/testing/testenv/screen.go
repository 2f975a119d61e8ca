package testenv

import (
	"os"
	"strings"
	"testing"
	"time"
)

// Screen collects what the program writes to a pseudo-terminal.
type Screen struct {
	text chan string
	seen strings.Builder
}

// Watch reads the controlling side of a pseudo-terminal until it closes.
func Watch(ptmx *os.File) *Screen {
	s := &Screen{text: make(chan string, 64)}
	go func() {
		buf := make([]byte, 1024)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				s.text <- string(buf[:n])
			}
			if err != nil {
				close(s.text)
				return
			}
		}
	}()
	return s
}

// WaitFor waits until want has appeared on the screen, failing the test if
// it has not shortly before the test's deadline.
func (s *Screen) WaitFor(t testing.TB, want string) {
	t.Helper()
	deadline := time.After(WaitLimit(t))
	for !strings.Contains(s.seen.String(), want) {
		select {
		case text, ok := <-s.text:
			if !ok {
				t.Fatalf("the terminal closed; it shows %q, want %q", s.seen.String(), want)
			}
			s.seen.WriteString(text)
		case <-deadline:
			t.Fatalf("the terminal shows %q, want %q", s.seen.String(), want)
		}
	}
}

// Seen returns what the screen has shown so far.
func (s *Screen) Seen() string {
	for {
		select {
		case text, ok := <-s.text:
			if !ok {
				return s.seen.String()
			}
			s.seen.WriteString(text)
		default:
			return s.seen.String()
		}
	}
}
