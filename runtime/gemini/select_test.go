package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestToolsetFromSubset builds a toolset from the tools a runtime.ToolFilter
// keeps: only those are declared, and a call to a left-out tool is refused
// without reaching the caller.
func TestToolsetFromSubset(t *testing.T) {
	sub, err := runtime.ToolFilter{Include: []string{"light.*", "echo", "status"}, Exclude: []string{"status"}}.Select(testTools)
	if err != nil {
		t.Fatal(err)
	}
	caller := &fakeCaller{answer: func(string, json.RawMessage) (*runtime.Result, error) { return &runtime.Result{}, nil }}
	ts, err := NewToolset(caller, sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range ts.Declarations() {
		declared = append(declared, d.Name)
	}
	if strings.Join(declared, " ") != "light.turn_on echo" {
		t.Errorf("declared %v, want light.turn_on echo", declared)
	}
	resp := ts.Handle(t.Context(), &genai.FunctionCall{Name: "status"}).Response
	if msg, _ := resp["error"].(string); !strings.Contains(msg, "status") {
		t.Errorf("call of a left-out tool: %v", resp)
	}
	if len(caller.recorded()) != 0 {
		t.Errorf("the caller saw %v", caller.recorded())
	}
}

// TestToolsetOverDeclarationLimit refuses more tools than one Gemini request
// may declare, naming both numbers and where the limit is documented.
func TestToolsetOverDeclarationLimit(t *testing.T) {
	tools := make([]runtime.Tool, MaxFunctionDeclarations+1)
	for i := range tools {
		tools[i] = runtime.Tool{Name: fmt.Sprintf("t%d", i), InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	_, err := NewToolset(&fakeCaller{}, tools, nil)
	var tm *runtime.TooManyToolsError
	if !errors.As(err, &tm) || tm.Tools != 513 || tm.Limit != 512 || !strings.Contains(err.Error(), "gemini toolset: 513 tools exceed the 512") || !strings.Contains(err.Error(), "https://") {
		t.Fatalf("NewToolset with %d tools: %v", len(tools), err)
	}
	if _, err := NewToolset(&fakeCaller{}, tools[:MaxFunctionDeclarations], nil); err != nil {
		t.Errorf("NewToolset with exactly the limit: %v", err)
	}
}
