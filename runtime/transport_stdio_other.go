//go:build !unix

package runtime

import (
	"os"
	"os/exec"
)

// setProcessGroup does nothing where process groups do not exist.
func setProcessGroup(*exec.Cmd) {}

// terminate stops the server; without signals it is a kill.
func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// kill kills the server.
func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// pipeWriter has no fast path here: every write takes the deadline path.
type pipeWriter struct{}

func newPipeWriter(*os.File) *pipeWriter { return nil }

func (*pipeWriter) writeNow([]byte) (int, bool, error) { return 0, true, nil }

// pipeReader reads the server's pipes with a buffer borrowed at the first
// read and kept: here a pipe cannot be waited on without reading it.
type pipeReader struct{ lr *lineReader }

func (p *pipeReader) init(lr *lineReader) { p.lr = lr }

func (p *pipeReader) read() (int, error) {
	if p.lr.buf == nil {
		p.lr.borrow()
	}
	return p.lr.f.Read(p.lr.buf[p.lr.w:])
}
