package geminidecl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// TestNumberBeyondFloat64 checks that a number a float64 cannot hold is
// refused with the tool's name and the number's pointer, in both forms:
// the JSON Schema form passed the server's bytes on as they were, which
// the API cannot read, and the typed form dropped an unknown keyword
// holding one in silence or kept an enum of it.
func TestNumberBeyondFloat64(t *testing.T) {
	for _, in := range []string{
		`{"type":"object","properties":{"":{"type":"string"}},"x":{"type":9e999999}}`,
		`{"type":"object","properties":{"a":{"type":"number","enum":[1,1e400]}}}`,
	} {
		for _, jsonSchema := range []bool{false, true} {
			_, _, err := Declare([]runtime.Tool{{Name: "t", InputSchema: json.RawMessage(in)}}, nil, jsonSchema)
			if err == nil || !strings.HasPrefix(err.Error(), "tool t: input schema at /") || !strings.Contains(err.Error(), "beyond the range of a float64") {
				t.Errorf("%s (JSON Schema form %v): %v, want an error naming the tool and pointer", in, jsonSchema, err)
			}
		}
	}
}
