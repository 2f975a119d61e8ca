package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// cannedRoundTripper answers every POST in memory, without a network: a
// server/discover probe with a DiscoverResult, any other request with a
// tools/call result carrying the request's id, as JSON.
type cannedRoundTripper struct{}

func (cannedRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(req.Body)
	req.Body.Close()
	id := body[bytes.Index(body, []byte(`"id":`))+5:]
	id = id[:bytes.IndexByte(id, ',')]
	var out string
	if req.Header.Get("Mcp-Method") == "server/discover" {
		out = `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}`
	} else {
		out = `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"resultType":"complete","content":[{"type":"text","text":"Echo: hello"}]}}`
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        http.Header{"Content-Type": headerJSON},
		ContentLength: int64(len(out)),
		Body:          io.NopCloser(bytes.NewReader([]byte(out))),
		Request:       req,
	}, nil
}

// A tools/call over Streamable HTTP made the Session wrap the caller's
// context in one of its own for the request, which the connection then
// followed with a context.AfterFunc, besides the request's own context:
// three contexts, two done channels and a children map per call, some 700
// bytes that a hand-written client does not spend. Now the connection ends
// a request's stream by its id, and a call allocates no more than the
// minimal client that makes the same exchange over the same HTTP client.
func TestStreamableCallAllocatesLikeMinimalClient(t *testing.T) {
	client := &http.Client{Transport: cannedRoundTripper{}}
	const url = "http://mcp.test/mcp"
	s, err := Connect(context.Background(), StreamableHTTP(url, &HTTPOptions{Client: client}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	args := json.RawMessage(`{"message":"hello"}`)
	ctx := context.Background()
	session := bytesPerCall(t, 2000, func() {
		res, err := s.CallTool(ctx, "echo", args)
		if err != nil || res.Text() != "Echo: hello" {
			t.Fatalf("echo: %v", err)
		}
	})
	id := 0
	minimal := bytesPerCall(t, 2000, func() {
		id++
		minimalEcho(t, client, url, id)
	})
	t.Logf("bytes per call: session %.0f, minimal client %.0f", session, minimal)
	if session > minimal {
		t.Errorf("a tools/call through the Session allocates %.0f bytes, the minimal client %.0f; want no more", session, minimal)
	}
}

// The 202 a server gives a notification has an empty body, which net/http
// hands over as http.NoBody; draining it copied it into io.Discard, whose
// 8 KiB buffer a fresh process allocated for notifications/initialized,
// and allocated a reader per response besides. An empty body is now only
// closed.
func TestDrainEmptyBodyAllocatesNothing(t *testing.T) {
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	})
	resp, err := http.Post(srv.URL, "application/json", bytes.NewReader([]byte(`{}`)))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Body != http.NoBody {
		t.Fatalf("the body of a 202 without content is %T, want http.NoBody", resp.Body)
	}
	drain(resp.Body)
	if n := testing.AllocsPerRun(100, func() { drain(http.NoBody) }); n != 0 {
		t.Errorf("draining an empty body: %v allocations, want 0", n)
	}
}
