package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestConnectFailureHidesURLPassword: a --url with a password in it, to a
// server that cannot be reached, fails naming the connection without the
// password; the program printed the URL as given before the runtime's own
// error, which shows it redacted.
func TestConnectFailureHidesURLPassword(t *testing.T) {
	t.Setenv("TEST_HA_TOKEN", "ha-secret")
	env := map[string]string{"GEMINI_API_KEY": "gemini-key"}
	var stdout, stderr bytes.Buffer
	args := []string{"--yes", "--url", "http://user:pw-s3cret@127.0.0.1:1/api/mcp", "--token-env", "TEST_HA_TOKEN", "--base-url", "http://127.0.0.1:1", "--model", "gemini-test"}
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
	if code == 0 || !strings.Contains(stderr.String(), "connecting") {
		t.Fatalf("exit status %d, stderr %q; want a failed connect", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "pw-s3cret") {
		t.Errorf("stderr shows the URL's password: %q", stderr.String())
	}
}
