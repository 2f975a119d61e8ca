package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// textTool is a tool of the in-memory server that answers every call with
// text.
func textTool(name, text string) server.Tool {
	return server.Tool{
		Tool: runtime.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handle: func(context.Context, json.RawMessage) (*runtime.Result, error) {
			return &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: text}}}, nil
		},
	}
}

// TestMultiPrefixedNameClashesWithAToolName checks that a tool whose own
// name is another server's prefixed name ("b__x", beside server b's tool x,
// which clashes with a's x) gets an exposed name of its own, and that every
// exposed name reaches the tool Tools lists under it.
func TestMultiPrefixedNameClashesWithAToolName(t *testing.T) {
	ctx := context.Background()
	a, err := server.New([]server.Tool{textTool("x", "a's x"), textTool("b__x", "a's b__x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := server.New([]server.Tool{textTool("x", "b's x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.ConnectMulti(ctx, []runtime.Server{{Name: "a", Transport: a.Transport()}, {Name: "b", Transport: b.Transport()}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	checkExposedOnce(t, m.Tools())
	for _, mt := range m.Tools() {
		res, err := m.CallTool(ctx, mt.Exposed, nil)
		if err != nil {
			t.Errorf("%s: %v", mt.Exposed, err)
			continue
		}
		if want := mt.Server + "'s " + mt.Name; res.Text() != want {
			t.Errorf("calling %s (%s's %s) reached %q", mt.Exposed, mt.Server, mt.Name, res.Text())
		}
	}
}

// TestMultiServerNameEndingInUnderscore checks that a server name ending in
// "_" is refused: "db" + "__" + "_x" and "db_" + "__" + "x" are one prefixed
// name, so two tools would be exposed under it and calls of one would reach
// the other.
func TestMultiServerNameEndingInUnderscore(t *testing.T) {
	ctx := context.Background()
	tools := []server.Tool{textTool("x", "x"), textTool("_x", "_x")}
	db, err := server.New(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	db2, err := server.New(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.ConnectMulti(ctx, []runtime.Server{{Name: "db", Transport: db.Transport()}, {Name: "db_", Transport: db2.Transport()}})
	if err == nil {
		defer m.Close()
		checkExposedOnce(t, m.Tools())
		t.Fatal(`ConnectMulti accepted the server names "db" and "db_"`)
	}
	if want := `server name "db_" ends with "_"`; !strings.Contains(err.Error(), want) {
		t.Errorf("ConnectMulti = %v, want %s", err, want)
	}
}

// checkExposedOnce reports each name that tools expose more than once.
func checkExposedOnce(t *testing.T, tools []runtime.MultiTool) {
	t.Helper()
	seen := map[string]runtime.MultiTool{}
	for _, mt := range tools {
		if prev, ok := seen[mt.Exposed]; ok {
			t.Errorf("exposed name %q names both %s's %s and %s's %s", mt.Exposed, prev.Server, prev.Name, mt.Server, mt.Name)
		}
		seen[mt.Exposed] = mt
	}
}
