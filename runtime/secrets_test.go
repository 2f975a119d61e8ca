package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestEchoedSecretsScrubbed talks to a server that repeats the credentials
// it receives in everything it sends: tool results, log notifications, error
// responses and malformed messages. With traffic logging on, no log record
// and no error string may hold the bearer token, the API key header or the
// URL key; each transport that holds credentials scrubs them.
func TestEchoedSecretsScrubbed(t *testing.T) {
	checkLeaks(t)
	const token = "echo-tok-SECRET-4411"
	const key = "echo-key-SECRET-9922"
	const query = "echo-qry-SECRET-7733"
	t.Setenv("MCPGEN_TEST_ECHO_TOKEN", token)
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		echo := r.Header.Get("Authorization") + " " + r.Header.Get("X-Api-Key") + " " + r.URL.RawQuery
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"error\",\"data\":%q}}\n\n", "server saw "+echo)
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"oops\":%q\n\n", echo)
		switch m.Params.Name {
		case "rpcerr":
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32000,\"message\":%q,\"data\":{\"sent\":%q}}}\n\n", m.ID, "refused "+echo, echo)
		default:
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%q}]}}\n\n", m.ID, echo)
		}
	})
	var logs logBuffer
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_ECHO_TOKEN"
	opts.Header = http.Header{"X-Api-Key": {key}}
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL+"/mcp?k="+query, opts), &Options{Logger: logs.logger(), LogTraffic: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(context.Background(), "echo", nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.CallTool(context.Background(), "rpcerr", nil)
	var re *RPCError
	if !errors.As(err, &re) {
		t.Fatalf("rpcerr: %v, want an *RPCError", err)
	}
	text := logs.String() + "\n" + err.Error() + "\n" + string(re.Data)
	for _, secret := range []string{token, key, query} {
		if strings.Contains(text, secret) {
			t.Errorf("the secret %s shows in the logs or the error:\n%s", secret, text)
		}
	}
	for _, want := range []string{"mcp recv", "server saw", "malformed", "refused Bearer [REDACTED] [REDACTED]"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not logged: the test proves nothing\n%s", want, text)
		}
	}
}
