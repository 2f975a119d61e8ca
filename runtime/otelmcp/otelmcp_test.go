package otelmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/provider"
	"github.com/mcpgen/mcpgen/runtime/otelmcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// recorder is a tracer provider whose spans a test reads.
type recorder struct {
	tp  *sdktrace.TracerProvider
	exp *tracetest.InMemoryExporter
}

func newRecorder(t *testing.T) *recorder {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return &recorder{tp: tp, exp: exp}
}

// span returns the one ended span named name.
func (r *recorder) span(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range r.exp.GetSpans() {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range r.exp.GetSpans() {
			names = append(names, s.Name)
		}
		t.Fatalf("%d spans named %q, want 1; the spans: %q", len(found), name, names)
	}
	return found[0]
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value)
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

// wantAttrs checks the attributes of s; a want value "*" only asks for the
// attribute to be there.
func wantAttrs(t *testing.T, s tracetest.SpanStub, want map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		g, ok := got[attribute.Key(k)]
		switch {
		case v == "-" && ok:
			t.Errorf("span %q has %s = %s, want none", s.Name, k, g.String())
		case v == "-":
		case !ok:
			t.Errorf("span %q has no %s", s.Name, k)
		case v != "*" && g.String() != v:
			t.Errorf("span %q: %s = %s, want %s", s.Name, k, g.String(), v)
		}
	}
}

