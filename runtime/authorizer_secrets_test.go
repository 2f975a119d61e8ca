package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// rotatingAuthorizer is an Authorizer that signs each request with its
// current token and, on a 401, moves to the next one, as an OAuth
// Authorizer does after a sign-in or a refresh.
type rotatingAuthorizer struct {
	mu     sync.Mutex
	tokens []string
	n      int
}

func (a *rotatingAuthorizer) Authorize(req *http.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	req.Header.Set("Authorization", "Bearer "+a.tokens[a.n])
	return nil
}

func (a *rotatingAuthorizer) Refused(context.Context, *http.Request, *http.Response) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n+1 == len(a.tokens) {
		return false, nil
	}
	a.n++
	return true, nil
}

// TestEchoedAuthorizerTokenScrubbed talks to a server that repeats the
// access token an Authorizer gave it in everything it sends: log
// notifications, tool results, error responses, an isError result. The
// token is a credential of the connection as much as a BearerEnv token is:
// no log record and no error string may hold it, the one obtained after a
// refusal included.
func TestEchoedAuthorizerTokenScrubbed(t *testing.T) {
	checkLeaks(t)
	const first, second = "authz-tok-SECRET-first-1", "authz-tok-SECRET-second-2"
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		auth := r.Header.Get("Authorization")
		if m.Method == "tools/call" && m.Params.Name == "refuse" && strings.HasSuffix(auth, first) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "expired: "+auth, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"error\",\"data\":%q}}\n\n", "server saw "+auth)
		switch m.Params.Name {
		case "rpcerr":
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32000,\"message\":%q}}\n\n", m.ID, "refused "+auth)
		case "fail", "refuse":
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":%q}]}}\n\n", m.ID, "failed for "+auth)
		default:
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%q}]}}\n\n", m.ID, auth)
		}
	})
	var logs logBuffer
	opts := testHTTPOptions(t)
	opts.Authorizer = &rotatingAuthorizer{tokens: []string{first, second}}
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL+"/mcp", opts), &Options{Logger: logs.logger(), LogTraffic: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(context.Background(), "echo", nil); err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, name := range []string{"rpcerr", "fail", "refuse"} {
		_, err := s.CallTool(context.Background(), name, nil)
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		errs = append(errs, err.Error())
	}
	var te *ToolError
	_, err = s.CallTool(context.Background(), "fail", nil)
	if !errors.As(err, &te) || !strings.Contains(te.Result.Text(), second) {
		t.Errorf("the *ToolError does not keep the result as the server sent it: %v", err)
	}
	text := logs.String() + "\n" + strings.Join(errs, "\n")
	for _, secret := range []string{first, second} {
		if strings.Contains(text, secret) {
			t.Errorf("the token %s shows in the logs or the errors:\n%s", secret, text)
		}
	}
	for _, want := range []string{"mcp recv", "server saw", "refused [REDACTED]", "failed for [REDACTED]"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not logged: the test proves nothing\n%s", want, text)
		}
	}
}
