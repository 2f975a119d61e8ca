package runtime

import (
	"context"
	"encoding/base64"
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
		// Notifications the Session logs at debug level with their params.
		for _, n := range []string{"notifications/cancelled", "notifications/progress", "notifications/subscriptions/acknowledged", "notifications/elicitation/complete"} {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":%q,\"params\":{\"requestId\":987654,\"echo\":%q}}\n\n", n, echo)
		}
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
	for _, want := range []string{"mcp recv", "server saw", "malformed", "refused Bearer [REDACTED] [REDACTED]", "the server cancelled a request", "ignored a malformed progress notification", "subscription acknowledged", "ignored a malformed elicitation/complete"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not logged: the test proves nothing\n%s", want, text)
		}
	}
}

// TestSecretEchoEscapedAndBasic talks to a server that echoes the
// credential it receives, every character a \u escape, in log notifications,
// error responses and isError results: once with a bearer token, once with
// credentials in the URL, which go as Basic authorization (the server echoes
// their base64 and the decoded password). The traffic log, the server log
// records, the tool call records and the errors show none of them in any
// spelling.
func TestSecretEchoEscapedAndBasic(t *testing.T) {
	checkLeaks(t)
	const token = "esc-tok-SECRET-5a5a"
	const password = "esc-pw-SECRET-6b6b"
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + password))
	t.Setenv("MCPGEN_TEST_ESC_TOKEN", token)
	escape := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return b.String()
	}
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		_, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		_, pw, _ := r.BasicAuth()
		echo := escape(cred) + " " + escape(pw)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"error\",\"data\":\"server saw %s\"}}\n\n", echo)
		switch m.Params.Name {
		case "rpcerr":
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32000,\"message\":\"refused %s\",\"data\":{\"sent\":\"%s\"}}}\n\n", m.ID, echo, echo)
		default:
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":%q}]}}\n\n", m.ID, "failed for "+cred+" "+pw)
		}
	})
	for name, endpoint := range map[string]string{
		"bearer": srv.URL + "/mcp",
		"basic":  strings.Replace(srv.URL, "http://", "http://alice:"+password+"@", 1) + "/mcp",
	} {
		var logs logBuffer
		opts := testHTTPOptions(t)
		if name == "bearer" {
			opts.BearerEnv = "MCPGEN_TEST_ESC_TOKEN"
		}
		s, err := Connect(context.Background(), StreamableHTTP(endpoint, opts), &Options{Logger: logs.logger(), LogTraffic: true})
		if err != nil {
			t.Fatal(err)
		}
		_, failErr := s.CallTool(context.Background(), "fail", nil)
		_, err = s.CallTool(context.Background(), "rpcerr", nil)
		s.Close()
		var re *RPCError
		if failErr == nil || !errors.As(err, &re) {
			t.Fatalf("%s: fail: %v; rpcerr: %v, want an *RPCError", name, failErr, err)
		}
		text := logs.String() + "\n" + err.Error() + "\n" + string(re.Data)
		for _, secret := range []string{token, password, basic} {
			for _, spelling := range []string{secret, escape(secret), strings.ReplaceAll(escape(secret), `\`, `\\`)} {
				if strings.Contains(text, spelling) {
					t.Errorf("%s: the secret %s shows as %s in the logs or the error:\n%s", name, secret, spelling, text)
				}
			}
		}
		for _, want := range []string{"server saw [REDACTED]", "refused [REDACTED]", `msg="tool call" tool=fail`, "failed for [REDACTED]"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: %q not logged: the test proves nothing\n%s", name, want, text)
			}
		}
	}
}

// TestSecretTooShortNotRedacted uses a one-byte bearer token and password:
// they are too short to be told apart from other text, so an error naming
// staging.example.com is not garbled into staging.e[REDACTED]ample.com.
func TestSecretTooShortNotRedacted(t *testing.T) {
	checkLeaks(t)
	t.Setenv("MCPGEN_TEST_SHORT_TOKEN", "x")
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "staging.example.com is down for maintenance", http.StatusServiceUnavailable)
	})
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_SHORT_TOKEN"
	c := dial(t, StreamableHTTP(strings.Replace(srv.URL, "http://", "http://u:a@", 1)+"/mcp", opts))
	err := c.Write(context.Background(), rpcReq(1, "initialize", ""))
	if err == nil || !strings.Contains(err.Error(), "staging.example.com is down") || strings.Contains(err.Error(), "[REDACTED]") {
		t.Errorf("err = %v; want the body unchanged", err)
	}
}

// TestTrafficLogKeepsTokenCounts checks that the traffic log keeps the
// counts of model tokens in a sampling request and its result, and still
// hides credentials beside them.
func TestTrafficLogKeepsTokenCounts(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"maxTokens":512,"messages":[],"_meta":{"progressToken":7},"usage":{"inputTokens":12,"output_tokens":30},"refresh_token":"r3fr3sh-t0k3n"}}`
	out := redactJSON([]byte(msg))
	for _, want := range []string{`"maxTokens":512`, `"progressToken":7`, `"inputTokens":12`, `"output_tokens":30`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s: %s", want, out)
		}
	}
	if strings.Contains(out, "r3fr3sh") {
		t.Errorf("the refresh token reached the log: %s", out)
	}
}
