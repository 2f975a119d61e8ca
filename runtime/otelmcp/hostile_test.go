package otelmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/otelmcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// legacyServer is a Conn that plays a 2025-11-25 server whose connection
// holds a credential (secret, which it scrubs as an HTTP connection does):
// tools/call of "job" creates a task whose result has isError set;
// tools/call of "sample" first asks the client for a sampling message
// under the request id sampleID, and answers the call once the client
// has answered it; resources/read and any other tools/call are answered
// at once, and tools/call of "exit" ends the connection, as a server that
// exits does.
type legacyServer struct {
	secret   string
	sampleID string

	in   chan []byte
	done chan struct{}
	once sync.Once

	mu      sync.Mutex
	pending map[string]json.RawMessage // the sampling request's id → the call's id
}

func newLegacyServer(secret string) *legacyServer {
	return &legacyServer{secret: secret, in: make(chan []byte, 16), done: make(chan struct{}), pending: make(map[string]json.RawMessage)}
}

func (l *legacyServer) Connect(context.Context) (runtime.Conn, error) { return l, nil }

func (l *legacyServer) ConnCapabilities() runtime.ConnCapabilities {
	return runtime.ConnCapabilities{ScrubSecrets: func(s string) string {
		if l.secret == "" {
			return s
		}
		return strings.ReplaceAll(s, l.secret, "[REDACTED]")
	}}
}

func (l *legacyServer) Write(ctx context.Context, out *runtime.OutMessage) error {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	if err := json.Unmarshal(out.Data, &msg); err != nil {
		return err
	}
	switch {
	case msg.ID == nil:
		return nil // a notification
	case msg.Method == "":
		// The client's answer to the sampling request: the call ends.
		l.mu.Lock()
		call, ok := l.pending[string(msg.ID)]
		delete(l.pending, string(msg.ID))
		l.mu.Unlock()
		if ok {
			l.reply(`{"jsonrpc":"2.0","id":` + string(call) + `,"result":{"content":[{"type":"text","text":"sampled"}]}}`)
		}
		return nil
	}
	var result string
	switch {
	case msg.Method == "server/discover":
		l.reply(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":-32601,"message":"no"}}`)
		return nil
	case msg.Method == "initialize":
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"legacy","version":"1"}}`
	case msg.Method == "tools/list":
		result = `{"tools":[{"name":"job","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`
	case msg.Method == "tools/call" && msg.Params.Name == "job":
		result = `{"task":{"taskId":"job-1","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:01Z","ttl":60000}}`
	case msg.Method == "tasks/get":
		result = `{"taskId":"job-1","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:01Z","ttl":60000}`
	case msg.Method == "tasks/result":
		result = `{"content":[{"type":"text","text":"the job failed"}],"isError":true}`
	case msg.Method == "tools/call" && msg.Params.Name == "sample":
		id, _ := json.Marshal(l.sampleID)
		l.mu.Lock()
		l.pending[string(id)] = msg.ID
		l.mu.Unlock()
		l.reply(`{"jsonrpc":"2.0","id":` + string(id) + `,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}`)
		return nil
	case msg.Method == "tools/call" && msg.Params.Name == "exit":
		l.Close()
		return nil
	case msg.Method == "resources/read":
		uri, _ := json.Marshal(msg.Params.URI)
		result = `{"contents":[{"uri":` + string(uri) + `,"text":"rows"}]}`
	case msg.Method == "tools/call":
		result = `{"content":[{"type":"text","text":"done"}]}`
	default:
		result = `{}`
	}
	l.reply(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + result + `}`)
	return nil
}

func (l *legacyServer) reply(s string) {
	select {
	case l.in <- []byte(s):
	case <-l.done:
	}
}

func (l *legacyServer) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-l.in:
		return b, nil
	case <-l.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *legacyServer) Close() error { l.once.Do(func() { close(l.done) }); return nil }

// TestResourceURISecretsNotRecorded reads resources whose URIs hold a
// password and secret query values, as a database's or an API's do: the
// mcp.resource.uri of their spans keeps the rest of the URI and none of
// the secrets.
func TestResourceURISecretsNotRecorded(t *testing.T) {
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp})
	if err != nil {
		t.Fatal(err)
	}
	opts := &runtime.Options{}
	tel.Install(opts)
	ctx := context.Background()
	s, err := runtime.Connect(ctx, newLegacyServer(""), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	uris := map[string]string{
		"postgres://admin:hunter2-5c1e@db.example.com/customers?sslmode=require": "postgres://admin:[REDACTED]@db.example.com/customers?sslmode=require",
		"https://api.example.com/v1/report?api_key=k-7f3a9c1d&day=1":             "https://api.example.com/v1/report?api_key=[REDACTED]&day=[REDACTED]",
		"https://tok-2b8e4d6f@git.example.com/repo/README.md":                    "https://[REDACTED]@git.example.com/repo/README.md",
	}
	for uri, want := range uris {
		rec.exp.Reset()
		if _, err := s.ReadResource(ctx, uri); err != nil {
			t.Fatal(err)
		}
		wantAttrs(t, rec.span(t, "resources/read"), map[string]string{"mcp.resource.uri": want})
	}
	for _, secret := range []string{"hunter2-5c1e", "k-7f3a9c1d", "tok-2b8e4d6f"} {
		noSecret(t, rec, secret)
	}
}

