package runtime

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultShutdownTimeout is how long closing a stdio connection waits for
// the server to exit after closing its input, and again after SIGTERM.
// Session.CloseContext cuts both waits short when its context ends.
const DefaultShutdownTimeout = 2 * time.Second

// CommandTransport runs an MCP server as a child process and speaks to it
// over its standard input and output, one JSON-RPC message per line. What the
// server writes to standard error goes to Logger, and its last lines are
// kept for the error that reports the server's exit.
type CommandTransport struct {
	// Command is the program to run, looked up in PATH when it has no
	// slash; Args are its arguments.
	Command string
	Args    []string
	// Env holds KEY=VALUE entries added to the environment the server
	// inherits.
	Env []string
	// Dir is the server's working directory; empty means the current one.
	Dir string
	// MaxMessageSize bounds one incoming line; DefaultMaxMessageSize when
	// zero. A longer line fails only the request it answers.
	MaxMessageSize int
	// Logger receives each line the server writes to standard error, at
	// debug level. Nil discards them.
	Logger *slog.Logger
	// ShutdownTimeout is each of the two waits of Close (after closing the
	// server's input, then after SIGTERM) before the next, harder step;
	// DefaultShutdownTimeout when zero. Session.CloseContext ends the waits
	// early, and kills the server, when its context ends.
	ShutdownTimeout time.Duration
}

// NewCommandTransport returns a transport that runs command with args.
func NewCommandTransport(command string, args ...string) *CommandTransport {
	return &CommandTransport{Command: command, Args: args}
}

// stderrTailLines and stderrTailBytes bound the stderr tail kept for errors.
const (
	stderrTailLines = 20
	stderrTailBytes = 4 << 10
)

