package runtime

import (
	"context"
	"errors"
	"sync"
)

// MemoryTransport connects a Session to a server in the same process. The
// messages pass through channels as they are, with no framing, so that a
// test reaches a server written in Go through the whole of the Session:
// negotiation, validation, cancellation and results.
type MemoryTransport struct {
	// Serve runs the server's side of one connection, in a goroutine of
	// its own that Connect starts. It should return once ctx is done,
	// which it is when the Session closes the connection.
	Serve func(ctx context.Context, peer *MemoryPeer)
}

// memoryQueue is how many messages each direction of a MemoryTransport
// connection holds before a writer waits for the reader.
const memoryQueue = 16

// Connect starts Serve with the server's end of a new connection.
func (t *MemoryTransport) Connect(ctx context.Context) (Conn, error) {
	if t == nil || t.Serve == nil {
		return nil, errors.New("memory transport: Serve is nil")
	}
	c := &memoryConn{
		toServer: make(chan []byte, memoryQueue),
		toClient: make(chan []byte, memoryQueue),
		closed:   make(chan struct{}),
	}
	sctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go t.Serve(sctx, &MemoryPeer{c: c})
	return c, nil
}

// MemoryPeer is the server's end of a MemoryTransport connection.
type MemoryPeer struct {
	c *memoryConn
}

// Read returns the next message the Session wrote: one JSON-RPC message,
// owned by the caller. It returns ErrClosed once the Session has closed the
// connection, and the error of ctx when ctx ends first.
func (p *MemoryPeer) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-p.c.toServer:
		return b, nil
	case <-p.c.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write hands one JSON-RPC message to the Session, which reads it as the
// server's. It waits while the Session has not read the earlier ones, and
// returns ErrClosed once the connection is closed. Write is done with msg
// when it returns.
func (p *MemoryPeer) Write(ctx context.Context, msg []byte) error {
	return memorySend(ctx, p.c.toClient, p.c.closed, msg)
}

// memoryConn is the Session's end of a MemoryTransport connection.
type memoryConn struct {
	toServer, toClient chan []byte
	closed             chan struct{}
	once               sync.Once
	cancel             context.CancelFunc
}

// ConnCapabilities declares that Write keeps neither its context nor the
// message's bytes once it returns.
func (c *memoryConn) ConnCapabilities() ConnCapabilities {
	return ConnCapabilities{WriteIgnoresContext: true, ReleasesData: true}
}

func (c *memoryConn) Write(ctx context.Context, m *OutMessage) error {
	return memorySend(ctx, c.toServer, c.closed, m.Data)
}

func (c *memoryConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-c.toClient:
		return b, nil
	case <-c.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close closes the connection and ends the context of Serve.
func (c *memoryConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.cancel()
	})
	return nil
}

// memorySend queues a copy of msg on ch, waiting while ch is full, unless closed
// is closed or ctx ends first.
func memorySend(ctx context.Context, ch chan<- []byte, closed <-chan struct{}, msg []byte) error {
	select {
	case <-closed:
		return ErrClosed
	default:
	}
	b := append([]byte(nil), msg...)
	select {
	case ch <- b:
		return nil
	case <-closed:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}
