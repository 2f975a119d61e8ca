package generator

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// TestECMAPatternGenerates generates the tool of a published server whose
// pattern needs lookahead and a backreference, and a patternProperties key
// with lookahead: every part generates, and the validators compile the
// patterns with the ECMAScript engine.
func TestECMAPatternGenerates(t *testing.T) {
	schema := `{"type":"object","properties":{
		"scopes":{"type":"string","pattern":"^(?!.*(?:^|,)(team|scim|mocks:deactivated),(?:.*,)?\\1(?:$|,))(team|scim|mocks:deactivated)(,(team|scim|mocks:deactivated))*$"},
		"counts":{"type":"object","patternProperties":{"^(?!tmp_)[a-z_]+$":{"type":"integer"}},"additionalProperties":false}}}`
	files, err := generateText(toolList(1, schema), ir.Limits{}, "types", "client", "gemini", "anthropic", "openai")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Name == "validate.go" {
			if n := strings.Count(string(f.Data), "mcpimpl.MustCompilePattern("); n != 2 {
				t.Errorf("validate.go compiles %d patterns with mcpimpl.MustCompilePattern, want 2:\n%s", n, f.Data)
			}
		}
	}
}
