package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// stream is a connection that carries one message at a time both ways: a
// runtime.MemoryPeer, or the lines of stdio.
type stream interface {
	Read(ctx context.Context) ([]byte, error)
	Write(ctx context.Context, msg []byte) error
}

// Connect returns a runtime.Session connected to the server in memory,
// negotiating the protocol version as it would with any server: opts's
// ProtocolVersion pins the era. ctx bounds the negotiation only. Closing
// the Session ends the connection and the context of its calls.
func (s *Server) Connect(ctx context.Context, opts *runtime.Options) (*runtime.Session, error) {
	return runtime.Connect(ctx, s.Transport(), opts)
}

// Transport returns a runtime.MemoryTransport whose connections this
// server answers.
func (s *Server) Transport() *runtime.MemoryTransport {
	return &runtime.MemoryTransport{Serve: func(ctx context.Context, peer *runtime.MemoryPeer) {
		_ = s.serveStream(ctx, peer)
	}}
}

// Serve serves one connection over stdio: it reads newline-delimited
// JSON-RPC messages from r and writes its answers to w, one line each. It
// returns nil when r ends, once the calls in flight have been answered and
// their answers written: the end of r cancels them, as a client that has
// closed its end can no longer cancel them itself. It returns the error of
// ctx when ctx ends first, after cancelling them; a read of r or a write
// to w that blocks then goes on in the background until it returns. A line
// longer than Options.MaxMessageSize is answered with an error and skipped.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	lines := &lineStream{lines: make(chan lineRead, 1), out: make(chan []byte), done: make(chan struct{})}
	defer close(lines.done)
	go lines.readAll(bufio.NewReaderSize(r, 64<<10), s.opts.MaxMessageSize)
	written := make(chan struct{})
	go lines.writeAll(w, written)
	err := s.serveStream(ctx, lines)
	if errors.Is(err, io.EOF) {
		// Every answer has been handed to writeAll: wait for it to
		// write them, as long as ctx allows.
		close(lines.out)
		select {
		case <-written:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}

// serveStream answers the messages of one connection until it ends. Each
// request runs in a goroutine of its own, at most maxInFlight at once; the
// others wait for their turn, up to maxQueued requests or maxQueuedBytes in
// all, while the loop goes on reading. notifications/cancelled cancels the
// request it names, running or waiting, whose response is then not sent; a
// response goes to the handler whose request it answers. On a connection
// initialized with 2025-03-26, a batch is answered with the array of the
// responses to its requests, once they have all been answered. It returns
// the error that ended the reading, after cancelling the requests in
// flight and waiting for them to end; their answers are still written.
func (s *Server) serveStream(ctx context.Context, st stream) error {
	c := &conn{inflight: map[string]*flight{}}
	slots := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	defer wg.Wait()
	// The handlers' contexts end with the reading; writes go on with ctx.
	hctx, stop := context.WithCancel(ctx)
	defer stop()
	// No answer to a request a handler sent can come once the reading
	// ends.
	defer c.asks.end()
	reply := func(b []byte) {
		// A write fails only when the connection is gone, and then
		// nobody waits for the answer.
		_ = st.Write(ctx, b)
	}
	// handle handles one message, alone or an item of a batch, and hands
	// send its answer once there is one, nil when there is none.
	handle := func(data []byte, send func([]byte), batched bool) {
		m, perr := parse(data)
		if perr != nil {
			c.asks.refuse(data, perr)
			send(response(nil, nil, perr))
			return
		}
		if m.Method == "" {
			// A response to a request a handler sent.
			c.asks.deliver(m)
			send(nil)
			return
		}
		if len(m.ID) == 0 {
			c.notification(m)
			send(nil)
			return
		}
		req, rerr := s.settle(m, c, "")
		if rerr == nil && batched {
			rerr = unbatchable(req)
		}
		if rerr != nil {
			send(response(m.ID, nil, rerr))
			return
		}
		key := idKey(m.ID)
		rctx, cancel := context.WithCancel(withAsker(hctx, &streamAsker{c: c, st: st, ctx: ctx, timeout: s.opts.AskTimeout}))
		f := &flight{cancel: cancel, size: len(data)}
		if err := c.admit(key, f); err != nil {
			cancel()
			send(response(m.ID, nil, err))
			return
		}
		// The request waits for a slot in a goroutine of its own, so that
		// the loop goes on reading, cancellations included.
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res json.RawMessage
			var e *runtime.RPCError
			select {
			case slots <- struct{}{}:
				res, e = s.answer(rctx, req, c)
				<-slots
			case <-rctx.Done():
				e = rpcError(runtime.CodeInternalError, "the request ended before it started")
			}
			c.mu.Lock()
			delete(c.inflight, key)
			c.held -= f.size
			cancelled := f.cancelled
			c.mu.Unlock()
			cancel()
			if cancelled {
				send(nil)
			} else {
				send(response(req.id, res, e))
			}
		}()
	}
	sendAlone := func(b []byte) {
		if b != nil {
			reply(b)
		}
	}
	for {
		data, err := st.Read(ctx)
		if err != nil {
			return err
		}
		if len(data) > s.opts.MaxMessageSize {
			e := rpcError(runtime.CodeInvalidRequest, fmt.Sprintf("the message exceeds the %d-byte limit", s.opts.MaxMessageSize))
			c.asks.refuse(data, e)
			reply(response(nil, nil, e))
			continue
		}
		if !isBatch(data) {
			handle(data, sendAlone, false)
			continue
		}
		c.mu.Lock()
		version := c.version
		c.mu.Unlock()
		items, e := s.batchItems(data, version)
		if e != nil {
			reply(response(nil, nil, e))
			continue
		}
		b := &batchReply{pending: len(items), send: reply}
		for _, item := range items {
			handle(item, b.add, true)
		}
	}
}

