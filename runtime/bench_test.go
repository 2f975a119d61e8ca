package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// echoConn answers every tools/call at once with a fixed text result, so
// that a benchmark over it measures the Session alone.
type echoConn struct {
	in     chan []byte
	closed chan struct{}
}

func (c *echoConn) writeIgnoresContext() {}

func (c *echoConn) releasesData() {}

func (c *echoConn) Connect(context.Context) (Conn, error) { return c, nil }

func (c *echoConn) Write(_ context.Context, m *OutMessage) error {
	var result string
	switch m.Method {
	case "server/discover":
		result = modernDiscover
	case "tools/call":
		result = `{"resultType":"complete","content":[{"type":"text","text":"hello"}]}`
	case "":
		return nil
	default:
		return nil
	}
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, m.ID...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	b = append(b, '}')
	c.in <- b
	return nil
}

func (c *echoConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-c.in:
		return b, nil
	case <-c.closed:
		return nil, ErrClosed
	}
}

func (c *echoConn) Close() error { close(c.closed); return nil }

func BenchmarkCallToolInMemory(b *testing.B) {
	conn := &echoConn{in: make(chan []byte, 16), closed: make(chan struct{})}
	s, err := Connect(context.Background(), conn, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	args := map[string]string{"message": "hello"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.CallTool(ctx, "echo", args)
		if err != nil || res.Text() != "hello" {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallToolStdio(b *testing.B) {
	s, err := Connect(context.Background(), fakeTransport(b, "modern"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	args := json.RawMessage(`{"message":"hello"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.CallTool(ctx, "echo", args)
		if err != nil || res.Text() != "hello" {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeResult(b *testing.B) {
	data := []byte(`{"resultType":"complete","content":[{"type":"text","text":"hello world"},{"type":"image","data":"iVBORw0=","mimeType":"image/png"}],"structuredContent":{"a":1}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := decodeResult(bytes.Clone(data)); err != nil {
			b.Fatal(err)
		}
	}
}
