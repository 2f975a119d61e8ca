package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// collector stands in for an OpenTelemetry collector's OTLP/HTTP receiver:
// it answers every export with status and keeps the paths it was sent to.
type collector struct {
	status int
	mu     sync.Mutex
	paths  []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	c.mu.Lock()
	c.paths = append(c.paths, r.URL.Path)
	c.mu.Unlock()
	w.WriteHeader(c.status)
}

func (c *collector) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.paths...)
}

// serveCollector starts a collector that answers with status and points
// the exporters at it.
func serveCollector(t *testing.T, status int) *collector {
	c := &collector{status: status}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	return c
}

// TestRunExportsTheCall runs the example against the go-sdk server over
// stdio: the tool's text is printed, and the traces and metrics of the
// session reach the collector before run returns.
func TestRunExportsTheCall(t *testing.T) {
	c := serveCollector(t, http.StatusOK)
	var out bytes.Buffer
	err := run(testenv.Context(t), &out, "echo", json.RawMessage(`{"message":"hi"}`), []string{testenv.SDKServer(t)})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if got := out.String(); got != "hi\n" {
		t.Errorf("output %q, want %q", got, "hi\n")
	}
	paths := strings.Join(c.got(), " ")
	for _, want := range []string{"/v1/traces", "/v1/metrics"} {
		if !strings.Contains(paths, want) {
			t.Errorf("the collector got %q, no export to %s", paths, want)
		}
	}
}

// TestRunReportsFailedExport: a collector that refuses the export (400, which
// the exporters do not retry) makes run fail, rather than the telemetry being
// lost without a word.
func TestRunReportsFailedExport(t *testing.T) {
	c := serveCollector(t, http.StatusBadRequest)
	var out bytes.Buffer
	err := run(testenv.Context(t), &out, "echo", json.RawMessage(`{"message":"hi"}`), []string{testenv.SDKServer(t)})
	if err == nil {
		t.Fatalf("run succeeded though the collector refused %q", c.got())
	}
	t.Logf("run: %v", err)
	if !strings.Contains(err.Error(), "export") {
		t.Errorf("run: %v, want an error about the export", err)
	}
	if got := out.String(); got != "hi\n" {
		t.Errorf("output %q, want the tool's text before the export failed", got)
	}
}
