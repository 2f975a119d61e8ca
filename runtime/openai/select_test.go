package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

func manyTools(n int) []runtime.Tool {
	out := make([]runtime.Tool, n)
	for i := range out {
		out[i] = runtime.Tool{Name: fmt.Sprintf("tool.%03d", i), InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	return out
}

// TestToolsetFromSubset builds a toolset from the tools a runtime.ToolFilter
// keeps, out of more than one request may carry.
func TestToolsetFromSubset(t *testing.T) {
	all := manyTools(MaxTools + 20)
	sub, err := runtime.ToolFilter{Include: []string{"tool.00?", "tool.1*"}, Exclude: []string{"tool.1[2-9]?"}}.Select(all)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := NewToolset(&fakeCaller{}, sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range ts.Definitions() {
		names = append(names, d.Name)
	}
	// tool.000-009, then tool.100-119 (tool.120-147 excluded).
	if len(names) != 30 || names[0] != "tool_000" || names[10] != "tool_100" || names[29] != "tool_119" {
		t.Errorf("declared %d: %v", len(names), names)
	}
}

// TestToolsetOverToolLimit refuses more tools than one Chat Completions
// request may carry, naming both numbers and the documentation.
func TestToolsetOverToolLimit(t *testing.T) {
	_, err := NewToolset(&fakeCaller{}, manyTools(MaxTools+1), nil)
	var tm *runtime.TooManyToolsError
	if !errors.As(err, &tm) || tm.Tools != 129 || tm.Limit != 128 || !strings.Contains(err.Error(), "openai toolset: 129 tools exceed the 128") || !strings.Contains(err.Error(), "platform.openai.com") {
		t.Fatalf("NewToolset with %d tools: %v", MaxTools+1, err)
	}
	if _, err := NewToolset(&fakeCaller{}, manyTools(MaxTools), nil); err != nil {
		t.Errorf("NewToolset with exactly the limit: %v", err)
	}
}
