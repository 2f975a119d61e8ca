package runtime

import (
	"context"
	"errors"
	"testing"
)

// A MemoryTransport hands each message to the other end as it is, and
// closing the Session's end ends the server's context and Read.
func TestMemoryTransport(t *testing.T) {
	if _, err := (&MemoryTransport{}).Connect(context.Background()); err == nil {
		t.Fatal("a MemoryTransport without Serve connected")
	}
	ended := make(chan error, 1)
	got := make(chan []byte, 1)
	tr := &MemoryTransport{Serve: func(ctx context.Context, peer *MemoryPeer) {
		msg, err := peer.Read(ctx)
		if err != nil {
			ended <- err
			return
		}
		got <- msg
		if err := peer.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); err != nil {
			ended <- err
			return
		}
		_, err = peer.Read(ctx)
		<-ctx.Done()
		ended <- err
	}}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if err := conn.Write(context.Background(), &OutMessage{Data: data, Method: "ping", ID: "1"}); err != nil {
		t.Fatal(err)
	}
	data[0] = 'x' // the transport keeps a copy
	if msg := <-got; string(msg) != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Fatalf("the server read %s", msg)
	}
	if msg, err := conn.Read(context.Background()); err != nil || string(msg) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("the Session read %s, %v", msg, err)
	}
	conn.Close()
	if err := <-ended; !errors.Is(err, ErrClosed) && !errors.Is(err, context.Canceled) {
		t.Fatalf("the server's Read after Close: %v", err)
	}
	if err := conn.Write(context.Background(), &OutMessage{Data: data}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
	conn.Close()
}
