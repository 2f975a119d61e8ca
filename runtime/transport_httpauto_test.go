package runtime

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// requestLine renders a recorded request for comparison.
func requestLine(r httpRecord) string {
	line := r.Method + " " + r.Path
	if r.Header.Get("Accept") == "text/event-stream" {
		line += " (sse)"
	}
	return line
}

func TestAutoDetection(t *testing.T) {
	tests := []struct {
		name   string
		server func(t *testing.T) *httpServer
		path   string
		// want lists the requests of Connect: the probe, the handshake
		// and anything between.
		want []string
	}{
		{
			name:   "HTTP+SSE server",
			server: func(t *testing.T) *httpServer { return newSSEServer(t).httpServer },
			path:   "/sse",
			want: []string{
				"POST /sse",      // server/discover: 405
				"POST /sse",      // initialize: 405
				"GET /sse (sse)", // the endpoint event
				"POST /messages", // initialize again, over HTTP+SSE
				"POST /messages", // notifications/initialized
			},
		},
		{
			name:   "legacy Streamable HTTP server",
			server: func(t *testing.T) *httpServer { return newStreamableServer(t, false, false).httpServer },
			path:   "/mcp",
			want: []string{
				"POST /mcp", // server/discover: plain 400
				"POST /mcp", // initialize
				"POST /mcp", // notifications/initialized
			},
		},
		{
			name:   "modern Streamable HTTP server",
			server: func(t *testing.T) *httpServer { return newStreamableServer(t, true, false).httpServer },
			path:   "/mcp",
			want:   []string{"POST /mcp"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLeaks(t)
			srv := tt.server(t)
			s := connectHTTP(t, HTTP(srv.URL+tt.path, testHTTPOptions(t)))
			s.Close()
			var got []string
			for _, r := range srv.requests() {
				// DELETE on Close, and the GET stream opened in the
				// background after the handshake, are not detection.
				if r.Method != http.MethodDelete && requestLine(r) != "GET /mcp (sse)" {
					got = append(got, requestLine(r))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestAutoDetectionNeither checks a URL that speaks neither transport: the
// Session gets the POST's error.
func TestAutoDetectionNeither(t *testing.T) {
	checkLeaks(t)
	srv := newHTTPServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.NotFound(w, r)
	})
	c := dial(t, HTTP(srv.URL+"/nothing", testHTTPOptions(t)))
	err := c.Write(context.Background(), rpcReq(1, "initialize", ""))
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 404 || he.Method != http.MethodPost {
		t.Fatalf("Write = %v, want the POST's 404", err)
	}
	reqs := srv.requests()
	if len(reqs) != 2 || requestLine(reqs[1]) != "GET /nothing (sse)" {
		t.Errorf("requests: %v", reqs)
	}
	// The transport is not settled: a later initialize tries again.
	if err := c.Write(context.Background(), rpcReq(2, "initialize", "")); !errors.As(err, &he) {
		t.Errorf("second Write = %v", err)
	}
}