// batchReply gathers the answers to the items of a batch, and sends them
// as one array once every item has been answered, or nothing when none of
// them needed an answer.
type batchReply struct {
	mu      sync.Mutex
	pending int
	out     [][]byte
	send    func([]byte)
}

// add takes the answer of one item, nil when it needs none.
func (b *batchReply) add(msg []byte) {
	b.mu.Lock()
	if msg != nil {
		b.out = append(b.out, msg)
	}
	b.pending--
	done := b.pending == 0 && len(b.out) > 0
	b.mu.Unlock()
	if done {
		b.send(joinBatch(b.out))
	}
}

// streamAsker is the asker of a legacy request on a stdio or in-memory
// connection: it sends its request on the connection, and the loop of
// serveStream hands it the answer.
type streamAsker struct {
	c       *conn
	st      stream
	ctx     context.Context // the connection's
	timeout time.Duration   // Options.AskTimeout
}

func (a *streamAsker) offers(method, mode string) (bool, bool) {
	a.c.mu.Lock()
	defer a.c.mu.Unlock()
	return offers(a.c.caps, method, mode), true
}

func (a *streamAsker) ask(ctx context.Context, method string, params []byte) (json.RawMessage, error) {
	send := func(msg []byte) error { return a.st.Write(a.ctx, msg) }
	return await(ctx, &a.c.asks, send, method, params, a.timeout)
}

// lineStream is the stream of Serve: lines read, and lines written, by
// goroutines of their own, so that a Read or a Write ends with its context
// even when the client stops writing or reading.
type lineStream struct {
	lines chan lineRead
	out   chan []byte
	done  chan struct{}
}

type lineRead struct {
	data []byte
	err  error
}

// readAll reads r's lines into s.lines until r ends or Serve returns. A line
// over max bytes is passed on cut to max+1 bytes, which serveStream
// refuses, so that memory stays bounded.
func (s *lineStream) readAll(r *bufio.Reader, max int) {
	for {
		line, err := readLine(r, max)
		if len(bytes.TrimSpace(line)) > 0 || err != nil {
			select {
			case s.lines <- lineRead{line, err}:
			case <-s.done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line without its end, keeping at most max+1 bytes of
// it.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(line) <= max {
			line = append(line, frag[:min(len(frag), max+1-len(line))]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil && len(line) > 0 && err == io.EOF:
			return bytes.TrimRight(line, "\r\n"), nil
		case err != nil:
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

func (s *lineStream) Read(ctx context.Context) ([]byte, error) {
	select {
	case l := <-s.lines:
		return l.data, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write hands msg to writeAll, unless ctx ends or Serve returns first.
func (s *lineStream) Write(ctx context.Context, msg []byte) error {
	select {
	case s.out <- append(msg, '\n'):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return io.ErrClosedPipe
	}
}

// writeAll writes the lines Write hands it to w, one at a time, until Serve
// closes s.out or returns, then closes written. After a write fails it
// takes the lines without writing them, as the client is gone.
func (s *lineStream) writeAll(w io.Writer, written chan<- struct{}) {
	defer close(written)
	var failed bool
	for {
		select {
		case line, ok := <-s.out:
			if !ok {
				return
			}
			if !failed {
				_, err := w.Write(line)
				failed = err != nil
			}
		case <-s.done:
			return
		}
	}
}

// admit records f as the request key in flight on c. It refuses a key
// already in flight, and a request beyond maxQueued of them or beyond
// maxQueuedBytes of messages held, so that a client that sends faster than
// the handlers answer holds bounded memory; a request alone is always
// admitted.
func (c *conn) admit(key string, f *flight) *runtime.RPCError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[key] != nil {
		return rpcError(runtime.CodeInvalidRequest, "request id "+key+" is already in flight")
	}
	if len(c.inflight) >= maxQueued || len(c.inflight) > 0 && c.held+f.size > maxQueuedBytes {
		return rpcError(runtime.CodeInternalError, fmt.Sprintf("the server holds %d requests of %d bytes in all on this connection, at most %d or %d bytes; try again later", len(c.inflight), c.held, maxQueued, maxQueuedBytes))
	}
	c.inflight[key] = f
	c.held += f.size
	return nil
}
