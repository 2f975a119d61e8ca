package runtime

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// A lineReader reads lines from a pipe, as bufio.Reader's ReadSlice does,
// into a buffer it borrows from a pool only while bytes are buffered or
// arriving: where the pipe can be waited on without a buffer (see
// readPipe), a reader with nothing buffered gives its buffer back before
// it waits, so that an idle connection holds none.
type lineReader struct {
	f    *os.File
	pool *pipeBufPool
	buf  []byte // nil while none is borrowed
	bp   *[]byte
	r, w int   // buf[r:w] is buffered
	err  error // a read error held back until the bytes before it are read
	pipe pipeReader
	held atomic.Bool // a buffer is borrowed; for tests
}

// pipeBufPool is a pool of buffers of one size.
//
// The buffer given back last waits in spare, where any goroutine finds it.
// A sync.Pool keeps what was put on one processor in a slot that the others
// do not look in, so a reader that gives its buffer back on one processor
// and borrows again on another would allocate a second buffer: in a fresh
// process, the first session's second answer did, 64 KiB more than its
// first.
type pipeBufPool struct {
	size  int
	spare atomic.Pointer[[]byte]
	p     sync.Pool
	out   atomic.Int64 // buffers borrowed and not given back
}

// get borrows a buffer.
func (bp *pipeBufPool) get() *[]byte {
	if b := bp.spare.Swap(nil); b != nil {
		return b
	}
	return bp.p.Get().(*[]byte)
}

// put gives a buffer back.
func (bp *pipeBufPool) put(b *[]byte) {
	if !bp.spare.CompareAndSwap(nil, b) {
		bp.p.Put(b)
	}
}

func newPipeBufPool(size int) *pipeBufPool {
	bp := &pipeBufPool{size: size}
	bp.p.New = func() any {
		b := make([]byte, bp.size)
		return &b
	}
	return bp
}

// The pools of the stdio transport: the server's output, one message per
// line, and its standard error.
var (
	stdoutBufs = newPipeBufPool(64 << 10)
	stderrBufs = newPipeBufPool(4 << 10)
)

func newLineReader(f *os.File, pool *pipeBufPool) *lineReader {
	r := &lineReader{f: f, pool: pool}
	r.pipe.init(r)
	return r
}

// borrow takes a buffer from the pool.
func (r *lineReader) borrow() {
	r.pool.out.Add(1)
	r.held.Store(true)
	r.bp = r.pool.get()
	r.buf = *r.bp
}

// release gives the buffer back, when nothing is buffered.
func (r *lineReader) release() {
	if r.buf == nil || r.r != r.w {
		return
	}
	r.pool.out.Add(-1)
	r.held.Store(false)
	r.pool.put(r.bp)
	r.buf, r.bp, r.r, r.w = nil, nil, 0, 0
}

// ReadSlice reads until the first delim, as bufio.Reader.ReadSlice does:
// the slice points into the buffer and is valid until the next read; a
// buffer full without delim returns its bytes with bufio.ErrBufferFull,
// and an error returns the bytes buffered before it.
func (r *lineReader) ReadSlice(delim byte) ([]byte, error) {
	searched := 0
	for {
		if i := bytes.IndexByte(r.buf[r.r+searched:r.w], delim); i >= 0 {
			end := r.r + searched + i + 1
			line := r.buf[r.r:end]
			r.r = end
			return line, nil
		}
		searched = r.w - r.r
		if r.buf != nil && searched == len(r.buf) {
			line := r.buf[r.r:r.w]
			r.r = r.w
			return line, bufio.ErrBufferFull
		}
		if err := r.fill(); err != nil {
			line := r.buf[r.r:r.w]
			r.r = r.w
			return line, err
		}
	}
}

// fill reads more bytes after the buffered ones.
func (r *lineReader) fill() error {
	if r.err != nil {
		err := r.err
		r.err = nil
		return err
	}
	if r.r > 0 {
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	}
	n, err := r.pipe.read()
	r.w += n
	if n > 0 {
		r.err = err
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}
