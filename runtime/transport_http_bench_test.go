package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// benchServer answers every POST with a tools/call result carrying the
// request's id, as JSON or as a one-event SSE stream.
func benchServer(tb testing.TB, useSSE bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, answered := answerBenchPreamble(w, r)
		if answered {
			return
		}
		resp := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"resultType":"complete","content":[{"type":"text","text":"Echo: hello"}]}}`
		if useSSE {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: "+resp+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, resp)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// answerBenchPreamble reads the id of the request a benchmark server got,
// and answers what is not a tool call: a notification, with 202, and the
// server/discover probe. answered reports whether it did.
func answerBenchPreamble(w http.ResponseWriter, r *http.Request) (id json.RawMessage, answered bool) {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	json.NewDecoder(r.Body).Decode(&m)
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return nil, true
	}
	if r.Header.Get("Mcp-Method") == "server/discover" {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}`)
		return nil, true
	}
	return m.ID, false
}

func benchmarkSession(b *testing.B, useSSE bool) {
	srv := benchServer(b, useSSE)
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, nil), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	args := json.RawMessage(`{"message":"hello"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.CallTool(ctx, "echo", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamableCallJSON and BenchmarkStreamableCallSSE measure a
// tools/call through the Session over Streamable HTTP, answered as JSON and
// as an event stream; BenchmarkMinimalHTTPCall is the same exchange written
// by hand with net/http and encoding/json, the yardstick.
func BenchmarkStreamableCallJSON(b *testing.B) { benchmarkSession(b, false) }
func BenchmarkStreamableCallSSE(b *testing.B)  { benchmarkSession(b, true) }

// minimalCall makes the tools/call request id of tool with args (JSON text)
// as a minimal 2026-07-28 client does, with net/http alone, and returns the
// response body.
func minimalCall(b testing.TB, client *http.Client, url string, id int, tool, args string) []byte {
	body := []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":` + strconv.Quote(tool) + `,"arguments":` + args + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return data
}

func BenchmarkMinimalHTTPCall(b *testing.B) {
	srv := benchServer(b, false)
	url := srv.URL
	client := &http.Client{}
	id := 0
	b.ReportAllocs()
	for b.Loop() {
		id++
		minimalEcho(b, client, url, id)
	}
}

// minimalEcho calls the echo tool as minimalCall does and decodes the
// result the way a minimal client reads its own response.
func minimalEcho(tb testing.TB, client *http.Client, url string, id int) {
	data := minimalCall(tb, client, url, id, "echo", `{"message":"hello"}`)
	var out struct {
		Result struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Result.Content) != 1 {
		tb.Fatalf("bad response %s", data)
	}
}
