package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Flood sizes: as many requests as the attacks that took a gigabyte.
const (
	floodPings        = 200_000
	floodElicitations = 20_000
)

// serveFlood is the fake server of the flood tests (modes flood-ping and
// flood-elicit): it answers initialize, and when it reads a tools/call it
// stops reading its input, sends its flood of requests and then the call's
// result, and only then reads its input again, to its end.
func serveFlood(mode string) int {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var m fakeMsg
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, legacyInit)
			out.Flush()
		case "tools/call":
			flood(out, mode)
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, textResult)
			out.Flush()
			io.Copy(io.Discard, in)
			return 0
		default:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`+"\n", m.ID)
			out.Flush()
		}
	}
}

// flood writes the requests of mode to w.
func flood(w io.Writer, mode string) {
	switch mode {
	case "flood-ping":
		for i := range floodPings {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"p%d","method":"ping"}`+"\n", i)
		}
	case "flood-elicit":
		msg := strings.Repeat("x", 4<<10)
		for i := range floodElicitations {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"e%d","method":"elicitation/create","params":{"message":%q,"requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}}`+"\n", i, msg)
		}
	}
}

// peakWatcher samples the goroutines and the memory in use (heap and
// stacks) until stopped, and keeps the highest of each.
type peakWatcher struct {
	baseG, baseMem       int
	peakG                atomic.Int64
	peakMem              atomic.Int64
	stop, done           chan struct{}
	maxExtraG, maxExtraM int
	gcPercent            int
}

// watchPeaks starts sampling, against the state after a collection. Until
// check, the collector runs often, so that the peaks measure what is kept,
// not garbage waiting for a collection that depends on what earlier tests
// left in the heap.
func watchPeaks(maxExtraGoroutines, maxExtraMiB int) *peakWatcher {
	runtime.GC()
	w := &peakWatcher{baseG: runtime.NumGoroutine(), baseMem: memInUse(), stop: make(chan struct{}), done: make(chan struct{}),
		maxExtraG: maxExtraGoroutines, maxExtraM: maxExtraMiB << 20, gcPercent: debug.SetGCPercent(10)}
	go func() {
		defer close(w.done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			w.sample()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func memInUse() int {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int(ms.HeapInuse + ms.StackInuse)
}

func (w *peakWatcher) sample() {
	if g := int64(runtime.NumGoroutine()); g > w.peakG.Load() {
		w.peakG.Store(g)
	}
	if m := int64(memInUse()); m > w.peakMem.Load() {
		w.peakMem.Store(m)
	}
}

// check stops sampling and reports peaks beyond the bounds.
func (w *peakWatcher) check(t *testing.T) {
	t.Helper()
	close(w.stop)
	<-w.done
	w.sample()
	debug.SetGCPercent(w.gcPercent)
	g, m := int(w.peakG.Load())-w.baseG, int(w.peakMem.Load())-w.baseMem
	t.Logf("peaks above the start: %d goroutines, %d KiB of heap and stacks", g, m>>10)
	if g > w.maxExtraG {
		t.Errorf("the flood made %d goroutines at its peak, want at most %d", g, w.maxExtraG)
	}
	if m > w.maxExtraM {
		t.Errorf("the flood took %d MiB of heap and stacks at its peak, want at most %d MiB", m>>20, w.maxExtraM>>20)
	}
}

// TestServerPingFloodStdio floods the client with pings from a stdio server
// that reads none of the answers: the goroutines and memory stay bounded,
// and the call the server answers after its flood gets its result.
func TestServerPingFloodStdio(t *testing.T) {
	w := watchPeaks(40, 64)
	callAfterFlood(t, w, fakeTransport(t, "flood-ping"), &Options{ProtocolVersion: "2025-06-18", CallTimeout: 5 * time.Minute})
}

// TestServerElicitationFloodStdio floods the client with 4 KiB elicitations
// that nobody answers: at most maxServedRequests handlers run, goroutines
// and memory stay bounded, and the call gets its result.
func TestServerElicitationFloodStdio(t *testing.T) {
	var running, most, total atomic.Int64
	handler := func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
		total.Add(1)
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-ctx.Done() // nobody answers
		return nil, ctx.Err()
	}
	w := watchPeaks(2*maxServedRequests+40, 64)
	callAfterFlood(t, w, fakeTransport(t, "flood-elicit"), &Options{ProtocolVersion: "2025-06-18", CallTimeout: 5 * time.Minute, Elicitation: handler})
	if m := most.Load(); m > maxServedRequests {
		t.Errorf("%d elicitation handlers ran at once, want at most %d", m, maxServedRequests)
	}
	if total.Load() == 0 {
		t.Error("no elicitation reached the handler")
	}
}

// TestServerPingFloodSSE floods the client with pings on the stream of an
// HTTP+SSE server that never finishes reading the POSTs of the answers:
// goroutines and memory stay bounded, and the call's result, sent after the
// flood on the same stream, arrives.
func TestServerPingFloodSSE(t *testing.T) {
	checkLeaks(t)
	events := make(chan string, 10)
	calls := make(chan string, 1)
	var answers atomic.Int64
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: endpoint\ndata: /msg\n\n")
			w.(http.Flusher).Flush()
			bw := bufio.NewWriterSize(w, 1<<16)
			for {
				select {
				case ev := <-events:
					io.WriteString(w, "data: "+ev+"\n\n")
					w.(http.Flusher).Flush()
				case id := <-calls:
					for i := range floodPings {
						bw.WriteString(`data: {"jsonrpc":"2.0","id":"p` + strconv.Itoa(i) + `","method":"ping"}` + "\n\n")
					}
					bw.WriteString(fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, textResult))
					bw.Flush()
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		var m rpcIn
		json.NewDecoder(r.Body).Decode(&m)
		switch m.Method {
		case "":
			answers.Add(1)
			<-r.Context().Done() // never finish reading an answer
			return
		case "initialize":
			events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, legacyInit)
		case "tools/call":
			calls <- string(m.ID)
		}
		w.WriteHeader(http.StatusAccepted)
	})
	w := watchPeaks(40, 64)
	callAfterFlood(t, w, SSE(srv.URL+"/sse", testHTTPOptions(t)), &Options{ProtocolVersion: "2024-11-05", CallTimeout: 5 * time.Minute})
	if answers.Load() == 0 {
		t.Error("no ping was answered")
	}
}

