package runtime

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestJSONAnswerWithoutTheResponse calls a server that answers a tools/call
// POST with 200 application/json holding no response to it (a notification,
// a response to another id, a JSON object that is no JSON-RPC at all, as a
// URL that is not an MCP endpoint gives), and connects to a URL that answers
// every POST that way. Such an answer is the request's only one, so the
// request fails at once, naming the URL, instead of waiting out its timeout;
// an answer in a batch that holds the response still works.
func TestJSONAnswerWithoutTheResponse(t *testing.T) {
	checkLeaks(t)
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		switch m.Params.Name {
		case "notification":
			writeJSON(w, 200, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
		case "other-id":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":"other","result":`+textResult+`}`)
		case "not-jsonrpc":
			writeJSON(w, 200, `{"status":"ok"}`)
		case "batch":
			writeJSON(w, 200, `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}},{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+textResult+`}]`)
		}
	})
	// The calls' timeout is long enough that a failure at once is told
	// apart from it on a loaded machine.
	const callTimeout = 60 * time.Second
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL, testHTTPOptions(t)), &Options{CallTimeout: callTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tool := range []string{"notification", "other-id", "not-jsonrpc"} {
		start := time.Now()
		_, err := s.CallTool(context.Background(), tool, nil)
		var te *TimeoutError
		if err == nil || errors.As(err, &te) || !strings.Contains(err.Error(), "holds no response to the request") || !strings.Contains(err.Error(), srv.URL) {
			t.Errorf("%s: err = %v after %v; want the answer refused at once, naming the URL", tool, err, time.Since(start))
		}
	}
	if _, err := s.CallTool(context.Background(), "batch", nil); err != nil {
		t.Errorf("a batch holding the response: %v", err)
	}

	// A URL that is no MCP endpoint, answering every POST with JSON.
	rest := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		writeJSON(w, 200, `{"status":"ok"}`)
	})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, err = Connect(ctx, StreamableHTTP(rest.URL, testHTTPOptions(t)), nil)
	var pe *ProbeTimeoutError
	if err == nil || errors.As(err, &pe) || ctx.Err() != nil || !strings.Contains(err.Error(), "holds no response to the request") {
		t.Errorf("connecting to a URL that answers JSON of another kind: %v (context: %v); want the answer refused at once", err, ctx.Err())
	}
}
