package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestServerLogLoggerScrubbedAndBounded talks to a server whose log
// notifications name their logger after the bearer token it received, and
// with 1 MiB of text and terminal escapes: the Session's record of them
// holds no token, and the logger name is quoted and cut, as server text is.
func TestServerLogLoggerScrubbedAndBounded(t *testing.T) {
	checkLeaks(t)
	const token = "log-tok-SECRET-3c3c"
	t.Setenv("MCPGEN_TEST_LOG_TOKEN", token)
	long := strings.Repeat("x", 1<<20)
	srv := modernHTTPServer(t, func(w http.ResponseWriter, r *http.Request, m rpcIn) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, logger := range []string{"auth " + r.Header.Get("Authorization"), "\x1b]0;title\x07" + long} {
			name, _ := json.Marshal(logger)
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"warning\",\"logger\":%s,\"data\":\"hello\"}}\n\n", name)
		}
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n\n", m.ID)
	})
	var logs logBuffer
	opts := testHTTPOptions(t)
	opts.BearerEnv = "MCPGEN_TEST_LOG_TOKEN"
	s, err := Connect(context.Background(), StreamableHTTP(srv.URL+"/mcp", opts), &Options{Logger: logs.logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	text := logs.String()
	if n := strings.Count(text, `msg="server log"`); n != 2 {
		t.Fatalf("%d server log records, want 2: the test proves nothing\n%.2000s", n, text)
	}
	if strings.Contains(text, token) {
		t.Errorf("the token shows in the server log records:\n%.2000s", text)
	}
	if len(text) > 64<<10 {
		t.Errorf("the server log records hold %d bytes for a 1 MiB logger name", len(text))
	}
	if strings.Contains(text, "\x1b") || strings.Contains(text, "\x07") {
		t.Errorf("a terminal escape shows raw in the records")
	}
}
