package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestToolsetFromSubset builds a toolset from the tools a runtime.ToolFilter
// keeps; a left-out tool is unknown to it. The Messages API documents no
// limit on the number of tools, so a large list is accepted too.
func TestToolsetFromSubset(t *testing.T) {
	all := make([]runtime.Tool, 600)
	for i := range all {
		all[i] = runtime.Tool{Name: fmt.Sprintf("t%03d", i), InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	if _, err := NewToolset(&fakeCaller{}, all, nil); err != nil {
		t.Fatalf("600 tools: %v", err)
	}
	sub, err := runtime.ToolFilter{Include: []string{"t00*"}, Exclude: []string{"t005"}}.Select(all)
	if err != nil {
		t.Fatal(err)
	}
	caller := &fakeCaller{}
	ts, err := NewToolset(caller, sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ts.ToolParams() {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "t000 t001 t002 t003 t004 t006 t007 t008 t009" {
		t.Errorf("declared %s", got)
	}
	res := ts.Handle(context.Background(), anthropic.ToolUseBlock{ID: "x", Name: "t005", Input: json.RawMessage(`{}`)})
	if !res.IsError.Value || len(caller.calls) != 0 {
		t.Errorf("call of a left-out tool: is_error %v, caller saw %v", res.IsError.Value, caller.calls)
	}
}