// TestServerRequestID: the jsonrpc.request.id of a server's request is its
// id as a string, not as JSON text, and a credential the server put in it
// is scrubbed.
func TestServerRequestID(t *testing.T) {
	const bearer = "bearer-token-3e9d5a7c1f"
	for _, tc := range []struct{ id, want string }{
		{"request-7", "request-7"},
		{"s-" + bearer, "s-[REDACTED]"},
	} {
		rec := newRecorder(t)
		tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp})
		if err != nil {
			t.Fatal(err)
		}
		opts := &runtime.Options{Sampling: func(context.Context, *runtime.SamplingRequest) (*runtime.SamplingResult, error) {
			return &runtime.SamplingResult{Role: "assistant", Content: []runtime.Content{{Type: runtime.ContentText, Text: "ok"}}, Model: "m", StopReason: "endTurn"}, nil
		}}
		tel.Install(opts)
		srv := newLegacyServer(bearer)
		srv.sampleID = tc.id
		ctx := context.Background()
		s, err := runtime.Connect(ctx, srv, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CallTool(ctx, "sample", json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
		s.Close()
		wantAttrs(t, rec.span(t, "sampling/createMessage"), map[string]string{"jsonrpc.request.id": tc.want})
		noSecret(t, rec, bearer)
	}
}

