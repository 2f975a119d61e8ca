package sse

import (
	"io"
	"strings"
	"testing"
)

// idleSrc serves chunks one Read at a time and records, at each Read,
// whether the Reader held a buffer while it waited with nothing buffered.
type idleSrc struct {
	r      *Reader
	chunks []string
	held   int // Reads made with nothing buffered while a buffer was held
	reads  int
}

func (s *idleSrc) Read(p []byte) (int, error) {
	if len(s.chunks) == 0 {
		return 0, io.EOF
	}
	s.reads++
	if s.r.end == 0 && s.r.buf != nil {
		s.held++
	}
	n := copy(p, s.chunks[0])
	if n < len(s.chunks[0]) {
		s.chunks[0] = s.chunks[0][n:]
	} else {
		s.chunks = s.chunks[1:]
	}
	return n, nil
}

// TestReleaseWhileIdle reads events split across reads, a multi-line one
// and one larger than the buffer, with ReleaseWhileIdle: every event
// arrives whole, and no read that waits with nothing buffered holds a
// buffer.
func TestReleaseWhileIdle(t *testing.T) {
	big := strings.Repeat("b", 3*initialBuffer)
	src := &idleSrc{chunks: []string{
		"id: 1\r", "\ndata: {\"a\":1}\r\n\r\n",
		"data: one\ndata: two\n\n",
		"data: " + big + "\n\n",
		"event: x\ndata: last\n\n",
	}}
	r := NewReader(src, 0)
	defer r.Release()
	src.r = r
	r.ReleaseWhileIdle()
	want := []string{`{"a":1}`, "one\ntwo", big, "last"}
	for i, w := range want {
		ev, err := r.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if string(ev.Data) != w {
			t.Fatalf("event %d: data of %d bytes; want %d", i, len(ev.Data), len(w))
		}
	}
	if r.LastID() != "1" {
		t.Errorf("last id %q; want 1", r.LastID())
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last event: %v; want io.EOF", err)
	}
	if src.held != 0 {
		t.Errorf("%d of %d reads waited with a buffer held and nothing in it", src.held, src.reads)
	}
}