// Connect starts the server process.
func (t *CommandTransport) Connect(ctx context.Context) (Conn, error) {
	if t.Command == "" {
		return nil, errors.New("stdio transport: no command to run")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := filepath.Base(t.Command)
	cmd := exec.Command(t.Command, t.Args...)
	cmd.Dir = t.Dir
	if len(t.Env) > 0 {
		cmd.Env = append(os.Environ(), t.Env...)
	}
	setProcessGroup(cmd)

	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("starting server %s: %w", name, err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("starting server %s: %w", name, err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("starting server %s: %w", name, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("starting server %s: %w", name, err)
	}
	// The child holds its own copies of these ends.
	inR.Close()
	outW.Close()
	errW.Close()

	limit := t.MaxMessageSize
	if limit <= 0 {
		limit = DefaultMaxMessageSize
	}
	shutdown := t.ShutdownTimeout
	if shutdown <= 0 {
		shutdown = DefaultShutdownTimeout
	}
	logger := t.Logger
	if logger == nil {
		logger = discardLogger
	}
	c := &stdioConn{
		cmd:        cmd,
		name:       name,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		br:         newLineReader(outR, stdoutBufs),
		limit:      limit,
		shutdown:   shutdown,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		wsem:       make(chan struct{}, 1),
		fast:       newPipeWriter(inW),
	}
	go c.readStderr(logger.With("server", name))
	return c, nil
}

// stdioConn is a Conn to a child process.
type stdioConn struct {
	cmd            *exec.Cmd
	name           string
	stdin          *os.File
	stdout, stderr *os.File
	br             *lineReader
	limit          int
	shutdown       time.Duration

	// wsem holds the turn to write; unlike a mutex, waiting for it can be
	// given up.
	wsem chan struct{}
	// fast writes a message while the pipe has room, with no deadline to
	// arm; only the holder of wsem uses it.
	fast *pipeWriter

	// waitOnce starts the goroutine that reaps the process, once its
	// output ends or the connection closes: an idle connection has no
	// goroutine waiting for the process, only the two that read its pipes.
	waitOnce sync.Once
	exited   chan struct{} // closed once the process is reaped
	waitErr  error

	stderrDone chan struct{}
	tailMu     sync.Mutex
	tail       []string

	// partial is the start of a line that a read deadline or the end of
	// the read buffer interrupted; skipping is set while the rest of an
	// oversize line is being skipped.
	partial  []byte
	skipping *MessageTooLargeError
	// longLine is the length of the last line longer than the read
	// buffer. The next such line starts with room for as much, so that a
	// server that keeps sending large results costs one buffer per line
	// instead of a chain of ever larger ones, each copied into the next.
	longLine int

	closing   atomic.Bool
	closeOnce sync.Once
}

// ConnCapabilities declares that Write is done with its context and its
// data when it returns, and that a deadline interrupts Read.
func (c *stdioConn) ConnCapabilities() ConnCapabilities {
	return ConnCapabilities{
		WriteIgnoresContext: true,
		ReleasesData:        true,
		DeliversInOrder:     true,
		WriteWithin:         c.writeWithin,
		SetReadDeadline:     c.setReadDeadline,
	}
}

// startWait starts reaping the process, once.
func (c *stdioConn) startWait() {
	if c.cmd != nil {
		c.waitOnce.Do(func() { go c.wait() })
	}
}

// wait reaps the process.
func (c *stdioConn) wait() {
	c.waitErr = c.cmd.Wait()
	close(c.exited)
}

// readStderr logs each stderr line and keeps the last ones.
func (c *stdioConn) readStderr(log *slog.Logger) {
	defer close(c.stderrDone)
	r := newLineReader(c.stderr, stderrBufs)
	defer r.release()
	for {
		line, err := r.ReadSlice('\n')
		if len(line) > 0 {
			text := strings.TrimRight(string(line), "\r\n")
			if errors.Is(err, bufio.ErrBufferFull) {
				text += "..."
				// Skip the rest of an overlong line.
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = r.ReadSlice('\n')
				}
			}
			if text != "" {
				log.Debug(text)
				c.addTail(text)
			}
		}
		if err != nil {
			return
		}
	}
}

func (c *stdioConn) addTail(line string) {
	c.tailMu.Lock()
	defer c.tailMu.Unlock()
	c.tail = append(c.tail, line)
	if len(c.tail) > stderrTailLines {
		c.tail = c.tail[len(c.tail)-stderrTailLines:]
	}
	for n := c.tailSize(); n > stderrTailBytes && len(c.tail) > 1; n = c.tailSize() {
		c.tail = c.tail[1:]
	}
}

func (c *stdioConn) tailSize() int {
	n := 0
	for _, l := range c.tail {
		n += len(l) + 1
	}
	return n
}

// stderrTail returns the last stderr lines, joined.
func (c *stdioConn) stderrTail() string {
	c.tailMu.Lock()
	defer c.tailMu.Unlock()
	s := strings.Join(c.tail, "\n")
	if len(s) > stderrTailBytes {
		s = "..." + s[len(s)-stderrTailBytes:]
	}
	return s
}

// exitError waits up to d for the process to exit and returns the error
// describing how it ended.
func (c *stdioConn) exitError(d time.Duration) error {
	status := "stdout closed"
	c.startWait()
	select {
	case <-c.exited:
		status = exitStatus(c.waitErr, c.cmd.ProcessState)
	case <-time.After(d):
	}
	// Let the stderr reader drain what the server wrote last.
	select {
	case <-c.stderrDone:
	case <-time.After(500 * time.Millisecond):
	}
	return &ServerExitedError{Command: c.name, ExitStatus: status, StderrTail: c.stderrTail()}
}

func exitStatus(waitErr error, ps *os.ProcessState) string {
	if ps != nil {
		return ps.String()
	}
	if waitErr != nil {
		return waitErr.Error()
	}
	return ""
}

// Write sends one message as one line.
func (c *stdioConn) Write(ctx context.Context, m *OutMessage) error {
	return c.writeWithin(ctx, m, 0)
}

// writeWithin is Write bounded by d as well as by ctx (d <= 0: by ctx only).
// A server that reads no input fills the pipe and blocks the write; both
// bound the wait for the turn to write and the write itself.
func (c *stdioConn) writeWithin(ctx context.Context, m *OutMessage, d time.Duration) error {
	if c.closing.Load() {
		return ErrClosed
	}
	select {
	case c.wsem <- struct{}{}:
	default:
		if err := c.waitTurn(ctx, d); err != nil {
			return err
		}
	}
	data := m.Data
	var n, k int
	var err error
	// The Session leaves the newline just past the message: then the line
	// goes out in one write, and nearly always at once, with no deadline.
	line := newlinePast(data)
	if err := ctx.Err(); err != nil {
		<-c.wsem
		return err
	}
	if line {
		data = data[:len(data)+1]
		var full bool
		n, full, err = c.fast.writeNow(data)
		if err == nil && !full {
			<-c.wsem
			return nil
		}
		if err != nil {
			<-c.wsem
			if c.closing.Load() {
				return ErrClosed
			}
			return c.exitError(time.Second)
		}
	}
	// The pipe is full: wait for room, bounded by d and ctx.
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	var stop func() bool
	var fired chan struct{}
	if ctx.Done() != nil {
		fired = make(chan struct{})
		stop = context.AfterFunc(ctx, func() {
			c.stdin.SetWriteDeadline(time.Unix(1, 0))
			close(fired)
		})
	}
	if d > 0 {
		c.stdin.SetWriteDeadline(deadline)
	}
	if line {
		k, err = c.stdin.Write(data[n:])
		n += k
	} else if n, err = c.stdin.Write(data); err == nil {
		k, err = c.stdin.Write(newline)
		n += k
	}
	if stop != nil && !stop() {
		<-fired
		d = 1 // the deadline needs clearing
	}
	if d > 0 {
		c.stdin.SetWriteDeadline(time.Time{})
	}
	<-c.wsem
	if err == nil {
		return nil
	}
	if c.closing.Load() {
		return ErrClosed
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		reason := ctx.Err()
		if reason == nil {
			reason = ErrWriteTimeout
		}
		if n == 0 {
			return reason
		}
		// Part of the line went out: what follows would be read as its
		// rest. Closing the server's input tells it no more is coming.
		c.stdin.Close()
		return fmt.Errorf("server %s stopped reading its input in the middle of a message; its input is closed: %w", c.name, reason)
	}
	return c.exitError(time.Second)
}

// waitTurn waits for the turn to write, at most d (d <= 0: no limit) and
// until ctx ends.
func (c *stdioConn) waitTurn(ctx context.Context, d time.Duration) error {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case c.wsem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timeout:
		return ErrWriteTimeout
	}
}

var newline = []byte{'\n'}

// Read returns the next non-empty line from the server. When a read
// deadline set with setReadDeadline passes, it returns an error matching
// os.ErrDeadlineExceeded and keeps the part of a line read so far for the
// next Read.
func (c *stdioConn) Read(context.Context) ([]byte, error) {
	for {
		line, err := c.readLine()
		if err != nil {
			var tl *MessageTooLargeError
			if errors.As(err, &tl) || errors.Is(err, os.ErrDeadlineExceeded) {
				return nil, err
			}
			if c.closing.Load() {
				return nil, ErrClosed
			}
			return nil, c.exitError(2 * time.Second)
		}
		if len(line) > 0 {
			return line, nil
		}
	}
}

// setReadDeadline bounds the current and later Reads; the zero time removes
// the bound.
func (c *stdioConn) setReadDeadline(t time.Time) error { return c.stdout.SetReadDeadline(t) }

// tooLargeKeep is how many bytes of each end of an oversize line are kept.
const tooLargeKeep = 1024

// readLine reads one line, without its line ending, as a fresh slice.
func (c *stdioConn) readLine() ([]byte, error) {
	if c.partial == nil && c.skipping == nil {
		line, err := c.br.ReadSlice('\n')
		if err == nil {
			line = trimEOL(line)
			if len(line) > c.limit {
				return nil, &MessageTooLargeError{Limit: c.limit, Prefix: bytes.Clone(line[:min(len(line), tooLargeKeep)]), Suffix: bytes.Clone(line[max(0, len(line)-tooLargeKeep):])}
			}
			return bytes.Clone(line), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, eofError(err)
		}
		size := 2 * len(line)
		if errors.Is(err, bufio.ErrBufferFull) {
			size = max(size, min(c.longLine+c.longLine/8, c.limit+1))
		}
		c.partial = append(make([]byte, 0, size), line...)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, err
		}
	}
	return c.readRest()
}