// TestSpansOverEverythingStdio traces a session with server-everything over
// stdio (legacy era): the tools/call span, its attributes and parent, and
// the sampling request the tool makes, a SERVER span child of the call.
func TestSpansOverEverythingStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := testenv.Everything(t, "stdio")
	opts := &runtime.Options{Sampling: func(ctx context.Context, req *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
		return &runtime.SamplingResult{Role: "assistant", Content: []runtime.Content{{Type: runtime.ContentText, Text: "sampled"}}, Model: "m", StopReason: "endTurn"}, nil
	}}
	tel.Install(opts)
	s, err := runtime.Connect(ctx, runtime.NewCommandTransport(cmd[0], cmd[1:]...), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root, rootSpan := rec.tp.Tracer("test").Start(ctx, "turn")
	if _, err := s.CallTool(root, "echo", json.RawMessage(`{"message":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(root, "trigger-sampling-request", json.RawMessage(`{"prompt":"p","maxTokens":10}`)); err != nil {
		t.Fatal(err)
	}
	rootSpan.End()

	echo := rec.span(t, "tools/call echo")
	if echo.SpanKind != trace.SpanKindClient {
		t.Errorf("tools/call kind = %v, want client", echo.SpanKind)
	}
	if echo.Parent.SpanID() != rootSpan.SpanContext().SpanID() {
		t.Errorf("tools/call echo is not a child of the caller's span")
	}
	wantAttrs(t, echo, map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": "2025-11-25", "network.transport": "pipe", "jsonrpc.request.id": "*",
		"error.type": "-", "server.address": "-", "gen_ai.tool.call.arguments": "-",
	})
	init := rec.span(t, "initialize")
	wantAttrs(t, init, map[string]string{"mcp.method.name": "initialize", "network.transport": "pipe"})

	call := rec.span(t, "tools/call trigger-sampling-request")
	sampling := rec.span(t, "sampling/createMessage")
	if sampling.SpanKind != trace.SpanKindServer {
		t.Errorf("sampling kind = %v, want server", sampling.SpanKind)
	}
	if sampling.Parent.SpanID() != call.SpanContext.SpanID() || sampling.SpanContext.TraceID() != call.SpanContext.TraceID() {
		t.Errorf("the sampling span is not a child of the call that caused it")
	}
	wantAttrs(t, sampling, map[string]string{"mcp.method.name": "sampling/createMessage", "jsonrpc.request.id": "*"})
}

// TestSpansOverSDKHTTP traces calls to the go-sdk server over Streamable
// HTTP (2026-07-28), run as a model's tool calls by the provider skeleton:
// each tools/call span nests under its execute_tool span, and an isError
// result has error.type tool_error.
func TestSpansOverSDKHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp})
	if err != nil {
		t.Fatal(err)
	}
	endpoint := testenv.ServeSDK(t, false)
	u, _ := url.Parse(endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := &runtime.Options{}
	tel.Install(opts)
	s, err := runtime.Connect(ctx, runtime.HTTP(endpoint, nil), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts := provider.NewTools(s, tools, map[string]string{"echo": "echo", "fail": "fail"})
	e, _ := ts.Lookup("echo")
	if out := ts.Run(ctx, e, []byte(`{"message":"hi"}`), nil); out.Error != "" {
		t.Fatal(out.Error)
	}
	f, _ := ts.Lookup("fail")
	if out := ts.Run(ctx, f, []byte(`{"message":"broken"}`), nil); out.Error == "" {
		t.Fatal("fail did not fail")
	}

	for _, tool := range []string{"echo", "fail"} {
		exec := rec.span(t, "execute_tool "+tool)
		call := rec.span(t, "tools/call "+tool)
		if call.Parent.SpanID() != exec.SpanContext.SpanID() {
			t.Errorf("tools/call %s is not a child of its execute_tool span", tool)
		}
		if exec.SpanKind != trace.SpanKindInternal || call.SpanKind != trace.SpanKindClient {
			t.Errorf("kinds: execute_tool %v, tools/call %v", exec.SpanKind, call.SpanKind)
		}
		wantAttrs(t, exec, map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool})
		wantAttrs(t, call, map[string]string{
			"mcp.method.name": "tools/call", "gen_ai.tool.name": tool, "mcp.protocol.version": "2026-07-28",
			"network.transport": "tcp", "server.address": u.Hostname(), "server.port": u.Port(), "jsonrpc.request.id": "*",
		})
	}
	fail := rec.span(t, "tools/call fail")
	wantAttrs(t, fail, map[string]string{"error.type": "tool_error"})
	if fail.Status.Code != codes.Error {
		t.Errorf("status of an isError result = %v, want Error", fail.Status.Code)
	}
	wantAttrs(t, rec.span(t, "execute_tool fail"), map[string]string{"error.type": "tool_error"})
	wantAttrs(t, rec.span(t, "tools/call echo"), map[string]string{"error.type": "-"})
}

// metaServer is a Conn that plays a server written for the propagation
// test: it answers the probe in the era it is set to, answers tools/call
// with its arguments, and keeps every request's params._meta.
type metaServer struct {
	modern bool
	in     chan []byte
	done   chan struct{}
	once   sync.Once

	mu    sync.Mutex
	metas []map[string]any
	// keepNoMeta stops keeping the _meta of requests, for benchmarks.
	keepNoMeta bool
	// uniqueTasks gives each task of the slow tool an id of its own.
	uniqueTasks bool
	// failTasks makes the result of each task one whose isError is set.
	failTasks bool
	tasks     int
	// answered is set once a tasks/update answered the input the task of
	// the askslow tool asks for.
	answered bool
}

func newMetaServer(modern bool) *metaServer {
	return &metaServer{modern: modern, in: make(chan []byte, 16), done: make(chan struct{})}
}

func (m *metaServer) Connect(context.Context) (runtime.Conn, error) { return m, nil }

func (m *metaServer) Write(ctx context.Context, out *runtime.OutMessage) error {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta           map[string]any  `json:"_meta"`
			Name           string          `json:"name"`
			TaskID         string          `json:"taskId"`
			Arguments      json.RawMessage `json:"arguments"`
			InputResponses json.RawMessage `json:"inputResponses"`
		} `json:"params"`
	}
	if err := json.Unmarshal(out.Data, &msg); err != nil {
		return err
	}
	if msg.ID == nil || msg.Method == "" {
		return nil
	}
	if !m.keepNoMeta {
		m.mu.Lock()
		m.metas = append(m.metas, msg.Params.Meta)
		m.mu.Unlock()
	}
	var result string
	switch {
	case msg.Method == "server/discover":
		if !m.modern {
			m.reply(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":-32601,"message":"no"}}`)
			return nil
		}
		result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"meta","version":"1"}}}`
	case msg.Method == "initialize":
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"meta","version":"1"}}`
	case msg.Method == "tools/call" && msg.Params.Name == "ask" && msg.Params.InputResponses == nil:
		result = `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"mode":"form","message":"Proceed?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}},"requestState":"s"}`
	case msg.Method == "tools/call" && msg.Params.Name == "slow":
		id := "task-1"
		if m.uniqueTasks {
			m.tasks++
			id = "unique-" + strconv.Itoa(m.tasks)
		}
		result = `{"resultType":"task","taskId":"` + id + `","status":"working","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:00Z","ttlMs":60000,"pollIntervalMs":1}`
	case msg.Method == "tools/call" && msg.Params.Name == "askslow":
		result = `{"resultType":"task","taskId":"task-ask","status":"working","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:00Z","ttlMs":60000,"pollIntervalMs":1}`
	case msg.Method == "tasks/get" && msg.Params.TaskID == "task-ask" && !m.isAnswered():
		result = `{"resultType":"complete","taskId":"task-ask","status":"input_required","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:01Z","ttlMs":60000,"pollIntervalMs":1,"inputRequests":{"q":{"method":"elicitation/create","params":{"mode":"form","message":"Proceed?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}}}`
	case msg.Method == "tasks/update":
		m.mu.Lock()
		m.answered = true
		m.mu.Unlock()
		result = `{"resultType":"complete"}`
	case msg.Method == "tasks/get" && m.failTasks:
		result = `{"resultType":"complete","taskId":"` + msg.Params.TaskID + `","status":"completed","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:01Z","ttlMs":60000,"result":{"content":[{"type":"text","text":"slow failed"}],"isError":true}}`
	case msg.Method == "tasks/get":
		result = `{"resultType":"complete","taskId":"` + msg.Params.TaskID + `","status":"completed","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:01Z","ttlMs":60000,"result":{"content":[{"type":"text","text":"slow done"}]}}`
	case msg.Method == "tools/call" && msg.Params.Name == "fail":
		// The error response of the code and message the arguments name.
		var args struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		}
		_ = json.Unmarshal(msg.Params.Arguments, &args)
		text, _ := json.Marshal(args.Message)
		m.reply(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":` + string(args.Code) + `,"message":` + string(text) + `}}`)
		return nil
	case msg.Method == "tools/list":
		result = `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
	case msg.Method == "tools/call":
		text, _ := json.Marshal("done")
		result = `{"content":[{"type":"text","text":` + string(text) + `}]}`
	default:
		result = `{}`
	}
	m.reply(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + result + `}`)
	return nil
}

// isAnswered reports whether a tasks/update answered the askslow task.
func (m *metaServer) isAnswered() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.answered
}

func (m *metaServer) reply(s string) {
	select {
	case m.in <- []byte(s):
	case <-m.done:
	}
}

func (m *metaServer) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-m.in:
		return b, nil
	case <-m.done:
		return nil, runtime.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (m *metaServer) Close() error { m.once.Do(func() { close(m.done) }); return nil }

// lastMeta returns the _meta of the last request the server got.
func (m *metaServer) lastMeta() map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.metas[len(m.metas)-1]
}

// TestPropagationInMeta checks, in both eras, that a request's params._meta
// carries the traceparent of its own client span (the trace id of the
// caller's trace), the tracestate and the baggage, next to what the
// Session sends there itself.
func TestPropagationInMeta(t *testing.T) {
	for _, modern := range []bool{false, true} {
		t.Run("modern="+strconv.FormatBool(modern), func(t *testing.T) {
			rec := newRecorder(t)
			tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp,
				Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})})
			if err != nil {
				t.Fatal(err)
			}
			srv := newMetaServer(modern)
			opts := &runtime.Options{}
			tel.Install(opts)
			ctx := context.Background()
			s, err := runtime.Connect(ctx, srv, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			member, _ := baggage.NewMember("tenant", "acme")
			bag, _ := baggage.New(member)
			ctx = baggage.ContextWithBaggage(ctx, bag)
			ts, _ := trace.ParseTraceState("vendor=x")
			ctx, root := rec.tp.Tracer("test").Start(ctx, "turn")
			ctx = trace.ContextWithSpanContext(ctx, root.SpanContext().WithTraceState(ts))
			ctx = runtime.WithProgress(ctx, func(runtime.Progress) {})
			if _, err := s.CallTool(ctx, "t", json.RawMessage(`{"a":1}`)); err != nil {
				t.Fatal(err)
			}
			root.End()
			meta := srv.lastMeta()
			call := rec.span(t, "tools/call t")
			want := "00-" + call.SpanContext.TraceID().String() + "-" + call.SpanContext.SpanID().String() + "-01"
			if meta["traceparent"] != want {
				t.Errorf("traceparent = %v, want %s (the client span's)", meta["traceparent"], want)
			}
			if call.SpanContext.TraceID() != root.SpanContext().TraceID() {
				t.Error("the client span is not in the caller's trace")
			}
			if meta["tracestate"] != "vendor=x" || meta["baggage"] != "tenant=acme" {
				t.Errorf("tracestate %v, baggage %v", meta["tracestate"], meta["baggage"])
			}
			if _, ok := meta["progressToken"]; !ok {
				t.Errorf("the progress token is lost: %v", meta)
			}
			if _, ok := meta["io.modelcontextprotocol/protocolVersion"]; ok != modern {
				t.Errorf("modern members present = %v in era modern=%v: %v", ok, modern, meta)
			}

			// Without a progress token, a legacy request has no _meta of
			// the Session's own: the trace context makes one.
			if _, err := s.ListTools(ctx); err != nil {
				t.Fatal(err)
			}
			list := rec.span(t, "tools/list")
			if got, want := srv.lastMeta()["traceparent"], "00-"+list.SpanContext.TraceID().String()+"-"+list.SpanContext.SpanID().String()+"-01"; got != want {
				t.Errorf("tools/list traceparent = %v, want %s", got, want)
			}
		})
	}
}

// TestSDKServerReceivesTraceparent checks that the go-sdk server gets the
// traceparent of the client span: its echo tool's request carries it in
// _meta, which the server's handler does not return, so the check is on
// the request the Session sends, through a RoundTripper that reads it.
func TestSDKServerReceivesTraceparent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, Propagator: propagation.TraceContext{}})
	if err != nil {
		t.Fatal(err)
	}
	endpoint := testenv.ServeSDK(t, false)
	seen := &bodies{next: http.DefaultTransport}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := &runtime.Options{}
	tel.Install(opts)
	s, err := runtime.Connect(ctx, runtime.HTTP(endpoint, &runtime.HTTPOptions{Client: &http.Client{Transport: seen}}), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, "echo", json.RawMessage(`{"message":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	call := rec.span(t, "tools/call echo")
	want := `"traceparent":"00-` + call.SpanContext.TraceID().String() + "-" + call.SpanContext.SpanID().String() + `-01"`
	if !seen.contains(want) {
		t.Errorf("no request to the go-sdk server carried %s", want)
	}
}

