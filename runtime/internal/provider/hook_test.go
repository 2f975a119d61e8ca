package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// TestToolRunHookOutcomeScrubbed: a server that names its tools after the
// bearer token it received, and repeats the token in a tool's error, does
// not get the token to the Session's ToolRunHook, neither in the tool name
// nor in the outcome's Error, which holds the name of the tool and the text
// of its error.
func TestToolRunHookOutcomeScrubbed(t *testing.T) {
	const bearer = "bearer-token-6c0e93a5d1"
	declined, err := runtime.ParseTool([]byte(`{"name":"` + bearer + `","inputSchema":{"type":"object"}}`))
	if err != nil {
		t.Fatal(err)
	}
	failing := runtime.Tool{Name: "fails", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: json.RawMessage(`{"readOnlyHint":true}`)}
	srv, err := server.New([]server.Tool{
		{Tool: declined, Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) { return &runtime.Result{}, nil }},
		{Tool: failing, Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
			return &runtime.Result{IsError: true, Content: []runtime.Content{{Type: runtime.ContentText, Text: "token " + bearer + " is not allowed here"}}}, nil
		}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	var mu sync.Mutex
	var seen []string
	opts := &runtime.Options{ToolRunHook: func(ctx context.Context, tool string) (context.Context, func(runtime.ToolRunOutcome)) {
		return ctx, func(out runtime.ToolRunOutcome) {
			mu.Lock()
			seen = append(seen, tool+": "+out.Error)
			mu.Unlock()
		}
	}}
	ctx := context.Background()
	s, err := runtime.Connect(ctx, runtime.HTTP(hs.URL, &runtime.HTTPOptions{Header: http.Header{"Authorization": {"Bearer " + bearer}}}), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts := NewTools(s, tools, map[string]string{"declined": bearer, "fails": "fails"})
	if err := ts.Confirm(&runtime.Confirmation{Ask: func(context.Context, runtime.ProposedCall) (bool, error) { return false, nil }}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"declined", "fails"} {
		e, _ := ts.Lookup(name)
		if out := ts.Run(ctx, e, []byte(`{}`), nil); out.Error == "" {
			t.Fatalf("%s: the call did not fail: %+v", name, out)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("the hook saw %d runs, want 2", len(seen))
	}
	for _, s := range seen {
		if strings.Contains(s, bearer) {
			t.Errorf("the hook saw the token: %q", s)
		}
	}
}
