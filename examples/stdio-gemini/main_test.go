package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpgen/mcpgen/internal/testing/testenv"
)

// fakeGemini answers generateContent requests in the REST format, the n-th
// request with replies[n], and keeps the request bodies.
type fakeGemini struct {
	replies []string
	mu      sync.Mutex
	bodies  [][]byte
}

func (f *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	n := min(len(f.bodies)-1, len(f.replies)-1)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, f.replies[n])
}

// TestLiveTools runs the example against the real server-everything over
// stdio: the model is offered the tools the server lists, its echo call
// reaches the server, and the echoed text goes back to the model.
func TestLiveTools(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	server := testenv.Everything(t, "stdio")
	fake := &fakeGemini{replies: []string{
		`{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "echo", "args": {"message": "hello from the model"}}}]}, "finishReason": "STOP"}]}`,
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "The server echoed your words."}]}, "finishReason": "STOP"}]}`,
	}}
	gsrv := httptest.NewServer(fake)
	t.Cleanup(gsrv.Close)

	var stdout, stderr bytes.Buffer
	args := append([]string{"--yes", "--base-url", gsrv.URL, "--model", "gemini-test", "--"}, server...)
	env := func(k string) string {
		if k == "GEMINI_API_KEY" {
			return "key"
		}
		return ""
	}
	if code := run(context.Background(), args, strings.NewReader("echo something\n"), &stdout, &stderr, env); code != 0 {
		t.Fatalf("exit status %d, stderr:\n%s", code, stderr.String())
	}
	if got := stdout.String(); got != "The server echoed your words.\n" {
		t.Errorf("printed %q", got)
	}

	fake.mu.Lock()
	bodies := fake.bodies
	fake.mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("%d Gemini requests, want 2", len(bodies))
	}
	var first struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(bodies[0], &first); err != nil {
		t.Fatal(err)
	}
	offered := map[string]bool{}
	for _, tool := range first.Tools {
		for _, d := range tool.FunctionDeclarations {
			offered[d.Name] = true
		}
	}
	for _, want := range []string{"echo", "get-sum", "get-tiny-image"} {
		if !offered[want] {
			t.Errorf("the model was not offered %s (offered %v)", want, offered)
		}
	}
	if !bytes.Contains(bodies[1], []byte(`"output":"Echo: hello from the model"`)) {
		t.Errorf("the second request does not carry the echoed text: %s", bodies[1])
	}
}

// TestUsage checks the mistakes that stop the example before it starts the
// server.
func TestUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		key  string
		want string
	}{
		{"no command", nil, "k", "no server command (give it after --)"},
		{"no key", []string{"--", "true"}, "", "GEMINI_API_KEY is not set"},
		{"bad flag", []string{"--nope"}, "k", "flag provided but not defined: -nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := func(k string) string {
				if k == "GEMINI_API_KEY" {
					return c.key
				}
				return ""
			}
			code := run(context.Background(), c.args, strings.NewReader(""), &stdout, &stderr, env)
			if code != 2 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit status %d, stderr %q; want 2 and %q", code, stderr.String(), c.want)
			}
		})
	}
}
