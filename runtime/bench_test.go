package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// cpuTime returns the CPU time this process has used so far.
func cpuTime() time.Duration { return testenv.ProcessCPU() }

// reportCPU reports the client's CPU time per operation since start, which
// leaves out the server process's.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// echoConn answers every tools/call at once with a fixed text result, so
// that a benchmark over it measures the Session alone.
type echoConn struct {
	in     chan []byte
	closed chan struct{}
}

func (c *echoConn) ConnCapabilities() ConnCapabilities {
	return ConnCapabilities{WriteIgnoresContext: true, ReleasesData: true}
}

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
	for _, mode := range []string{"legacy", "modern", "legacy-deadline"} {
		b.Run(mode, func(b *testing.B) {
			// legacy-deadline calls with a context that has a deadline,
			// as mcpbench does: the call then arms context.AfterFunc.
			server, deadline := strings.CutSuffix(mode, "-deadline")
			s, err := Connect(context.Background(), fakeTransport(b, server), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			args := json.RawMessage(`{"message":"hello"}`)
			ctx := context.Background()
			if deadline {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Hour)
				defer cancel()
			}
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				res, err := s.CallTool(ctx, "echo", args)
				if err != nil || res.Text() != "hello" {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
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

// BenchmarkDecodeToolsPage decodes one tools/list page of the largest server
// of the corpus (353 tools), as ListTools does for each page.
func BenchmarkDecodeToolsPage(b *testing.B) {
	file, err := os.ReadFile("../testdata/servers/digitalocean.json")
	if err != nil {
		b.Fatal(err)
	}
	var snap struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(file, &snap); err != nil {
		b.Fatal(err)
	}
	page := append(append([]byte(`{"tools":`), snap.Tools...), '}')
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		tools, _, err := decodeToolsPage(nil, page, DefaultMaxTools, &pageCaching{})
		if err != nil || len(tools) != 353 {
			b.Fatalf("%d tools, %v", len(tools), err)
		}
	}
}

// BenchmarkMinimalStdioCall is the floor CallToolStdio is measured against:
// a hand-written client that writes a request line and reads the answer on
// the same goroutine, with encoding/json, and no concurrency support.
func BenchmarkMinimalStdioCall(b *testing.B) {
	conn, err := fakeTransport(b, "legacy").Connect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	c := conn.(*stdioConn)
	type request struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}
	type response struct {
		ID     int64           `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	type callResult struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	var id int64
	roundTrip := func(method string, params any) json.RawMessage {
		id++
		line, err := json.Marshal(request{"2.0", id, method, params})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.stdin.Write(append(line, '\n')); err != nil {
			b.Fatal(err)
		}
		for {
			data, err := c.readLine()
			if err != nil {
				b.Fatal(err)
			}
			var r response
			if err := json.Unmarshal(data, &r); err != nil {
				b.Fatal(err)
			}
			if r.ID == id {
				return r.Result
			}
		}
	}
	roundTrip("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]string{"name": "floor", "version": "1"}})
	c.stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	type callParams struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	args := json.RawMessage(`{"message":"hello"}`)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		var res callResult
		if err := json.Unmarshal(roundTrip("tools/call", callParams{"echo", args}), &res); err != nil || res.Content[0].Text != "hello" {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkReplayIndexPending indexes a recording whose 30,000 requests all
// await their responses while 30,000 progress notifications name the first
// one's token: the work per message must not grow with the requests
// pending.
func BenchmarkReplayIndexPending(b *testing.B) {
	const n = 30000
	for _, order := range []struct {
		name    string
		respond func(i int) int
	}{
		{"answered in order", func(i int) int { return i }},
		{"answered last first", func(i int) int { return n - 1 - i }},
	} {
		rec := progressRecording(n, order.respond)
		b.Run(order.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Replay("pending.txtar", rec); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(3*n), "ns/message")
		})
	}
}
