package gemini

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

// memLiveConn is a Live session in memory: Receive returns the messages
// put in in, and each toolResponse is passed to out.
type memLiveConn struct {
	in     chan *genai.LiveServerMessage
	out    chan *genai.FunctionResponse
	closed chan struct{}
	once   sync.Once
	// updates are the context updates sent, for tests that call Update
	// from one goroutine.
	updates []genai.LiveClientContextUpdate
}

func newMemLiveConn() *memLiveConn {
	return &memLiveConn{in: make(chan *genai.LiveServerMessage), out: make(chan *genai.FunctionResponse, 1), closed: make(chan struct{})}
}

var errMemClosed = errors.New("the in-memory session is closed")

func (c *memLiveConn) Receive() (*genai.LiveServerMessage, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.closed:
		return nil, errMemClosed
	}
}

func (c *memLiveConn) SendToolResponse(in genai.LiveToolResponseInput) error {
	for _, r := range in.FunctionResponses {
		select {
		case c.out <- r:
		case <-c.closed:
			return errMemClosed
		}
	}
	return nil
}

func (c *memLiveConn) SendContextUpdate(u genai.LiveClientContextUpdate) error {
	c.updates = append(c.updates, u)
	return nil
}
func (c *memLiveConn) SendClientContent(genai.LiveClientContentInput) error { return nil }
func (c *memLiveConn) SendRealtimeInput(genai.LiveRealtimeInput) error      { return nil }
func (c *memLiveConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// memServer is an MCP server in memory: every call answers at once.
type memServer struct{ res *runtime.Result }

func (s memServer) CallTool(context.Context, string, any) (*runtime.Result, error) { return s.res, nil }

// cpuTime returns the CPU time the process used so far.
func cpuTime() time.Duration { return testenv.ProcessCPU() }

// BenchmarkLiveToolCall measures what the Live loop adds to a tool call,
// from the toolCall message received to the toolResponse sent, over a
// server in memory that answers at once: the time and the CPU time per call
// (cpu-ns/op, of the whole process, which does nothing else).
func BenchmarkLiveToolCall(b *testing.B) {
	tools := []runtime.Tool{{Name: "switch_on", Description: "Switches a device on.",
		InputSchema: []byte(`{"type":"object","properties":{"device":{"type":"string"},"level":{"type":"integer","minimum":0,"maximum":100}},"required":["device"]}`)}}
	ts, err := NewToolset(memServer{&runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done"}}}}, tools, nil)
	if err != nil {
		b.Fatal(err)
	}
	conn := newMemLiveConn()
	live, err := newLive(conn, ts, nil)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- live.Run(context.Background(), nil) }()
	msg := &genai.LiveServerMessage{ToolCall: &genai.LiveServerToolCall{FunctionCalls: []*genai.FunctionCall{
		{ID: "call-1", Name: "switch_on", Args: map[string]any{"device": "heater", "level": float64(40)}}}}}
	turnDone := &genai.LiveServerMessage{ServerContent: &genai.LiveServerContent{TurnComplete: true}}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		conn.in <- msg
		r := <-conn.out
		if r.ID != "call-1" || r.Response["output"] != "done" {
			b.Fatalf("response %+v", r)
		}
		if i%8 == 7 {
			conn.in <- turnDone // a model turn holds a few toolCalls at most
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	conn.Close()
	<-done
}
