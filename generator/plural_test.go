package generator

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// TestValidatorMessagesAgreeInNumber generates limits of one and of two on
// strings, arrays and maps: the messages of the generated validators say
// "1 character", "1 item" and "1 property" for one, and the plural for two.
func TestValidatorMessagesAgreeInNumber(t *testing.T) {
	schema := `{"type":"object","properties":{
		"s1":{"type":"string","minLength":1,"maxLength":1},
		"s2":{"type":"string","minLength":2,"maxLength":2},
		"a1":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":1},
		"a2":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":2},
		"m1":{"type":"object","additionalProperties":{"type":"string"},"minProperties":1,"maxProperties":1},
		"m2":{"type":"object","additionalProperties":{"type":"string"},"minProperties":2,"maxProperties":2}}}`
	files, err := generateText(toolList(1, schema), ir.Limits{}, "types")
	if err != nil {
		t.Fatal(err)
	}
	var validate string
	for _, f := range files {
		if f.Name == "validate.go" {
			validate = string(f.Data)
		}
	}
	for _, want := range []string{
		"must be at least 1 character long", "must be at most 1 character long",
		"must be at least 2 characters long", "must be at most 2 characters long",
		"must have at least 1 item\"", "must have at most 1 item\"",
		"must have at least 2 items", "must have at most 2 items",
		"must have at least 1 property\"", "must have at most 1 property\"",
		"must have at least 2 properties", "must have at most 2 properties",
	} {
		if !strings.Contains(validate, want) {
			t.Errorf("validate.go does not say %q", want)
		}
	}
	for _, wrong := range []string{" 1 characters", " 1 items", " 1 properties"} {
		if strings.Contains(validate, wrong) {
			t.Errorf("validate.go says %q", wrong)
		}
	}
}
