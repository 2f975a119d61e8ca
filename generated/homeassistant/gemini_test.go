package homeassistant

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/gemini"
)

// TestFunctionDeclarationsAreTheConverters checks that the declarations
// the package decodes from its JSON texts are the ones runtime/gemini makes
// from the tools' schemas, and that every call returns new values.
func TestFunctionDeclarationsAreTheConverters(t *testing.T) {
	want, _, err := gemini.Declarations(MCPTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := FunctionDeclarations()
	if len(got) != len(want) {
		t.Fatalf("%d declarations, want %d", len(got), len(want))
	}
	for i := range want {
		g, err := json.Marshal(got[i])
		if err != nil {
			t.Fatal(err)
		}
		w, err := json.Marshal(want[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(g) != string(w) {
			t.Errorf("declaration %d:\n got %s\nwant %s", i, g, w)
		}
	}
	for _, d := range got {
		if d.Parameters != nil {
			d.Parameters.Description = "changed"
		}
	}
	for _, d := range FunctionDeclarations() {
		if d.Parameters != nil && d.Parameters.Description == "changed" {
			t.Fatalf("declaration %s shares values with an earlier call", d.Name)
		}
	}
}

func BenchmarkFunctionDeclarations(b *testing.B) {
	for b.Loop() {
		FunctionDeclarations()
	}
}
