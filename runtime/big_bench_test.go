package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// bigSize is the text of the big results the benchmarks below ask for, as
// mcpbench's 1 MiB result does.
const bigSize = 1 << 20

// BenchmarkBigResultStdio calls a tool that returns 1 MiB of text over
// stdio; BenchmarkMinimalBigResultStdio makes the same call as the minimal
// client (BenchmarkMinimalStdioCall) does.
func BenchmarkBigResultStdio(b *testing.B) {
	s, err := Connect(context.Background(), fakeTransport(b, "legacy"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchBigCalls(b, s)
}

// benchBigCalls calls the big tool through s for each round of b, and
// reports the CPU time each call took.
func benchBigCalls(b *testing.B, s *Session) {
	args := json.RawMessage(`{"n":` + strconv.Itoa(bigSize) + `}`)
	ctx := context.Background()
	b.SetBytes(bigSize)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		res, err := s.CallTool(ctx, "big", args)
		if err != nil || len(res.Text()) != bigSize {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkMinimalBigResultStdio(b *testing.B) {
	conn, err := fakeTransport(b, "legacy").Connect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	c := conn.(*stdioConn)
	var id int64
	roundTrip := func(line string) json.RawMessage {
		id++
		if _, err := io.WriteString(c.stdin, strings.Replace(line, "ID", strconv.FormatInt(id, 10), 1)+"\n"); err != nil {
			b.Fatal(err)
		}
		for {
			data, err := c.readLine()
			if err != nil {
				b.Fatal(err)
			}
			var r struct {
				ID     int64           `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(data, &r); err != nil {
				b.Fatal(err)
			}
			if r.ID == id {
				return r.Result
			}
		}
	}
	roundTrip(`{"jsonrpc":"2.0","id":ID,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}}`)
	io.WriteString(c.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	b.SetBytes(bigSize)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		var res struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		raw := roundTrip(`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"big","arguments":{"n":` + strconv.Itoa(bigSize) + `}}}`)
		if err := json.Unmarshal(raw, &res); err != nil || len(res.Content[0].Text) != bigSize {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// bigHTTPServer answers server/discover, and every tools/call with 1 MiB
// of text in one SSE event, as the go-sdk server does; the response is
// made once, so that the server costs little.
func bigHTTPServer(tb testing.TB) *httptest.Server {
	text := strings.Repeat("x", bigSize)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, answered := answerBenchPreamble(w, r)
		if answered {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `event: message`+"\n"+`data: {"jsonrpc":"2.0","id":`+string(id)+`,"result":{"resultType":"complete","content":[{"type":"text","text":"`)
		io.WriteString(w, text)
		io.WriteString(w, `"}]}}`+"\n\n")
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// BenchmarkBigResultHTTP calls a tool that returns 1 MiB of text over
// Streamable HTTP, as an SSE stream; BenchmarkMinimalBigResultHTTP makes the
// same call as mcpbench's floor client does.
func BenchmarkBigResultHTTP(b *testing.B) {
	srv := bigHTTPServer(b)
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, nil), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	// The server runs in this process too, and costs both the same.
	benchBigCalls(b, s)
}

func BenchmarkMinimalBigResultHTTP(b *testing.B) {
	srv := bigHTTPServer(b)
	client := &http.Client{}
	id := 0
	b.SetBytes(bigSize)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		id++
		data := minimalCall(b, client, srv.URL, id, "big", `{"n":`+strconv.Itoa(bigSize)+`}`)
		var out struct {
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if payload, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				if err := json.Unmarshal(bytes.TrimSpace(payload), &out); err != nil {
					b.Fatal(err)
				}
			}
		}
		if len(out.Result.Content) != 1 || len(out.Result.Content[0].Text) != bigSize {
			b.Fatalf("bad response of %d bytes", len(data))
		}
	}
	reportCPU(b, start)
}
