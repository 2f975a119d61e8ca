//go:build unix

package runtime

import (
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
