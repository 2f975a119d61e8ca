package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestLoopingCursorScrubbed talks to a server whose pagination loops on a
// cursor that repeats the bearer token it received, behind terminal
// escapes: the error of each listing that follows the cursors (tools/list
// and the lists of listPages) names the cursor as every server text is
// named, scrubbed of the connection's credentials and quoted.
func TestLoopingCursorScrubbed(t *testing.T) {
	const token = "loop-tok-SECRET-3131"
	t.Setenv("MCPGEN_TEST_LOOP_TOKEN", token)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		cursor, _ := json.Marshal("\x1b]0;pwned\x07 " + r.Header.Get("Authorization"))
		switch m.Method {
		case "server/discover":
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, modernDiscover))
		case "tools/list", "prompts/list":
			key := strings.TrimSuffix(m.Method, "/list")
			writeJSON(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","%s":[],"nextCursor":%s,"ttlMs":0,"cacheScope":"public"}}`, m.ID, key, cursor))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_LOOP_TOKEN"
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL+"/mcp", opts), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, terr := s.ListTools(context.Background())
	_, perr := s.ListPrompts(context.Background())
	for _, err := range []error{terr, perr} {
		if err == nil || !strings.Contains(err.Error(), "twice") {
			t.Fatalf("error %v, want the loop reported", err)
		}
		if msg := err.Error(); strings.Contains(msg, token) || strings.ContainsAny(msg, "\x1b\x07") || !strings.Contains(msg, `"\x1b]0;pwned\a Bearer [REDACTED]"`) {
			t.Errorf("error %q, want the cursor quoted with the token scrubbed", msg)
		}
	}
}
