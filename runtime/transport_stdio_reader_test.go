//go:build unix

package runtime

import (
	"context"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
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

// TestPipeBufPoolReusesAcrossProcessors checks that the buffer a reader
// gave back is the one the next reader borrows, on whatever processor it
// runs. A sync.Pool alone keeps a buffer put on one processor where the
// others do not look: a session whose reads moved between processors
// allocated a second 64 KiB buffer.
func TestPipeBufPoolReusesAcrossProcessors(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(4))
	pool := newPipeBufPool(64)
	var made atomic.Int64
	pool.p.New = func() any {
		made.Add(1)
		b := make([]byte, pool.size)
		return &b
	}
	// Two goroutines that never block, so that each keeps a processor of
	// its own, take turns to borrow a buffer and give it back.
	const rounds = 20
	var turn atomic.Int64
	var wg sync.WaitGroup
	for i := range int64(2) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r := turn.Load()
				if r >= rounds {
					return
				}
				if r%2 != i {
					continue
				}
				b := pool.get()
				(*b)[0]++
				pool.put(b)
				turn.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := made.Load(); n != 1 {
		t.Errorf("%d buffers made for %d reads in turns; want 1", n, rounds)
	}
}