// TestServerRequestsBeyondBound sends more elicitations than may run at
// once, while their handlers wait: the excess is answered at once with
// -32000, a ping is answered (but not one whose id is too long to echo), and
// a request of an unknown method with a long name is answered with the name
// cut short.
func TestServerRequestsBeyondBound(t *testing.T) {
	checkLeaks(t)
	answered := make(chan memMsg, 100)
	c := newMemConn(legacyMem(func(c *memConn, ctx context.Context, m memMsg) error {
		if m.Method == "" {
			answered <- m
		}
		return nil
	}))
	release := make(chan struct{})
	var started atomic.Int64
	handler := func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
		started.Add(1)
		<-release
		return &ElicitResult{Action: ElicitDecline}, nil
	}
	s, err := Connect(context.Background(), c, &Options{ProtocolVersion: "2025-06-18", Elicitation: handler})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range maxServedRequests + 1 {
		c.in <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`, i))
	}
	long := strings.Repeat("m", 10000)
	c.in <- []byte(`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", maxReplyIDSize) + `","method":"ping"}`) // not answered
	c.in <- []byte(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
	c.in <- []byte(`{"jsonrpc":"2.0","id":"long","method":"` + long + `"}`)
	defer close(release)
	got := map[string]string{}
	timeout := time.After(time.Minute)
	for range 3 {
		select {
		case m := <-answered:
			got[string(m.ID)] = m.Raw
		case <-timeout:
			t.Fatalf("only %d of the 3 requests that need no handler run were answered: %v", len(got), got)
		}
	}
	want := map[string]string{
		strconv.Itoa(maxServedRequests): fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32000,"message":"too many requests in flight"}}`, maxServedRequests),
		`"ping"`:                        `{"jsonrpc":"2.0","id":"ping","result":{}}`,
		`"long"`:                        `{"jsonrpc":"2.0","id":"long","error":{"code":-32601,"message":"method not found: ` + long[:maxQuotedMethod] + `..."}}`,
	}
	for id, raw := range want {
		if got[id] != raw {
			t.Errorf("answer to %s:\n got %s\nwant %s", id, got[id], raw)
		}
	}
	if n := started.Load(); n > maxServedRequests {
		t.Errorf("%d handlers started, want at most %d", n, maxServedRequests)
	}
}

// TestServerPingFloodStreamable floods the client with pings on the SSE
// response to a Streamable HTTP tools/call, from a server that never
// finishes reading the POSTs of the answers: goroutines and memory stay
// bounded, and the result at the end of the stream arrives.
func TestServerPingFloodStreamable(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m rpcIn
		json.NewDecoder(r.Body).Decode(&m)
		switch {
		case m.Method == "" && m.ID != nil:
			<-r.Context().Done() // never finish reading an answer
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, legacyInit)
		case m.Method == "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			bw := bufio.NewWriterSize(w, 1<<16)
			for i := range floodPings {
				bw.WriteString(`data: {"jsonrpc":"2.0","id":"p` + strconv.Itoa(i) + `","method":"ping"}` + "\n\n")
			}
			fmt.Fprintf(bw, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", m.ID, textResult)
			bw.Flush()
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	w := watchPeaks(40, 64)
	callAfterFlood(t, w, StreamableHTTP(srv.URL, testHTTPOptions(t)), &Options{ProtocolVersion: "2025-06-18", CallTimeout: 5 * time.Minute})
}

// callAfterFlood connects over tr, makes the call the server answers after
// its flood, checks the peaks w watched, and wants the call's result "ok".
func callAfterFlood(t *testing.T, w *peakWatcher, tr Transport, opts *Options) {
	t.Helper()
	s, err := Connect(context.Background(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "x", nil)
	w.check(t)
	if err != nil {
		t.Fatalf("the call after the flood: %v", err)
	}
	if res.Text() != "ok" {
		t.Errorf("the call's result is %q, want ok", res.Text())
	}
}
