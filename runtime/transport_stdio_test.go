package runtime

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// pipeConn returns a stdioConn reading the read end of a pipe through a
// buffer of 16 bytes, and the write end.
func pipeConn(t *testing.T, limit int) (*stdioConn, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return &stdioConn{stdout: r, br: newLineReader(r, newPipeBufPool(16)), limit: limit}, w
}

// TestStdioReadSurvivesDeadline writes lines in pieces with read deadlines
// passing in between: no byte is lost, and an oversize line is still
// reported whole.
func TestStdioReadSurvivesDeadline(t *testing.T) {
	long := strings.Repeat("0123456789", 10)
	tests := []struct {
		name   string
		pieces []string
		limit  int
		want   string // the line, or "" for a *MessageTooLargeError
	}{
		{"short", []string{`{"a":`, `1}` + "\n"}, 1000, `{"a":1}`},
		{"crlf split", []string{"abc\r", "\n"}, 1000, "abc"},
		{"longer than the buffer", []string{long[:7], long[7:40], long[40:] + "\n"}, 1000, long},
		{"oversize", []string{long[:30], long[30:70], long[70:] + "\n"}, 40, ""},
		{"oversize in one piece", []string{"hello world\n"}, 4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, w := pipeConn(t, tt.limit)
			for _, p := range tt.pieces[:len(tt.pieces)-1] {
				w.WriteString(p)
				c.setReadDeadline(time.Now().Add(20 * time.Millisecond))
				if line, err := c.Read(context.Background()); !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("Read with half a line: %q, %v; want a deadline error", line, err)
				}
			}
			c.setReadDeadline(time.Time{})
			w.WriteString(tt.pieces[len(tt.pieces)-1] + "next\n")
			line, err := c.Read(context.Background())
			whole := strings.TrimSuffix(strings.Join(tt.pieces, ""), "\n")
			if tt.want == "" {
				var tl *MessageTooLargeError
				if !errors.As(err, &tl) {
					t.Fatalf("Read: %q, %v; want a *MessageTooLargeError", line, err)
				}
				if !strings.HasPrefix(whole, string(tl.Prefix)) || len(tl.Prefix) <= tt.limit || !strings.HasSuffix(whole, string(tl.Suffix)) || len(tl.Suffix) == 0 {
					t.Errorf("kept %q…%q of %q", tl.Prefix, tl.Suffix, whole)
				}
			} else if err != nil || string(line) != tt.want {
				t.Fatalf("Read: %q, %v; want %q", line, err, tt.want)
			}
			if line, err := c.Read(context.Background()); err != nil || !bytes.Equal(line, []byte("next")) {
				t.Errorf("the next Read: %q, %v", line, err)
			}
		})
	}
}
