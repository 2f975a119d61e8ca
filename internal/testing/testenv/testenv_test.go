package testenv

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

func TestServersStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	if _, err := os.Stat(SDKServer(t)); err != nil {
		t.Fatal(err)
	}
	url := ServeSDK(t, false)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("sdkserver URL %q", url)
	}
	sse := ServeEverything(t, "sse")
	req, _ := http.NewRequest("GET", sse, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET %s: %d %s", sse, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