// TestServerTextBoundedOnSpans: a tool name, a prompt name and a resource
// URI of 1 MiB, and the Mcp-Session-Id a server may make as long, are cut
// on the spans, names included, so that the spans a batch holds stay
// small; two long names that differ only past the cut stay apart.
func TestServerTextBoundedOnSpans(t *testing.T) {
	rec := newRecorder(t)
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp})
	if err != nil {
		t.Fatal(err)
	}
	opts := &runtime.Options{}
	tel.Install(opts)
	ctx := context.Background()
	s, err := runtime.Connect(ctx, newLegacyServer(""), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	long := strings.Repeat("x", 1<<20)
	for _, tool := range []string{long + "a", long + "b"} {
		if _, err := s.CallTool(ctx, tool, json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.ReadResource(ctx, "file:///"+long); err != nil {
		t.Fatal(err)
	}
	names := make(map[string]bool)
	for _, sp := range rec.exp.GetSpans() {
		if len(sp.Name) > 1024 {
			t.Errorf("a span name of %d bytes", len(sp.Name))
		}
		for _, a := range sp.Attributes {
			if n := len(a.Value.Emit()); n > 1024 {
				t.Errorf("span %.40q: %s of %d bytes", sp.Name, a.Key, n)
			}
		}
		if strings.HasPrefix(sp.Name, "tools/call ") {
			names[sp.Name] = true
		}
	}
	if len(names) != 2 {
		t.Errorf("%d distinct tools/call span names for two tools, want 2", len(names))
	}
}

// TestMetricNamesBounded calls 3,000 tools of distinct names, as a hostile
// server can list and a model call: the operation duration keeps a
// bounded set of gen_ai.tool.name values, the others counted as _OTHER.
func TestMetricNamesBounded(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	tel, err := otelmcp.New(&otelmcp.Options{MeterProvider: mp, TracerProvider: noop.NewTracerProvider()})
	if err != nil {
		t.Fatal(err)
	}
	opts := &runtime.Options{}
	tel.Install(opts)
	ctx := context.Background()
	s, err := runtime.Connect(ctx, newLegacyServer(""), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const calls = 3000
	for i := 0; i < calls; i++ {
		if _, err := s.CallTool(ctx, "tool-"+strings.Repeat("y", i%7)+string(rune('a'+i%26))+itoa(i), json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	m := find(rm, "mcp.client.operation.duration")
	if m == nil {
		t.Fatal("no mcp.client.operation.duration")
	}
	var points int
	var total, other uint64
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		if v, _ := dp.Attributes.Value("mcp.method.name"); v.AsString() != "tools/call" {
			continue
		}
		points++
		total += dp.Count
		if v, _ := dp.Attributes.Value("gen_ai.tool.name"); v.AsString() == "_OTHER" {
			other += dp.Count
		}
	}
	if points > 1100 {
		t.Errorf("%d tools/call points for %d tools, want at most 1,100", points, calls)
	}
	if total != calls || other == 0 {
		t.Errorf("%d tools/call measurements (%d as _OTHER), want %d", total, other, calls)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestPanicBelowIsRecorded puts a Middleware that panics inside the
// Client's: the span ends with status Error and error.type _OTHER, and
// the operation is measured once, before the panic goes on to the caller.
func TestPanicBelowIsRecorded(t *testing.T) {
	rec := newRecorder(t)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	opts := &runtime.Options{}
	tel.Install(opts)
	opts.Middleware = append(opts.Middleware, func(next runtime.Handler) runtime.Handler {
		return func(ctx context.Context, req *runtime.Request) (*runtime.Response, error) {
			if req.Method == "tools/call" {
				panic("broken middleware")
			}
			return next(ctx, req)
		}
	})
	ctx := context.Background()
	s, err := runtime.Connect(ctx, newLegacyServer(""), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	func() {
		defer func() {
			if p := recover(); p != "broken middleware" {
				t.Errorf("recovered %v, want the middleware's panic", p)
			}
		}()
		_, _ = s.CallTool(ctx, "t", json.RawMessage(`{}`))
	}()
	call := rec.span(t, "tools/call t")
	wantAttrs(t, call, map[string]string{"error.type": "_OTHER"})
	if call.Status.Code != codes.Error {
		t.Errorf("status %v, want Error", call.Status.Code)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	var n uint64
	if m := find(rm, "mcp.client.operation.duration"); m != nil {
		for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
			if v, _ := dp.Attributes.Value("mcp.method.name"); v.AsString() == "tools/call" {
				n += dp.Count
				if v, _ := dp.Attributes.Value("error.type"); v.AsString() != "_OTHER" {
					t.Errorf("tools/call point without error.type _OTHER: %v", dp.Attributes.ToSlice())
				}
			}
		}
	}
	if n != 1 {
		t.Errorf("%d tools/call measurements, want 1", n)
	}
}

// TestSessionDurationWhenServerEnds: a server that goes away ends the
// session's duration then, without waiting for Close, with error.type set
// and the session's protocol version; a Session closed by its program has
// no error.type.
func TestSessionDurationWhenServerEnds(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	tel, err := otelmcp.New(&otelmcp.Options{MeterProvider: mp, TracerProvider: noop.NewTracerProvider()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	connect := func() *runtime.Session {
		opts := &runtime.Options{}
		tel.Install(opts)
		s, err := runtime.Connect(ctx, newLegacyServer(""), opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ended := connect()
	defer ended.Close()
	if _, err := ended.CallTool(ctx, "exit", json.RawMessage(`{}`)); err == nil {
		t.Fatal("the call that ends the server succeeded")
	}
	<-ended.Done()
	closed := connect()
	closed.Close()

	// Each duration is recorded on a goroutine of its own once its
	// Session has ended: collect until both are there.
	deadline := time.Now().Add(time.Minute)
	for {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		var points []metricdata.HistogramDataPoint[float64]
		var n uint64
		if m := find(rm, "mcp.client.session.duration"); m != nil {
			points = m.Data.(metricdata.Histogram[float64]).DataPoints
			for _, dp := range points {
				n += dp.Count
			}
		}
		if n < 2 {
			if time.Now().After(deadline) {
				t.Fatalf("%d session durations a minute after the server ended and a Close, want 2", n)
			}
			time.Sleep(time.Millisecond)
			continue
		}
		var failed, fine uint64
		for _, dp := range points {
			if v, _ := dp.Attributes.Value("mcp.protocol.version"); v.AsString() != "2025-11-25" {
				t.Errorf("a session duration without the protocol version: %v", dp.Attributes.ToSlice())
			}
			if v, ok := dp.Attributes.Value("error.type"); ok {
				if v.AsString() == "" {
					t.Errorf("an empty error.type")
				}
				failed += dp.Count
			} else {
				fine += dp.Count
			}
		}
		if failed != 1 || fine != 1 {
			t.Errorf("%d sessions with error.type and %d without, want 1 and 1", failed, fine)
		}
		return
	}
}

// TestTaskToolErrorRecorded runs tool calls as tasks whose result has
// isError set, in both eras: the request that brings the result (a
// 2025-11-25 tasks/result, a 2026-07-28 tasks/get that inlines it) has
// error.type tool_error, as a tools/call with such a result has.
func TestTaskToolErrorRecorded(t *testing.T) {
	for _, modern := range []bool{false, true} {
		rec := newRecorder(t)
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		defer mp.Shutdown(context.Background())
		tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, MeterProvider: mp})
		if err != nil {
			t.Fatal(err)
		}
		opts := &runtime.Options{}
		tel.Install(opts)
		ctx := context.Background()
		var conn runtime.Transport = newLegacyServer("")
		method := "tasks/result"
		if modern {
			srv := newMetaServer(true)
			srv.failTasks = true
			conn, method = srv, "tasks/get"
		}
		s, err := runtime.Connect(ctx, conn, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		tool := "job"
		if modern {
			tool = "slow"
		}
		task, err := s.StartToolTask(ctx, tool, json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		var te *runtime.ToolError
		if _, err := task.Wait(ctx); !errors.As(err, &te) {
			t.Fatalf("modern=%v: the task's error is %v, want a ToolError", modern, err)
		}
		var result tracetest.SpanStub
		for _, sp := range rec.exp.GetSpans() {
			if sp.Name == method {
				result = sp
			}
		}
		if result.Name == "" {
			t.Fatalf("modern=%v: no %s span", modern, method)
		}
		wantAttrs(t, result, map[string]string{"error.type": "tool_error"})
		if result.Status.Code != codes.Error {
			t.Errorf("modern=%v: %s status %v, want Error", modern, method, result.Status.Code)
		}
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, dp := range find(rm, "mcp.client.operation.duration").Data.(metricdata.Histogram[float64]).DataPoints {
			v, _ := dp.Attributes.Value("mcp.method.name")
			e, _ := dp.Attributes.Value("error.type")
			if v.AsString() == method && e.AsString() == "tool_error" {
				found = true
			}
		}
		if !found {
			t.Errorf("modern=%v: no %s point with error.type tool_error", modern, method)
		}
	}
}

// TestHTTPStatusErrorType: a request the server refuses with an HTTP
// status (a 503 from a proxy in front of it, a 401) has that status as
// its error.type, on the span and the measurement, so that such failures
// stay apart from each other and from _OTHER; no rpc.response.status_code
// goes with it.
func TestHTTPStatusErrorType(t *testing.T) {
	srv, err := server.New([]server.Tool{{Tool: runtime.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
			return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done"}}}, nil
		}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	status := make(chan int, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			w.WriteHeader(<-status)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	defer hs.Close()
	rec := newRecorder(t)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	tel, err := otelmcp.New(&otelmcp.Options{TracerProvider: rec.tp, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := &runtime.Options{}
	tel.Install(opts)
	s, err := runtime.Connect(ctx, runtime.HTTP(hs.URL, nil), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, code := range []int{http.StatusServiceUnavailable, http.StatusUnauthorized} {
		rec.exp.Reset()
		status <- code
		_, err := s.CallTool(ctx, "echo", json.RawMessage(`{}`))
		var he *runtime.HTTPError
		if !errors.As(err, &he) || he.StatusCode != code {
			t.Fatalf("the call's error is %v, want HTTP %d", err, code)
		}
		wantAttrs(t, rec.span(t, "tools/call echo"), map[string]string{"error.type": strconv.Itoa(code), "rpc.response.status_code": "-"})
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := make(map[string]uint64)
	for _, dp := range find(rm, "mcp.client.operation.duration").Data.(metricdata.Histogram[float64]).DataPoints {
		if v, _ := dp.Attributes.Value("mcp.method.name"); v.AsString() != "tools/call" {
			continue
		}
		e, _ := dp.Attributes.Value("error.type")
		got[e.AsString()] += dp.Count
		if dp.Attributes.HasValue("rpc.response.status_code") {
			t.Errorf("a point with rpc.response.status_code: %v", dp.Attributes.ToSlice())
		}
	}
	if got["503"] != 1 || got["401"] != 1 {
		t.Errorf("tools/call points by error.type: %v, want one 503 and one 401", got)
	}
}
