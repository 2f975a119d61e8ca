//go:build unix

package runtime

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestStdioReaderReleasesBufferWhileIdle checks that a connection waiting
// for the server's next line holds no read buffer, and that lines longer
// than the buffer, and several lines in one write, still read whole.
func TestStdioReaderReleasesBufferWhileIdle(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	pool := newPipeBufPool(64)
	c := &stdioConn{stdout: r, br: newLineReader(r, pool), limit: 1 << 20}

	lines := make(chan string)
	errs := make(chan error, 1)
	go func() {
		for {
			line, err := c.Read(context.Background())
			if err != nil {
				errs <- err
				return
			}
			lines <- string(line)
		}
	}()
	idle := func(when string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for pool.out.Load() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the waiting reader holds %d buffers; want none", when, pool.out.Load())
			}
			time.Sleep(time.Millisecond)
		}
	}
	idle("before any line")
	long := strings.Repeat("x", 300)
	w.WriteString(`{"a":1}` + "\n" + long + "\n")
	for _, want := range []string{`{"a":1}`, long} {
		if got := <-lines; got != want {
			t.Fatalf("read %q; want %q", got, want)
		}
	}
	idle("after two lines")
	w.WriteString("half")
	w.WriteString(" and the rest\n")
	if got := <-lines; got != "half and the rest" {
		t.Fatalf("read %q", got)
	}
	idle("after a line in two writes")
	w.Close()
	if err := <-errs; err == nil {
		t.Fatal("no error at the end of the output")
	}
	if pool.out.Load() != 0 {
		t.Errorf("the reader kept a buffer after the output ended")
	}
}