// bodies records the bodies of the HTTP requests it passes on.
type bodies struct {
	next http.RoundTripper
	mu   sync.Mutex
	all  []string
}

func (b *bodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			var sb strings.Builder
			buf := make([]byte, 4096)
			for {
				n, err := rc.Read(buf)
				sb.Write(buf[:n])
				if err != nil {
					break
				}
			}
			rc.Close()
			b.mu.Lock()
			b.all = append(b.all, sb.String())
			b.mu.Unlock()
		}
	}
	return b.next.RoundTrip(req)
}

func (b *bodies) contains(s string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, body := range b.all {
		if strings.Contains(body, s) {
			return true
		}
	}
	return false
}

// TestMetrics reads both histograms with a manual reader: their units,
// bucket boundaries and attributes.
func TestMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	tel, err := otelmcp.New(&otelmcp.Options{MeterProvider: mp, TracerProvider: noop.NewTracerProvider()})
	if err != nil {
		t.Fatal(err)
	}
	srv := newMetaServer(true)
	opts := &runtime.Options{}
	tel.Install(opts)
	s, err := runtime.Connect(context.Background(), srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(context.Background(), "t", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	s.Close()
	// The session's duration is recorded once the Session has ended, on a
	// goroutine of its own: collect until it is there.
	var rm metricdata.ResourceMetrics
	go func() {
		defer close(closed)
		for {
			rm = metricdata.ResourceMetrics{}
			if err := reader.Collect(context.Background(), &rm); err != nil {
				return
			}
			if find(rm, "mcp.client.session.duration") != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("no mcp.client.session.duration after Close")
	}
	bounds := []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
	for _, name := range []string{"mcp.client.operation.duration", "mcp.client.session.duration"} {
		m := find(rm, name)
		if m == nil {
			t.Fatalf("no %s", name)
		}
		if m.Unit != "s" {
			t.Errorf("%s unit = %q, want s", name, m.Unit)
		}
		h, ok := m.Data.(metricdata.Histogram[float64])
		if !ok || len(h.DataPoints) == 0 {
			t.Fatalf("%s is not a float64 histogram with points", name)
		}
		if got := h.DataPoints[0].Bounds; len(got) != len(bounds) || got[0] != 0.01 || got[len(got)-1] != 300 {
			t.Errorf("%s bounds = %v, want %v", name, got, bounds)
		}
		if name == "mcp.client.operation.duration" {
			var found bool
			for _, dp := range h.DataPoints {
				v, _ := dp.Attributes.Value("mcp.method.name")
				if v.AsString() != "tools/call" {
					continue
				}
				found = true
				tool, _ := dp.Attributes.Value("gen_ai.tool.name")
				op, _ := dp.Attributes.Value("gen_ai.operation.name")
				ver, _ := dp.Attributes.Value("mcp.protocol.version")
				if tool.AsString() != "t" || op.AsString() != "execute_tool" || ver.AsString() != "2026-07-28" || dp.Count != 1 {
					t.Errorf("tools/call point: %v, count %d", dp.Attributes.ToSlice(), dp.Count)
				}
				if dp.Attributes.HasValue("jsonrpc.request.id") {
					t.Error("the operation duration carries the request id, of high cardinality")
				}
			}
			if !found {
				t.Error("no tools/call point")
			}
		}
	}
}

// TestMetricErrorTypeBounded: the error.type and rpc.response.status_code
// of the operation duration take a bounded set of values whatever codes a
// server answers with: the code of a known JSON-RPC or MCP error, and
// "_OTHER" for any other, as the semantic conventions prescribe.
func TestMetricErrorTypeBounded(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{MeterProvider: mp, TracerProvider: rec.tp})
	if err != nil {
		t.Fatal(err)
	}
	opts := &runtime.Options{}
	tel.Install(opts)
	s, err := runtime.Connect(context.Background(), newMetaServer(true), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	codes := []string{"-32601", "-32602", "-32002", "1", "-1", "404", "-32099", "2147483647", "-2147483648", "-31999"}
	for i := 0; i < 200; i++ {
		codes = append(codes, strconv.Itoa(1000+i))
	}
	for _, code := range codes {
		_, err := s.CallTool(context.Background(), "fail", json.RawMessage(`{"code":`+code+`,"message":"failure `+code+`"}`))
		var rpc *runtime.RPCError
		if !errors.As(err, &rpc) {
			t.Fatalf("code %s: error %v, want an RPCError", code, err)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	m := find(rm, "mcp.client.operation.duration")
	if m == nil {
		t.Fatal("no mcp.client.operation.duration")
	}
	want := map[string]uint64{"-32601": 1, "-32602": 1, "-32002": 1, "_OTHER": uint64(len(codes) - 3)}
	got := make(map[string]uint64)
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		v, ok := dp.Attributes.Value("error.type")
		if !ok {
			continue
		}
		got[v.AsString()] += dp.Count
		status, ok := dp.Attributes.Value("rpc.response.status_code")
		switch {
		case v.AsString() == "_OTHER" && ok:
			t.Errorf("rpc.response.status_code %s beside error.type _OTHER", status.AsString())
		case v.AsString() != "_OTHER" && status.AsString() != v.AsString():
			t.Errorf("rpc.response.status_code %q beside error.type %s", status.AsString(), v.AsString())
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d values of error.type, want %d: %v", len(got), len(want), got)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("error.type %s: %d points, want %d", k, got[k], n)
		}
	}
}

func find(rm metricdata.ResourceMetrics, name string) *metricdata.Metrics {
	for _, sm := range rm.ScopeMetrics {
		for i := range sm.Metrics {
			if sm.Metrics[i].Name == name {
				return &sm.Metrics[i]
			}
		}
	}
	return nil
}

// TestSecretsNeverReachSpans records arguments and results, and checks that
// neither a secret argument nor a bearer token the server echoes back
// reaches an exported span.
func TestSecretsNeverReachSpans(t *testing.T) {
	const secretArg = "sk-live-argument-5f1c9a7e"
	const bearer = "bearer-token-0d2f7c1e9b"
	t.Run("secret argument", func(t *testing.T) {
		rec := newRecorder(t)
		tel, _ := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, RecordContent: true})
		srv := newMetaServer(true)
		opts := &runtime.Options{}
		tel.Install(opts)
		s, err := runtime.Connect(context.Background(), srv, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.CallTool(context.Background(), "t", json.RawMessage(`{"query":"weather","apiKey":"`+secretArg+`"}`)); err != nil {
			t.Fatal(err)
		}
		span := rec.span(t, "tools/call t")
		args := attrs(span)["gen_ai.tool.call.arguments"].AsString()
		if !strings.Contains(args, "weather") {
			t.Errorf("arguments not recorded: %q", args)
		}
		if _, ok := attrs(span)["gen_ai.tool.call.result"]; !ok {
			t.Error("result not recorded")
		}
		noSecret(t, rec, secretArg)
	})
	t.Run("bearer token", func(t *testing.T) {
		if testing.Short() {
			t.Skip("starts a real server")
		}
		rec := newRecorder(t)
		tel, _ := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, RecordContent: true})
		endpoint := testenv.ServeSDK(t, false)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		opts := &runtime.Options{}
		tel.Install(opts)
		s, err := runtime.Connect(ctx, runtime.HTTP(endpoint, &runtime.HTTPOptions{Header: http.Header{"Authorization": {"Bearer " + bearer}}}), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// The server echoes the token back in its result.
		res, err := s.CallTool(ctx, "echo", json.RawMessage(`{"message":"`+bearer+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text(), bearer) {
			t.Fatalf("the server did not echo the token: %q", res.Text())
		}
		noSecret(t, rec, bearer)
	})
}

// noSecret fails when secret appears in any exported span's name,
// attributes, events or status.
func noSecret(t *testing.T, rec *recorder, secret string) {
	t.Helper()
	for _, s := range rec.exp.GetSpans() {
		b, _ := json.Marshal(struct {
			Name   string
			Attrs  []attribute.KeyValue
			Events any
			Status any
		}{s.Name, s.Attributes, s.Events, s.Status})
		if strings.Contains(string(b), secret) {
			t.Errorf("span %q carries the secret: %s", s.Name, b)
		}
	}
}

// TestCausedSpansAreChildren checks, in the 2026-07-28 era, that the
// elicitation an input_required result asks for is a SERVER span child of
// that tools/call, and that the polls of a task are children of the
// tools/call that created it.
func TestCausedSpansAreChildren(t *testing.T) {
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp})
	if err != nil {
		t.Fatal(err)
	}
	srv := newMetaServer(true)
	opts := &runtime.Options{Elicitation: func(ctx context.Context, req *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
		return &runtime.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
	}}
	tel.Install(opts)
	ctx := context.Background()
	s, err := runtime.Connect(ctx, srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, "ask", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	var asks []tracetest.SpanStub
	for _, sp := range rec.exp.GetSpans() {
		if sp.Name == "tools/call ask" {
			asks = append(asks, sp)
		}
	}
	if len(asks) != 2 {
		t.Fatalf("%d tools/call ask spans, want 2 (one per round)", len(asks))
	}
	el := rec.span(t, "elicitation/create")
	if el.SpanKind != trace.SpanKindServer || el.Parent.SpanID() != asks[0].SpanContext.SpanID() {
		t.Errorf("elicitation/create: kind %v, parent %v; want a SERVER child of the first round %v", el.SpanKind, el.Parent.SpanID(), asks[0].SpanContext.SpanID())
	}

	res, err := s.CallTool(ctx, "slow", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != "slow done" {
		t.Fatalf("task result %q", res.Text())
	}
	slow := rec.span(t, "tools/call slow")
	get := rec.span(t, "tasks/get")
	if get.Parent.SpanID() != slow.SpanContext.SpanID() || get.SpanContext.TraceID() != slow.SpanContext.TraceID() {
		t.Errorf("tasks/get is not a child of the tools/call that created the task")
	}
	wantAttrs(t, get, map[string]string{"mcp.method.name": "tasks/get", "jsonrpc.request.id": "*"})
}

// TestTaskUpdateIsChildOfCall checks, in the 2026-07-28 era, that the
// tasks/update answering a task's input requests is, as its polls are, a
// child of the tools/call that created the task.
func TestTaskUpdateIsChildOfCall(t *testing.T) {
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp})
	if err != nil {
		t.Fatal(err)
	}
	srv := newMetaServer(true)
	opts := &runtime.Options{Elicitation: func(ctx context.Context, req *runtime.ElicitRequest) (*runtime.ElicitResult, error) {
		return &runtime.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
	}}
	tel.Install(opts)
	ctx := context.Background()
	s, err := runtime.Connect(ctx, srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(ctx, "askslow", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != "slow done" {
		t.Fatalf("task result %q", res.Text())
	}
	call := rec.span(t, "tools/call askslow")
	update := rec.span(t, "tasks/update")
	if update.Parent.SpanID() != call.SpanContext.SpanID() || update.SpanContext.TraceID() != call.SpanContext.TraceID() {
		t.Errorf("tasks/update has parent %v, want the tools/call that created the task %v", update.Parent.SpanID(), call.SpanContext.SpanID())
	}
	wantAttrs(t, update, map[string]string{"mcp.method.name": "tasks/update", "jsonrpc.request.id": "*"})
}

// refusingOnce is an Authorizer whose first credentials the server refuses;
// its Refused obtains the token the server wants.
type refusingOnce struct {
	mu    sync.Mutex
	token string
	spans []trace.SpanContext // the span in the context of each Refused
}

func (a *refusingOnce) Authorize(req *http.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	return nil
}

func (a *refusingOnce) Refused(ctx context.Context, req *http.Request, resp *http.Response) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.spans = append(a.spans, trace.SpanContextFromContext(ctx))
	a.token = "good-token-7c2e9a41"
	return true, nil
}

// TestSignInSpan puts a server that wants a bearer token for tools/call in
// front of the go-sdk server: the sign-in its 401 causes is a span of its
// own, a child of the tools/call that was refused, and the token is on no
// span.
func TestSignInSpan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, RecordContent: true})
	if err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(testenv.ServeSDK(t, false))
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only tools/call needs the token, so that the sign-in happens
		// during the call rather than at Connect.
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) && r.Header.Get("Authorization") != "Bearer good-token-7c2e9a41" {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	auth := &refusingOnce{}
	opts := &runtime.Options{}
	tel.Install(opts)
	s, err := runtime.Connect(ctx, runtime.HTTP(front.URL+target.Path, &runtime.HTTPOptions{Authorizer: tel.Authorizer(auth)}), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, "echo", json.RawMessage(`{"message":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	signIn := rec.span(t, "sign-in")
	var refused tracetest.SpanStub
	for _, sp := range rec.exp.GetSpans() {
		if sp.SpanContext.SpanID() == signIn.Parent.SpanID() {
			refused = sp
		}
	}
	if refused.Name != "tools/call echo" {
		t.Fatalf("the sign-in span's parent is not an MCP request span: %+v", refused.Name)
	}
	if len(auth.spans) != 1 || auth.spans[0].SpanID() != signIn.SpanContext.SpanID() {
		t.Errorf("the Authorizer's Refused did not run in the sign-in span")
	}
	noSecret(t, rec, "good-token-7c2e9a41")
}

// TestTaskSpansPerSession runs two Sessions, with one Client, whose servers
// both name their task "task-1": the poll of each task is a child of the
// tools/call of its own Session, not of the other's.
func TestTaskSpansPerSession(t *testing.T) {
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var tasks []*runtime.Task
	var calls []trace.SpanContext
	for i := 0; i < 2; i++ {
		opts := &runtime.Options{}
		tel.Install(opts)
		s, err := runtime.Connect(ctx, newMetaServer(true), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rec.exp.Reset()
		task, err := s.StartToolTask(ctx, "slow", json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if task.ID != "task-1" {
			t.Fatalf("task id %q, want task-1", task.ID)
		}
		tasks = append(tasks, task)
		calls = append(calls, rec.span(t, "tools/call slow").SpanContext)
	}
	for i, task := range tasks {
		rec.exp.Reset()
		if _, err := task.Get(ctx); err != nil {
			t.Fatal(err)
		}
		get := rec.span(t, "tasks/get")
		if get.Parent.SpanID() != calls[i].SpanID() {
			t.Errorf("session %d: tasks/get has parent %v, want its own tools/call %v (the other session's is %v)", i, get.Parent.SpanID(), calls[i].SpanID(), calls[1-i].SpanID())
		}
	}
}

// TestTaskSpansForgottenWithSession leaves more tasks unfinished than a
// Client remembers in a Session that then ends: the task of a later Session
// is still a child of the tools/call that created it.
func TestTaskSpansForgottenWithSession(t *testing.T) {
	rec := newRecorder(t)
	reader := sdkmetric.NewManualReader()
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := &runtime.Options{}
	tel.Install(opts)
	srv := newMetaServer(true)
	srv.uniqueTasks, srv.keepNoMeta = true, true
	s, err := runtime.Connect(ctx, srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5000; i++ {
		if _, err := s.StartToolTask(ctx, "slow", json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	// The session's duration is recorded once its end has been handled.
	for {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		if find(rm, "mcp.client.session.duration") != nil {
			break
		}
		time.Sleep(time.Millisecond)
	}

	opts = &runtime.Options{}
	tel.Install(opts)
	s, err = runtime.Connect(ctx, newMetaServer(true), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec.exp.Reset()
	task, err := s.StartToolTask(ctx, "slow", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	call := rec.span(t, "tools/call slow")
	rec.exp.Reset()
	if _, err := task.Get(ctx); err != nil {
		t.Fatal(err)
	}
	if get := rec.span(t, "tasks/get"); get.Parent.SpanID() != call.SpanContext.SpanID() {
		t.Errorf("tasks/get has parent %v, want the tools/call that created the task %v", get.Parent.SpanID(), call.SpanContext.SpanID())
	}
}

// TestEchoedSecretsNotInNames connects over HTTP with a bearer token to a
// server that names a tool and lists a resource after it: the spans'
// names and attributes (of the tools/call and of the execute_tool span of a
// model's run of the tool), and the operation duration's attributes, carry
// [REDACTED] instead.
func TestEchoedSecretsNotInNames(t *testing.T) {
	const bearer = "bearer-token-0d2f7c1e9b"
	tool, err := runtime.ParseTool([]byte(`{"name":"` + bearer + `","inputSchema":{"type":"object"}}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New([]server.Tool{{Tool: tool, Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done"}}}, nil
	}}}, &server.Options{ResourceTemplates: []server.ResourceTemplate{{
		Template: runtime.ResourceTemplate{Name: "files", URITemplate: "file:///{name}"},
		Handle: func(_ context.Context, uri string, _ map[string]any) (*runtime.ReadResourceResult, error) {
			return &runtime.ReadResourceResult{Contents: []runtime.ResourceContents{{URI: uri, Text: "contents"}}}, nil
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	rec := newRecorder(t)
	reader := sdkmetric.NewManualReader()
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := &runtime.Options{}
	tel.Install(opts)
	s, err := runtime.Connect(ctx, runtime.HTTP(hs.URL, &runtime.HTTPOptions{Header: http.Header{"Authorization": {"Bearer " + bearer}}}), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, bearer, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadResource(ctx, "file:///"+bearer); err != nil {
		t.Fatal(err)
	}
	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts := provider.NewTools(s, tools, map[string]string{"echoed": bearer})
	e, _ := ts.Lookup("echoed")
	if out := ts.Run(ctx, e, []byte(`{}`), nil); out.Error != "" {
		t.Fatal(out.Error)
	}
	noSecret(t, rec, bearer)
	rec.span(t, "execute_tool [REDACTED]")
	wantAttrs(t, rec.span(t, "resources/read"), map[string]string{"mcp.resource.uri": "file:///[REDACTED]"})
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(find(rm, "mcp.client.operation.duration")); strings.Contains(string(b), bearer) {
		t.Errorf("the operation duration carries the token: %s", b)
	}
}

// TestEchoedSecretNotInSessionID: a 2025-11-25 server that makes its
// Mcp-Session-Id of the bearer token it received does not get the token
// into mcp.session.id.
func TestEchoedSecretNotInSessionID(t *testing.T) {
	const bearer = "bearer-token-5be81d0c77"
	srv, err := server.New([]server.Tool{{Tool: runtime.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
			return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done"}}}, nil
		}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "s-"+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		srv.ServeHTTP(w, r)
	}))
	defer hs.Close()
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := &runtime.Options{ProtocolVersion: "2025-11-25"}
	tel.Install(opts)
	s, err := runtime.Connect(ctx, runtime.HTTP(hs.URL, &runtime.HTTPOptions{Header: http.Header{"Authorization": {"Bearer " + bearer}}}), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, "echo", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	call := rec.span(t, "tools/call echo")
	var id string
	for _, a := range call.Attributes {
		if a.Key == "mcp.session.id" {
			id = a.Value.AsString()
		}
	}
	if id != "s-[REDACTED]" {
		t.Errorf("mcp.session.id = %q, want s-[REDACTED]", id)
	}
	noSecret(t, rec, bearer)
}
