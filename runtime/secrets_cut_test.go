package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestEchoedSecretsNotCutBeforeRedaction checks that a credential the
// server echoes where the client cuts the text it shows (the 2 KiB of an
// HTTP error body, the start of a malformed error response) is redacted
// before the cut: cut first, the part before the cut is no longer the
// whole secret, is not matched, and shows.
func TestEchoedSecretsNotCutBeforeRedaction(t *testing.T) {
	checkLeaks(t)
	const token = "cut-tok-SECRET-5821-abcdef"
	t.Setenv("MCPGEN_TEST_CUT_TOKEN", token)
	shown := token[:len(token)-6] // what a cut leaves of it

	// An HTTP error body, cut to maxErrorBodyShown bytes.
	failing := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, strings.Repeat("x", maxErrorBodyShown-len(shown))+tok+" and more")
	})
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_CUT_TOKEN"
	c := dial(t, StreamableHTTP(failing.URL+"/mcp", opts))
	err := c.Write(context.Background(), rpcReq(1, "initialize", ""))
	c.Close()
	var he *HTTPError
	if !errors.As(err, &he) {
		t.Fatalf("Write error = %v, want an *HTTPError", err)
	}
	if strings.Contains(err.Error(), shown) || strings.Contains(string(he.Body), shown) {
		t.Errorf("the HTTP error shows the start of the token (%q) where its body was cut", shown)
	}

	// A malformed error response, shown by its first 200 bytes.
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		head := `{"code":"bad","message":"`
		pad := strings.Repeat("y", 200-len(head)-len(shown))
		w.Header().Set("Content-Type", "text/event-stream")
		// A malformed message first, which the traffic log cuts to its
		// first 200 bytes.
		fmt.Fprintf(w, "data: {\"oops\":\"%s%s\n\n", strings.Repeat("z", 200-len(`{"oops":"`)-len(shown)), tok)
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":%s%s%s\"}}\n\n", m.ID, head, pad, tok)
	})
	var logs logBuffer
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL+"/mcp", opts), &Options{Logger: logs.logger(), LogTraffic: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.CallTool(context.Background(), "echo", nil)
	var re *RPCError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "malformed error response") {
		t.Fatalf("CallTool error = %v, want an *RPCError for the malformed error", err)
	}
	if strings.Contains(err.Error(), shown) {
		t.Errorf("the *RPCError shows the start of the token (%q) where the malformed response was cut: %v", shown, err)
	}
	if !strings.Contains(logs.String(), "zzz") {
		t.Fatalf("the malformed message was not logged: the test proves nothing\n%s", logs.String())
	}
	if strings.Contains(logs.String(), shown) {
		t.Errorf("the traffic log shows the start of the token (%q) where a malformed message was cut:\n%s", shown, logs.String())
	}
}
