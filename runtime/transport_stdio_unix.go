//go:build unix

package runtime

import (
	"io"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup starts the server in a process group of its own, so that
// stopping it also stops the processes it started (npx, for one, runs the
// real server as its child).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminate asks the server's process group to exit.
func terminate(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
}

// kill kills the server's process group.
func kill(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// pipeWriter writes to the server's input pipe without waiting: a pipe with
// room takes a message in one write(2), which needs no deadline, and so no
// timer, on the hot path. Its fields are used only by the goroutine that
// holds the turn to write.
type pipeWriter struct {
	raw  syscall.RawConn
	fn   func(fd uintptr) bool // write, made once so a call allocates nothing
	buf  []byte
	n    int
	full bool
	err  error
}

func newPipeWriter(f *os.File) *pipeWriter {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	w := &pipeWriter{raw: raw}
	w.fn = w.write
	return w
}

func (w *pipeWriter) write(fd uintptr) bool {
	for w.n < len(w.buf) {
		k, err := syscall.Write(int(fd), w.buf[w.n:])
		if k > 0 {
			w.n += k
		}
		switch err {
		case nil:
		case syscall.EINTR:
		case syscall.EAGAIN:
			w.full = true
			return true
		default:
			w.err = err
			return true
		}
	}
	return true
}

// writeNow writes as much of b as the pipe takes without blocking. full
// reports that the pipe filled up before all of b went out; n counts the
// bytes written.
func (w *pipeWriter) writeNow(b []byte) (n int, full bool, err error) {
	if w == nil {
		return 0, true, nil
	}
	w.buf, w.n, w.full, w.err = b, 0, false, nil
	if err := w.raw.Write(w.fn); err != nil {
		w.err = err
	}
	n, full, err = w.n, w.full, w.err
	w.buf = nil
	return n, full, err
}

// pipeReader reads the server's output or standard error pipe for a
// lineReader. A read that finds the pipe empty gives the lineReader's
// buffer back before it waits, and borrows one again when bytes arrive:
// an idle connection holds no read buffer.
type pipeReader struct {
	lr  *lineReader
	raw syscall.RawConn
	fn  func(fd uintptr) bool // made once so a read allocates nothing
	n   int
	err error
}

func (p *pipeReader) init(lr *lineReader) {
	p.lr = lr
	if raw, err := lr.f.SyscallConn(); err == nil {
		p.raw = raw
		p.fn = p.readFd
	}
}

// read reads into the free part of the lineReader's buffer.
func (p *pipeReader) read() (int, error) {
	if p.raw == nil {
		if p.lr.buf == nil {
			p.lr.borrow()
		}
		return p.lr.f.Read(p.lr.buf[p.lr.w:])
	}
	p.n, p.err = 0, nil
	if err := p.raw.Read(p.fn); err != nil {
		return 0, err
	}
	return p.n, p.err
}

func (p *pipeReader) readFd(fd uintptr) bool {
	r := p.lr
	for {
		if r.buf == nil {
			r.borrow()
		}
		n, err := syscall.Read(int(fd), r.buf[r.w:])
		switch {
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			r.release() // nothing buffered: wait without a buffer
			return false
		case err != nil:
			p.err = os.NewSyscallError("read", err)
			return true
		case n == 0:
			r.release()
			p.err = io.EOF
			return true
		default:
			p.n = n
			return true
		}
	}
}