// readRest goes on with a line longer than the read buffer, or one a read
// deadline interrupted: it completes c.partial, or skips the rest of an
// oversize line while c.skipping is set. Both survive a read deadline.
func (c *stdioConn) readRest() ([]byte, error) {
	for {
		frag, err := c.br.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, os.ErrDeadlineExceeded) {
			// The line never ended: the server is gone.
			c.partial, c.skipping = nil, nil
			return nil, eofError(err)
		}
		end := err == nil
		if c.skipping != nil {
			c.skip(frag, end)
		} else {
			c.partial = append(c.partial, frag...)
			if end {
				c.partial = trimEOL(c.partial)
			}
			if len(c.partial) > c.limit {
				c.skipping = &MessageTooLargeError{Limit: c.limit, Prefix: bytes.Clone(c.partial[:min(len(c.partial), tooLargeKeep)])}
				c.skip(c.partial[max(0, len(c.partial)-2*tooLargeKeep):], end)
				c.partial = nil
			}
		}
		switch {
		case !end && err != nil && !errors.Is(err, bufio.ErrBufferFull):
			return nil, err // a read deadline: the line goes on at the next Read
		case !end:
			continue
		case c.skipping != nil:
			e := c.skipping
			c.skipping = nil
			return nil, e
		default:
			line := c.partial
			c.partial = nil
			c.longLine = len(line)
			if cap(line) > 2*len(line) {
				// A line much shorter than the last long one: keep only
				// what it needs.
				line = bytes.Clone(line)
			}
			return line, nil
		}
	}
}

