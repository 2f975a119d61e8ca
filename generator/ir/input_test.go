package ir

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
	"github.com/mcpgen/mcpgen/runtime"
)

// TestBuildFromRuntimeTools checks that tools whose schemas were not parsed
// by the snapshot reader (snapshot.FromRuntime) are parsed here, and that
// bad bytes are errors rather than panics.
func TestBuildFromRuntimeTools(t *testing.T) {
	s := snapshot.FromRuntime(snapshot.Server{}, "", "", []runtime.Tool{{
		Name:         "add",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}}}`),
	}})
	pkg, err := Build(s.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if tool := pkg.Tools[0]; tool.Args.Name != "AddArgs" || len(tool.Args.Fields) != 1 || tool.Result == nil {
		t.Errorf("got %+v", tool)
	}
	if s.Tools[0].Input != nil {
		t.Error("Build modified the caller's tools")
	}
	for _, tc := range []struct{ in, want string }{
		{``, `tool "bad" has no inputSchema`},
		{`{"type":`, `tool "bad": inputSchema: 1:9: unexpected end of JSON input`},
		{`[]`, `tool "bad": inputSchema is a JSON array`},
	} {
		s := snapshot.FromRuntime(snapshot.Server{}, "", "", []runtime.Tool{{Name: "bad", InputSchema: json.RawMessage(tc.in)}})
		if _, err := Build(s.Tools); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
