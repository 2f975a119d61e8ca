package runtime

import (
	"net/http"
	"strings"
	"testing"
)

// TestRedirectDropsSessionID checks that a request redirected to another
// host does not take the connection's Mcp-Session-Id there, as it does not
// take the credentials: the id is the session's key at the server that
// issued it. Go copies the header to any host, and so did the transport.
func TestRedirectDropsSessionID(t *testing.T) {
	checkLeaks(t)
	const sid = "session-7c1e5b3a9f"
	other := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, legacyAnswer("2025-06-18", readBodyString(r)))
	})
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		body := readBodyString(r)
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case strings.Contains(body, `"initialize"`):
			writeJSON(w, 200, legacyAnswer("2025-06-18", body), "Mcp-Session-Id", sid)
		case r.URL.Path == "/same":
			writeJSON(w, 200, legacyAnswer("2025-06-18", body))
		case strings.Contains(body, `"ping"`):
			http.Redirect(w, r, "/same", http.StatusTemporaryRedirect)
		default:
			http.Redirect(w, r, other.URL+"/final", http.StatusTemporaryRedirect)
		}
	})
	c := dial(t, StreamableHTTP(srv.URL+"/mcp", testHTTPOptions(t)))
	write(t, c, rpcReq(1, "initialize", ""))
	readMsg(t, c)
	write(t, c, rpcReq(2, "ping", "2025-06-18"))
	readMsg(t, c)
	write(t, c, rpcReq(3, "tools/list", "2025-06-18"))
	readMsg(t, c)
	same := false
	for _, r := range srv.requests() {
		if r.Path == "/same" {
			same = true
			if r.Header.Get("Mcp-Session-Id") != sid {
				t.Errorf("a redirect on the same host lost the session id: %v", r.Header)
			}
		}
	}
	if !same {
		t.Error("the same-host redirect was not followed")
	}
	away := other.requests()
	if len(away) != 1 {
		t.Fatalf("the other host got %d requests, want 1", len(away))
	}
	if got := away[0].Header.Get("Mcp-Session-Id"); got != "" {
		t.Errorf("a redirect to another host took the session id there: Mcp-Session-Id %q", got)
	}
}