// skip adds frag, a piece of the oversize line being skipped, to the kept
// tail of that line; end marks the line's last piece.
func (c *stdioConn) skip(frag []byte, end bool) {
	e := c.skipping
	e.Suffix = append(e.Suffix, frag...)
	if end {
		e.Suffix = trimEOL(e.Suffix)
	}
	if n := len(e.Suffix); n > 2*tooLargeKeep || (end && n > tooLargeKeep) {
		e.Suffix = append(e.Suffix[:0], e.Suffix[n-tooLargeKeep:]...)
	}
}

func eofError(err error) error {
	if err == nil {
		return io.ErrUnexpectedEOF
	}
	return err
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, newline)
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// Close stops the server as closeContext does, with no bound but the two
// waits of ShutdownTimeout.
func (c *stdioConn) Close() error { return c.closeContext(context.Background()) }

// closeContext stops the server: it closes the server's input, waits, sends
// SIGTERM, waits again, then kills it, and always reaps it. Each wait is
// ShutdownTimeout at most and ends when ctx does, so that a server that
// ignores both its input closing and SIGTERM is killed once ctx is done.
func (c *stdioConn) closeContext(ctx context.Context) error {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.startWait()
		c.stdin.Close()
		if !c.waitExit(ctx, c.shutdown) {
			terminate(c.cmd)
			if !c.waitExit(ctx, c.shutdown) {
				kill(c.cmd)
				<-c.exited
			}
		}
		// A grandchild may still hold the pipes; stop reading them.
		c.stdout.Close()
		c.stderr.Close()
		<-c.stderrDone
	})
	return nil
}

// waitExit waits up to d, and until ctx ends, for the process to exit.
func (c *stdioConn) waitExit(ctx context.Context, d time.Duration) bool {
	select {
	case <-c.exited:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}
